import { findAsset } from "../catalogue"
import { useSandbox } from "./sandbox-client"

describe("sandbox coin catalogue", () => {
  const client = useSandbox()
  let coins: any[]
  const coin = (ticker: string) => coins.find((entry) => entry.coin === ticker)

  beforeAll(async () => {
    const reply = await client().get("/v2/coins", {})
    expect(reply.status).toBe(200)
    coins = reply.body
  })

  it("lists at least 30 assets, each in the coins-listing shape, without credentials", () => {
    expect(coins.length).toBeGreaterThanOrEqual(30)
    for (const entry of coins) {
      expect(entry).toEqual(
        expect.objectContaining({
          coin: expect.any(String),
          name: expect.any(String),
          networks: expect.any(Array),
          networksWithMemo: expect.any(Array),
          hasMemo: entry.networksWithMemo.length > 0,
        })
      )
      for (const flag of ["fixedOnly", "variableOnly", "depositVariableOnly", "settleVariableOnly"]) {
        expect(entry[flag] === false || entry[flag] === true || Array.isArray(entry[flag])).toBe(true)
      }
    }
    for (const ticker of ["BTC", "ETH", "USDC", "USDT", "EURC", "XRP", "XLM", "ATOM", "TON", "BNB", "LTC", "DOGE", "DASH", "SOL", "TRX", "XMR", "ADA", "DOT", "AVAX", "POL"]) {
      expect(coin(ticker)).toBeDefined()
    }
  })

  it("gives tokens their contract address and real decimals per network", () => {
    expect(coin("ETH").networks).toEqual(expect.arrayContaining(["ethereum", "arbitrum", "optimism", "base"]))
    expect(coin("USDC").networks).toEqual(expect.arrayContaining(["ethereum", "tron", "solana", "polygon", "bsc", "arbitrum"]))
    expect(coin("USDC").tokenDetails.ethereum).toEqual({ contractAddress: "0xa0b86991c6218b36c1d19d4a2e9eb0ce3606eb48", decimals: 6 })
    expect(coin("USDT").tokenDetails.bsc.decimals).toBe(18)
    expect(coin("USDT").tokenDetails.tron).toEqual({ contractAddress: "TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t", decimals: 6 })
    expect(coin("EURC").networks).toEqual(["ethereum", "solana"])
    expect(coin("BTC").tokenDetails).toBeUndefined()
  })

  it("marks memo networks", () => {
    expect(coin("XRP").networksWithMemo).toEqual(["ripple"])
    expect(coin("XLM").networksWithMemo).toEqual(["stellar"])
    expect(coin("ATOM").networksWithMemo).toEqual(["cosmoshub"])
    expect(coin("TON").networksWithMemo).toEqual(["ton"])
    expect(coin("BNB").networksWithMemo).toEqual(["bnb"])
    expect(coin("BTC")).toEqual(expect.objectContaining({ networksWithMemo: [], hasMemo: false }))
  })

  it("keeps the variable-only sides apart, with variableOnly their union", () => {
    expect(coin("ETH")).toEqual(expect.objectContaining({ depositVariableOnly: ["zksync"], settleVariableOnly: false, variableOnly: ["zksync"] }))
    expect(coin("USDC")).toEqual(expect.objectContaining({ depositVariableOnly: false, settleVariableOnly: ["algorand"], variableOnly: ["algorand"] }))
  })

  it("lists fixed-only networks, as an array or as true on a single-network coin", () => {
    expect(coin("USDT").fixedOnly).toEqual(["ton"])
    expect(coin("XMR").fixedOnly).toBe(true)
    expect(coin("BTC").fixedOnly).toBe(false)
  })

  it("marks a temporarily offline network, and every other coin as not offline", () => {
    expect(coin("USDT")).toEqual(expect.objectContaining({ depositOffline: ["avax"], settleOffline: ["avax"] }))
    expect(coin("BTC").depositOffline).toBe(false)
  })

  it("finds a coin by ticker in any case, and a deposit coin by its contract address", () => {
    expect(findAsset("usdc", "Ethereum", "settle").coin.coin).toBe("USDC")
    expect(findAsset("0xA0B86991C6218B36C1D19D4A2E9EB0CE3606EB48", "ethereum", "deposit").coin.coin).toBe("USDC")
    expect(() => findAsset("0xa0b86991c6218b36c1d19d4a2e9eb0ce3606eb48", "ethereum", "settle")).toThrow("Invalid coin")
    expect(() => findAsset("BTC", "ethereum", "deposit")).toThrow("Invalid network")
  })

  it("rounds amounts to the on-chain decimals, at most 8", () => {
    expect(findAsset("USDC", "ethereum", "deposit").precision).toBe(6)
    expect(findAsset("USDC", "bsc", "deposit").precision).toBe(8)
    expect(findAsset("XLM", "stellar", "deposit").precision).toBe(7)
    expect(findAsset("ETH", "ethereum", "deposit").precision).toBe(8)
  })
})
