import { resultWithin } from "../concurrency"

describe("resultWithin", () => {
  it("answers the work's result when it comes first, and its failure", async () => {
    expect(await resultWithin(Promise.resolve("read"), 60_000)).toBe("read")
    await expect(resultWithin(Promise.reject(new Error("refused")), 60_000)).rejects.toThrow("refused")
  })

  it("answers nothing once the time is up, and a late failure of the work harms nothing", async () => {
    let fail: (error: Error) => void = () => undefined
    const late = new Promise<string>((_, reject) => (fail = reject))
    expect(await resultWithin(late, 1)).toBeUndefined()
    fail(new Error("too late"))
    await expect(late).rejects.toThrow("too late")
  })
})
