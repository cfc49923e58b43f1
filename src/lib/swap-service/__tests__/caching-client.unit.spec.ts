import BigNumber from "bignumber.js"
import { amountBand, CachingSwapClient, type ReadCachingOptions } from ".."
import { END_USER_IP, useSandboxClient } from "./sandbox-harness"

const BTC = { coin: "BTC", network: "bitcoin" }
const USDC = { coin: "USDC", network: "ethereum" }
const PAIR_PATH = /^\/v2\/pair\//
const PERMISSIONS_PATH = /^\/v2\/permissions$/

describe("amountBand", () => {
  it("keeps three significant digits, rounding down, so an amount is at most 1 % lower", () => {
    expect(amountBand("0.000766123")).toBe("0.000766")
    expect(amountBand("49.99")).toBe("49.9")
    expect(amountBand("123456.789")).toBe("123000")
    expect(amountBand("1.00999")).toBe("1")
    expect(amountBand("0.5")).toBe("0.5")
    for (const amount of ["0.000766123", "49.99", "123456.789", "1.00999", "999.9999"]) {
      const band = new BigNumber(amountBand(amount))
      expect(band.lte(amount)).toBe(true)
      expect(band.gte(new BigNumber(amount).times("0.99"))).toBe(true)
    }
  })

  it("leaves what is not a positive amount for the client to refuse", () => {
    expect(amountBand("0")).toBe("0")
    expect(amountBand("abc")).toBe("abc")
  })
})

describe("CachingSwapClient over the sandbox", () => {
  const harness = useSandboxClient()
  const clients: CachingSwapClient[] = []
  let clock = 0
  const cachingClient = (caching: Partial<ReadCachingOptions> = {}) => {
    const { baseUrl, graphqlUrl, payUrl, account } = harness.sandbox()
    const client = new CachingSwapClient(
      { baseUrl, graphqlUrl, payUrl, accountId: account.id, privateKey: account.secret, retryBaseDelayMs: 5 },
      { pairTtlMs: 30_000, permissionsTtlMs: 60_000, now: () => clock, ...caching }
    )
    clients.push(client)
    return client
  }
  beforeEach(() => {
    clock = 1_000_000
  })
  afterAll(async () => {
    await Promise.all(clients.map((client) => client.close()))
  })

  it("reads a pair once for any number of shoppers asking at once, and again after its time to live", async () => {
    const client = cachingClient()
    const answers = await Promise.all(Array.from({ length: 40 }, () => client.getPair(BTC, USDC)))
    expect(new Set(answers.map((answer) => answer.rate)).size).toBe(1)
    expect(harness.upstream("GET", PAIR_PATH)).toHaveLength(1)

    clock += 29_000
    await client.getPair({ coin: "btc", network: "BITCOIN" }, USDC)
    expect(harness.upstream("GET", PAIR_PATH)).toHaveLength(1)
    clock += 1_000
    await client.getPair(BTC, USDC)
    expect(harness.upstream("GET", PAIR_PATH)).toHaveLength(2)
  })

  it("reads a pair at an amount once per amount band, asking the service at the band", async () => {
    const client = cachingClient()
    await Promise.all(["0.000766123", "0.000766999", "0.000766"].map((amount) => client.getPair(BTC, USDC, { amount })))
    const reads = harness.upstream("GET", PAIR_PATH)
    expect(reads).toHaveLength(1)
    expect(reads[0].query).toMatchObject({ amount: "0.000766" })

    await client.getPair(BTC, USDC, { amount: "0.000767" })
    await client.getPair(BTC, USDC)
    await client.getPair(BTC, USDC, { amount: "0.000766", commissionRatePercent: "1" })
    expect(harness.upstream("GET", PAIR_PATH)).toHaveLength(4)
  })

  it("prices at the band a rate no better than at the amount itself, so a deposit priced with it covers", async () => {
    const plain = harness.client()
    const client = cachingClient()
    const amount = "0.000769987"
    const atBand = await client.getPair(BTC, USDC, { amount })
    const atAmount = await plain.getPair(BTC, USDC, { amount })
    expect(new BigNumber(atBand.rate).lte(atAmount.rate)).toBe(true)
  })

  it("asks permissions once per IP for any number of requests at once, and keeps IPs apart", async () => {
    const client = cachingClient()
    const answers = await Promise.all(Array.from({ length: 25 }, () => client.getPermissions(END_USER_IP)))
    expect(answers.every((answer) => answer.createShift)).toBe(true)
    expect(harness.upstream("GET", PERMISSIONS_PATH)).toHaveLength(1)
    await client.getPermissions("198.51.100.4")
    const asked = harness.upstream("GET", PERMISSIONS_PATH)
    expect(asked).toHaveLength(2)
    expect(asked.map((request) => request.userIp)).toEqual([END_USER_IP, "198.51.100.4"])
  })

  it("does not cache a refusal: the next request reads again", async () => {
    const client = cachingClient()
    harness.sandbox().addFault({ method: "GET", path: "/v2/permissions", status: 429, headers: { "Retry-After": "30" }, times: 1 })
    const refused = await Promise.allSettled(Array.from({ length: 5 }, () => client.getPermissions(END_USER_IP)))
    expect(refused.every((outcome) => outcome.status === "rejected")).toBe(true)
    expect(harness.upstream("GET", PERMISSIONS_PATH)).toHaveLength(1)
    expect((await client.getPermissions(END_USER_IP)).createShift).toBe(true)
    expect(harness.upstream("GET", PERMISSIONS_PATH)).toHaveLength(2)
  })
})
