import { CoinCatalogue } from ".."
import { failureOf, useSandboxClient } from "./sandbox-harness"
import { waitFor } from "../../../../integration-tests/helpers/wait-for"

const TTL_MS = 60_000
const COINS_PATH = /^\/v2\/coins$/

/** Waits for a background refresh to settle, checked as the event loop turns, failing before Jest's own limit. */
const settled = (what: string, done: () => boolean) => waitFor(what, done, Boolean, { timeoutMs: 30_000, intervalMs: 5 })

describe("CoinCatalogue over the client and the sandbox", () => {
  const harness = useSandboxClient()
  let clock = 0
  const catalogue = () => new CoinCatalogue(harness.client({ maxRetries: 0 }), { ttlMs: TTL_MS, now: () => clock })
  beforeEach(() => {
    clock = 1_000_000
  })

  it("loads a cold cache with one upstream call for any number of concurrent callers", async () => {
    const coins = catalogue()
    expect(coins.ageMs()).toBe(Infinity)
    const answers = await Promise.all(Array.from({ length: 10 }, () => coins.get()))
    expect(new Set(answers).size).toBe(1)
    expect(answers[0].some((coin) => coin.coin === "BTC")).toBe(true)
    expect(harness.upstream("GET", COINS_PATH)).toHaveLength(1)
  })

  it("answers from a warm cache without calling upstream", async () => {
    const coins = catalogue()
    const loaded = await coins.get()
    harness.sandbox().clearRequests()
    clock += TTL_MS
    const answers = await Promise.all(Array.from({ length: 10 }, () => coins.get()))
    for (const answer of answers) expect(answer).toBe(loaded)
    expect(coins.ageMs()).toBe(TTL_MS)
    expect(harness.upstream("GET", COINS_PATH)).toHaveLength(0)
  })

  it("answers a stale cache at once and refreshes it once in the background", async () => {
    const coins = catalogue()
    const first = await coins.get()
    clock += TTL_MS + 1
    // The refresh is held up upstream; callers still get the copy they had.
    harness.sandbox().addFault({ method: "GET", path: "/v2/coins", delayMs: 1_000, times: 1 })
    const whileRefreshing = await Promise.all(Array.from({ length: 10 }, () => coins.get()))
    for (const answer of whileRefreshing) expect(answer).toBe(first)
    // Answered from the copy: the refresh had not come back yet (the upstream answer is held a second).
    expect(coins.ageMs()).toBe(TTL_MS + 1)
    await settled("the background refresh to replace the copy", () => coins.ageMs() === 0)
    const refreshed = await coins.get()
    expect(refreshed).not.toBe(first)
    expect(refreshed).toEqual(first)
    expect(harness.upstream("GET", COINS_PATH)).toHaveLength(2)
  })

  it("keeps the stale copy when a refresh fails, and says why", async () => {
    const coins = catalogue()
    const first = await coins.get()
    clock += TTL_MS + 1
    harness.sandbox().addFault({ method: "GET", path: "/v2/coins", status: 503, times: 1 })
    expect(await coins.get()).toBe(first)
    await settled("the failed refresh to be recorded", () => coins.lastError !== undefined)
    expect(coins.lastError).toMatchObject({ status: 503, retryable: true })
    expect(await coins.get()).toBe(first)
    await settled("the next refresh to succeed", () => coins.ageMs() === 0)
    expect(coins.lastError).toBeUndefined()
  })

  it("rejects a failed cold load for every waiting caller, and loads again on the next call", async () => {
    const coins = catalogue()
    harness.sandbox().addFault({ method: "GET", path: "/v2/coins", status: 503, times: 1 })
    const failures = await Promise.all([failureOf(coins.get()), failureOf(coins.get())])
    expect(failures[0]).toBe(failures[1])
    expect(coins.lastError).toBe(failures[0])
    expect((await coins.get()).length).toBeGreaterThan(0)
    expect(harness.upstream("GET", COINS_PATH)).toHaveLength(2)
  })
})
