import {
  assertQuoteUsable,
  assertSettleMemoAllowed,
  chooseShiftType,
  coinSchema,
  findCoinNetwork,
  isMemoNetwork,
  isNetworkOffline,
  isVariableOnly,
  SwapServiceError,
  toServiceCommissionRate,
  type Coin,
} from ".."
import { coinsListing } from "../../../sandbox/catalogue"

const coin = (fields: Record<string, unknown>): Coin => coinSchema.parse({ name: fields.coin, ...fields })

const CATALOGUE: Coin[] = [
  coin({ coin: "BTC", networks: ["bitcoin"] }),
  coin({
    coin: "ETH",
    networks: ["ethereum", "zksync", "arbitrum"],
    depositVariableOnly: ["zksync"],
    settleVariableOnly: false,
    // The deprecated union says zksync and arbitrum; it must never be read.
    variableOnly: ["zksync", "arbitrum"],
  }),
  coin({
    coin: "USDC",
    networks: ["ethereum", "algorand", "avax"],
    tokenDetails: { ethereum: { contractAddress: "0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48", decimals: 6 } },
    settleVariableOnly: ["algorand"],
    depositOffline: ["avax"],
    settleOffline: ["AVAX"],
  }),
  coin({ coin: "XMR", networks: ["monero"], fixedOnly: true, depositVariableOnly: false }),
  coin({ coin: "ALGO", networks: ["algorand"], depositVariableOnly: true, settleVariableOnly: true }),
  coin({ coin: "XRP", networks: ["ripple"], networksWithMemo: ["ripple"], hasMemo: true }),
  coin({ coin: "BNB", networks: ["bsc", "bnb"], networksWithMemo: ["bnb"], hasMemo: true }),
]

const expectUserError = (act: () => unknown) => {
  let thrown: unknown
  try {
    act()
  } catch (error) {
    thrown = error
  }
  expect(thrown).toBeInstanceOf(SwapServiceError)
  expect(thrown).toMatchObject({ userError: true, retryable: false, code: "INVALID_REQUEST", status: undefined })
}

describe("findCoinNetwork", () => {
  it("finds a coin by ticker in any case, only on a network it offers", () => {
    expect(findCoinNetwork(CATALOGUE, "usdc", "Ethereum")?.coin).toBe("USDC")
    expect(findCoinNetwork(CATALOGUE, "BTC", "ethereum")).toBeUndefined()
    expect(findCoinNetwork(CATALOGUE, "DOGE", "dogecoin")).toBeUndefined()
  })

  it("finds a token by its contract address on that network only", () => {
    expect(findCoinNetwork(CATALOGUE, "0xa0b86991c6218b36c1d19d4a2e9eb0ce3606eb48", "ethereum")?.coin).toBe("USDC")
    expect(findCoinNetwork(CATALOGUE, "0xa0b86991c6218b36c1d19d4a2e9eb0ce3606eb48", "algorand")).toBeUndefined()
  })
})

describe("memo networks", () => {
  it("reads networksWithMemo per network", () => {
    const bnb = findCoinNetwork(CATALOGUE, "BNB", "bnb")!
    expect(isMemoNetwork(bnb, "bnb")).toBe(true)
    expect(isMemoNetwork(bnb, "bsc")).toBe(false)
  })

  it("refuses a settle memo on a network that takes none, or a coin the catalogue lacks", () => {
    expect(() => assertSettleMemoAllowed(CATALOGUE, { coin: "XRP", network: "ripple" }, "12345")).not.toThrow()
    expect(() => assertSettleMemoAllowed(CATALOGUE, { coin: "BNB", network: "bsc" }, undefined)).not.toThrow()
    expectUserError(() => assertSettleMemoAllowed(CATALOGUE, { coin: "BNB", network: "bsc" }, "12345"))
    expectUserError(() => assertSettleMemoAllowed(CATALOGUE, { coin: "USDC", network: "ethereum" }, ""))
    expectUserError(() => assertSettleMemoAllowed(CATALOGUE, { coin: "NOPE", network: "ripple" }, "1"))
  })
})

describe("chooseShiftType", () => {
  it("is fixed unless a side's own variable-only flag names the network", () => {
    expect(chooseShiftType(CATALOGUE, { coin: "BTC", network: "bitcoin" }, { coin: "USDC", network: "ethereum" })).toBe("fixed")
    expect(chooseShiftType(CATALOGUE, { coin: "ETH", network: "zksync" }, { coin: "USDC", network: "ethereum" })).toBe("variable")
    expect(chooseShiftType(CATALOGUE, { coin: "BTC", network: "bitcoin" }, { coin: "USDC", network: "algorand" })).toBe("variable")
  })

  it("does not carry a network variable-only on one side over to the other side", () => {
    // ETH on zksync is variable-only as a deposit, not as a settlement; USDC on algorand the other way round.
    expect(chooseShiftType(CATALOGUE, { coin: "BTC", network: "bitcoin" }, { coin: "ETH", network: "zksync" })).toBe("fixed")
    expect(chooseShiftType(CATALOGUE, { coin: "USDC", network: "algorand" }, { coin: "BTC", network: "bitcoin" })).toBe("fixed")
  })

  it("ignores the deprecated variableOnly", () => {
    expect(chooseShiftType(CATALOGUE, { coin: "ETH", network: "arbitrum" }, { coin: "BTC", network: "bitcoin" })).toBe("fixed")
    expect(chooseShiftType(CATALOGUE, { coin: "BTC", network: "bitcoin" }, { coin: "ETH", network: "arbitrum" })).toBe("fixed")
  })

  it("reads `true` on a single-network coin as that network", () => {
    const algo = findCoinNetwork(CATALOGUE, "ALGO", "algorand")!
    expect(isVariableOnly(algo, "algorand", "deposit")).toBe(true)
    expect(chooseShiftType(CATALOGUE, { coin: "ALGO", network: "algorand" }, { coin: "BTC", network: "bitcoin" })).toBe("variable")
    expect(chooseShiftType(CATALOGUE, { coin: "XMR", network: "monero" }, { coin: "BTC", network: "bitcoin" })).toBe("fixed")
  })
})

describe("isNetworkOffline", () => {
  it("is per side and per network, any case", () => {
    const usdc = findCoinNetwork(CATALOGUE, "USDC", "avax")!
    expect(isNetworkOffline(usdc, "avax", "deposit")).toBe(true)
    expect(isNetworkOffline(usdc, "avax", "settle")).toBe(true)
    expect(isNetworkOffline(usdc, "ethereum", "deposit")).toBe(false)
    expect(isNetworkOffline(findCoinNetwork(CATALOGUE, "BTC", "bitcoin")!, "bitcoin", "settle")).toBe(false)
  })
})

describe("assertQuoteUsable", () => {
  const now = new Date("2026-11-22T10:00:00.000Z")

  it("accepts a quote that expires later and refuses one that has expired or expires now", () => {
    expect(() => assertQuoteUsable({ expiresAt: "2026-11-22T10:00:00.001Z" }, now)).not.toThrow()
    expectUserError(() => assertQuoteUsable({ expiresAt: "2026-11-22T10:00:00.000Z" }, now))
    expectUserError(() => assertQuoteUsable({ expiresAt: "2026-11-22T09:59:00.000Z" }, now))
  })

  it("treats an unreadable expiry as expired", () => {
    expectUserError(() => assertQuoteUsable({ expiresAt: "soon" }, now))
  })
})

describe("toServiceCommissionRate", () => {
  it("sends the percent as the spec defines it, exactly", () => {
    expect(toServiceCommissionRate("0")).toBe("0")
    expect(toServiceCommissionRate("1.5")).toBe("1.5")
    expect(toServiceCommissionRate("2")).toBe("2")
    expect(toServiceCommissionRate("0.000000000000000001")).toBe("0.000000000000000001")
  })

  it("accepts numbers as well as strings from 0 to 2", () => {
    expect(toServiceCommissionRate(0)).toBe("0")
    expect(toServiceCommissionRate(1)).toBe("1")
    expect(toServiceCommissionRate(2)).toBe("2")
  })

  it("refuses 2.5, -1 and every other value outside 0..2 or not a number", () => {
    for (const value of ["2.5", "-1", 2.5, -1, "-0.1", "2.0000001", "abc", "NaN", "Infinity", ""]) {
      expectUserError(() => toServiceCommissionRate(value))
    }
  })
})

describe("the rules on the service's own listing (the sandbox's catalogue)", () => {
  const listing = coinsListing().map((record) => coinSchema.parse(record))

  it("finds coins by ticker in any case and tokens by contract address", () => {
    expect(findCoinNetwork(listing, "eth", "ZKSYNC")?.coin).toBe("ETH")
    const usdc = findCoinNetwork(listing, "USDC", "ethereum")!
    const contract = usdc.tokenDetails!.ethereum.contractAddress!
    expect(findCoinNetwork(listing, contract.toUpperCase().replace("0X", "0x"), "ethereum")?.coin).toBe("USDC")
  })

  it("is variable only on the side the listing names, never from the deprecated union", () => {
    const eth = findCoinNetwork(listing, "ETH", "zksync")!
    const usdc = findCoinNetwork(listing, "USDC", "algorand")!
    // The deprecated union names these networks without saying on which side they are variable only.
    expect(eth.variableOnly).toEqual(["zksync"])
    expect(usdc.variableOnly).toEqual(["algorand"])
    expect(chooseShiftType(listing, { coin: "ETH", network: "zksync" }, { coin: "BTC", network: "bitcoin" })).toBe("variable")
    expect(chooseShiftType(listing, { coin: "BTC", network: "bitcoin" }, { coin: "ETH", network: "zksync" })).toBe("fixed")
    expect(chooseShiftType(listing, { coin: "BTC", network: "bitcoin" }, { coin: "USDC", network: "algorand" })).toBe("variable")
    expect(chooseShiftType(listing, { coin: "USDC", network: "algorand" }, { coin: "BTC", network: "bitcoin" })).toBe("fixed")
  })

  it("reads `true` flags of single-network coins, offline networks and memo networks", () => {
    const xmr = findCoinNetwork(listing, "XMR", "monero")!
    expect(xmr.fixedOnly).toBe(true)
    const usdt = findCoinNetwork(listing, "USDT", "avax")!
    expect(isNetworkOffline(usdt, "avax", "deposit")).toBe(true)
    expect(isNetworkOffline(usdt, "avax", "settle")).toBe(true)
    expect(isNetworkOffline(usdt, "ethereum", "deposit")).toBe(false)
    expect(isMemoNetwork(findCoinNetwork(listing, "XRP", "ripple")!, "ripple")).toBe(true)
    expect(isMemoNetwork(findCoinNetwork(listing, "USDT", "ton")!, "ton")).toBe(true)
    expect(isMemoNetwork(findCoinNetwork(listing, "USDT", "ethereum")!, "ethereum")).toBe(false)
    expect(() => assertSettleMemoAllowed(listing, { coin: "XLM", network: "stellar" }, "memo")).not.toThrow()
    expect(() => assertSettleMemoAllowed(listing, { coin: "BTC", network: "bitcoin" }, "memo")).toThrow(SwapServiceError)
  })
})
