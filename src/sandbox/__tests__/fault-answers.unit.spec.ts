import { useSandbox } from "./sandbox-client"
import { waitFor } from "../../../integration-tests/helpers/wait-for"

/** Faults that fall on the sandbox's answer after it acted, and injected headers. */
describe("sandbox faults on answers", () => {
  const client = useSandbox()

  async function quoteId(): Promise<string> {
    const quote = await client().quote()
    expect(quote.status).toBe(201)
    return quote.body.id
  }

  const fixedShiftRequest = (quote: string) =>
    client().post("/v2/shifts/fixed", { quoteId: quote, affiliateId: client().account.id, settleAddress: "0x52908400098527886E0F7030069857D2E4169EE7" })

  it("sends injected headers with the injected status: a 429 with Retry-After", async () => {
    await client().post("/sandbox/faults", { path: "/v2/quotes", status: 429, headers: { "Retry-After": "7" }, times: 1 })
    const limited = await client().quote()
    expect(limited.status).toBe(429)
    expect(limited.headers.get("retry-after")).toBe("7")
    expect((await client().quote()).status).toBe(201)
  })

  it("lets the sandbox act, then replaces its answer: the shift exists though the client got a 502", async () => {
    const quote = await quoteId()
    await client().post("/sandbox/faults", { path: "/v2/shifts/fixed", status: 502, body: "Bad gateway", contentType: "text/html", afterHandling: true, times: 1 })
    const lost = await fixedShiftRequest(quote)
    expect(lost.status).toBe(502)
    expect(lost.text).toBe("Bad gateway")
    expect(lost.headers.get("content-type")).toMatch(/text\/html/)
    const [made] = client().sandbox.shifts()
    expect(made).toMatchObject({ quoteId: quote, status: "waiting" })

    // The repeat finds the shift the lost answer named, as the service does for an accepted quote.
    const repeat = await fixedShiftRequest(quote)
    expect(repeat.status).toBe(400)
    expect(repeat.body.error).toMatchObject({ message: expect.stringMatching(/already been accepted/), orderId: made.id })
    expect(client().sandbox.shifts()).toHaveLength(1)
    expect(client().sandbox.requests().map((entry) => entry.status)).toEqual([201, 502, 400])
  })

  it("lets the sandbox act, then drops the connection", async () => {
    const quote = await quoteId()
    await client().post("/sandbox/faults", { path: "/v2/shifts/fixed", reset: true, afterHandling: true, times: 1 })
    await expect(fixedShiftRequest(quote)).rejects.toThrow()
    expect(client().sandbox.shifts()).toEqual([expect.objectContaining({ quoteId: quote })])
    expect(client().sandbox.requests().map((entry) => entry.status)).toEqual([201, null])
  })

  it("lets the sandbox act, then holds its own answer back: the shift exists before the answer arrives", async () => {
    const quote = await quoteId()
    // Held long enough that it can't arrive between the shift appearing and the check below, even on a loaded machine.
    await client().post("/sandbox/faults", { path: "/v2/shifts/fixed", delayMs: 2_500, afterHandling: true, times: 1 })
    const answer = fixedShiftRequest(quote)
    await waitFor("the sandbox to make the shift", () => client().sandbox.shifts().length, (count) => count > 0, { timeoutMs: 2_000, intervalMs: 10 })
    const [made] = client().sandbox.shifts()
    expect(made.quoteId).toBe(quote)
    // Made, but not answered yet: the request is logged with its status still open.
    expect(client().sandbox.requests().map((entry) => entry.status)).toEqual([201, null])
    const late = await answer
    expect(late.status).toBe(201)
    expect(late.body.id).toBe(made.id)
  })

  it("passes requests through untouched with a fault that only counts, so the next fault meets a later request", async () => {
    await client().post("/sandbox/faults", { path: "/v2/coins", times: 2 })
    await client().post("/sandbox/faults", { path: "/v2/coins", status: 503, times: 1 })
    const statuses = []
    for (let i = 0; i < 4; i++) statuses.push((await client().get("/v2/coins", {})).status)
    expect(statuses).toEqual([200, 200, 503, 200])
  })

  it("removes one fault by its id and leaves the others", async () => {
    const coins = (await client().post("/sandbox/faults", { path: "/v2/coins", status: 500 })).body
    await client().post("/sandbox/faults", { path: "/v2/permissions", status: 500 })
    expect((await client().request("DELETE", `/sandbox/faults/${coins.id}`)).status).toBe(204)
    expect((await client().request("DELETE", `/sandbox/faults/${coins.id}`)).status).toBe(404)
    expect((await client().get("/v2/coins", {})).status).toBe(200)
    expect((await client().get("/v2/permissions", {})).status).toBe(500)
    expect(client().sandbox.removeFault(coins.id)).toBe(false)
  })

  it("refuses header names that are not header names", async () => {
    expect((await client().post("/sandbox/faults", { path: "/v2/coins", status: 429, headers: { "Retry After": "1" } })).status).toBe(400)
  })
})
