import { ReadCache } from ".."

/** A loader whose answers the test releases one at a time, counting calls. */
function controlledLoader<T>() {
  const pending: Array<{ resolve: (value: T) => void; reject: (error: Error) => void }> = []
  const load = jest.fn(() => new Promise<T>((resolve, reject) => pending.push({ resolve, reject })))
  return { load, pending }
}

describe("ReadCache", () => {
  let clock = 0
  const cache = <T>(ttlMs: number, maxEntries?: number) => new ReadCache<T>({ ttlMs, maxEntries, now: () => clock })
  beforeEach(() => {
    clock = 1_000_000
  })

  it("loads once for any number of callers asking at once, and gives each the same answer", async () => {
    const reads = cache<string>(30_000)
    const { load, pending } = controlledLoader<string>()
    const answers = Array.from({ length: 50 }, () => reads.get("btc>usdc", load))
    await Promise.resolve()
    expect(load).toHaveBeenCalledTimes(1)
    pending[0].resolve("rate 1")
    expect(await Promise.all(answers)).toEqual(Array(50).fill("rate 1"))
  })

  it("reuses a value for its time to live, then loads again", async () => {
    const reads = cache<string>(30_000)
    const load = jest.fn(async () => `loaded at ${clock}`)
    expect(await reads.get("k", load)).toBe("loaded at 1000000")
    clock += 29_999
    expect(await reads.get("k", load)).toBe("loaded at 1000000")
    expect(load).toHaveBeenCalledTimes(1)
    clock += 1
    expect(await reads.get("k", load)).toBe("loaded at 1030000")
    expect(load).toHaveBeenCalledTimes(2)
  })

  it("keeps keys apart", async () => {
    const reads = cache<string>(30_000)
    const load = jest.fn(async () => "x")
    await Promise.all([reads.get("a", load), reads.get("b", load), reads.get("a", load)])
    expect(load).toHaveBeenCalledTimes(2)
    expect(reads.size).toBe(2)
  })

  it("shares a failure with the callers that waited for it, and never caches it", async () => {
    const reads = cache<string>(30_000)
    const { load, pending } = controlledLoader<string>()
    const waiting = Array.from({ length: 5 }, () => reads.get("k", load))
    await Promise.resolve()
    pending[0].reject(new Error("Rate limit exceeded"))
    const outcomes = await Promise.allSettled(waiting)
    expect(outcomes.map((outcome) => outcome.status)).toEqual(Array(5).fill("rejected"))
    expect(load).toHaveBeenCalledTimes(1)
    expect(reads.size).toBe(0)

    const next = reads.get("k", load)
    await Promise.resolve()
    expect(load).toHaveBeenCalledTimes(2)
    pending[1].resolve("recovered")
    expect(await next).toBe("recovered")
  })

  it("is not wedged by a loader that throws at once", async () => {
    const reads = cache<string>(30_000)
    const throwing = () => {
      throw new Error("bad input")
    }
    await expect(reads.get("k", throwing)).rejects.toThrow("bad input")
    expect(await reads.get("k", async () => "fine")).toBe("fine")
  })

  it("with a time to live of 0 keeps nothing but still shares a load in flight", async () => {
    const reads = cache<string>(0)
    const { load, pending } = controlledLoader<string>()
    const together = [reads.get("k", load), reads.get("k", load)]
    await Promise.resolve()
    pending[0].resolve("once")
    expect(await Promise.all(together)).toEqual(["once", "once"])
    const later = reads.get("k", load)
    await Promise.resolve()
    expect(load).toHaveBeenCalledTimes(2)
    pending[1].resolve("twice")
    expect(await later).toBe("twice")
    expect(reads.size).toBe(0)
  })

  it("holds at most maxEntries values, dropping the oldest first", async () => {
    const reads = cache<number>(30_000, 3)
    for (const key of ["a", "b", "c", "d"]) await reads.get(key, async () => 1)
    expect(reads.size).toBe(3)
    const load = jest.fn(async () => 2)
    expect(await reads.get("d", load)).toBe(1)
    expect(await reads.get("b", load)).toBe(1)
    expect(load).not.toHaveBeenCalled()
    // "a" was the oldest: it went.
    expect(await reads.get("a", load)).toBe(2)
  })
})
