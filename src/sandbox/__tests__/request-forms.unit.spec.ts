import { BTC_ADDRESS, EVM_ADDRESS, useSandbox } from "./sandbox-client"

// The request forms the service accepts beyond the spec's examples, as public client libraries send them.

describe("sandbox amounts as JSON numbers", () => {
  const client = useSandbox()

  it("quotes a number like the same decimal string, and answers with decimal strings", async () => {
    const asNumber = await client().quote({ settleAmount: 123.45 })
    const asString = await client().quote({ settleAmount: "123.45" })
    expect(asNumber.status).toBe(201)
    expect(asNumber.body.settleAmount).toBe("123.45")
    expect(asNumber.body.depositAmount).toBe(asString.body.depositAmount)

    const deposit = await client().quote({ settleAmount: null, depositAmount: 0.01 })
    expect(deposit.status).toBe(201)
    expect(deposit.body.depositAmount).toBe("0.01")
    expect(typeof deposit.body.settleAmount).toBe("string")
  })

  it("refuses a zero amount alike as a number and as a string", async () => {
    const asNumber = await client().quote({ settleAmount: 0 })
    const asString = await client().quote({ settleAmount: "0" })
    expect(asNumber.status).toBe(asString.status)
    expect(asNumber.body).toEqual(asString.body)
  })

  it("reads a number in exponent form exactly", async () => {
    const reply = await client().quote({ depositCoin: "ETH", depositNetwork: "ethereum", settleCoin: "BTC", settleNetwork: "bitcoin", settleAmount: 5e-4 })
    expect(reply.status).toBe(201)
    expect(reply.body.settleAmount).toBe("0.0005")
  })

  it("creates a checkout from a numeric settleAmount", async () => {
    const reply = await client().post("/v2/checkout", {
      settleCoin: "USDC",
      settleNetwork: "polygon",
      settleAmount: 25.5,
      settleAddress: EVM_ADDRESS,
      affiliateId: client().account.id,
      successUrl: "https://shop.example/success",
      cancelUrl: "https://shop.example/cancel",
    })
    expect(reply.status).toBe(201)
    expect(reply.body.settleAmount).toBe("25.5")
  })

  it.each([[-5], ["12,5"], ["1e3"], [true]])("refuses the amount %j as invalid parameters", async (settleAmount) => {
    const reply = await client().quote({ settleAmount })
    expect(reply.status).toBe(400)
    expect(reply.body.error).toEqual({ message: "Invalid parameters: settleAmount", code: "BAD_USER_INPUT" })
  })
})

describe("sandbox network aliases", () => {
  const client = useSandbox()
  const affiliate = () => client().account.id

  it("reads mainnet as a native coin's main network, and a bare coin as its main network, in pair paths", async () => {
    const reply = await client().get(`/v2/pair/btc-mainnet/eth?affiliateId=${affiliate()}`)
    expect(reply.status).toBe(200)
    expect(reply.body).toEqual(expect.objectContaining({ depositCoin: "BTC", depositNetwork: "bitcoin", settleCoin: "ETH", settleNetwork: "ethereum" }))
  })

  it("reads the aliases in pairs lists", async () => {
    const reply = await client().get(`/v2/pairs?pairs=btc-mainnet,usdc-bsc,bch,eth&affiliateId=${affiliate()}`)
    expect(reply.status).toBe(200)
    const assets = new Set(reply.body.map((pair: any) => `${pair.depositCoin}-${pair.depositNetwork}`))
    expect([...assets].sort()).toEqual(["BCH-bitcoincash", "BTC-bitcoin", "ETH-ethereum", "USDC-bsc"])
  })

  it("quotes with depositNetwork mainnet and with no network for a single-network coin", async () => {
    const mainnet = await client().quote({ depositNetwork: "mainnet" })
    expect(mainnet.status).toBe(201)
    expect(mainnet.body.depositNetwork).toBe("bitcoin")
    const bare = await client().quote({ depositNetwork: undefined, settleCoin: "LTC", settleNetwork: undefined, settleAmount: "1" })
    expect(bare.status).toBe(201)
    expect(bare.body).toEqual(expect.objectContaining({ depositNetwork: "bitcoin", settleNetwork: "litecoin" }))
  })

  it("refuses a quote or shift without a network for a coin on several networks: the field is required there", async () => {
    const quote = await client().quote({ depositCoin: "ETH", depositNetwork: undefined, settleAmount: "100" })
    expect(quote.status).toBe(500)
    expect(quote.body.error.message).toBe("Invalid network")
    const shift = await client().variableShiftRequest({ depositCoin: "ETH", depositNetwork: undefined })
    expect(shift.status).toBe(500)
    expect(shift.body.error.message).toBe("Invalid network")
  })

  it("creates a variable shift on mainnet aliases", async () => {
    const shift = await client().variableShift({ depositCoin: "ETH", depositNetwork: "mainnet" })
    expect(shift.depositNetwork).toBe("ethereum")
  })

  it.each([
    ["a token has no mainnet", { depositCoin: "USDC", depositNetwork: "mainnet" }],
    ["a multi-network token needs its network", { depositCoin: "USDC", depositNetwork: undefined }],
  ])("answers 500 Invalid network where %s", async (_case, overrides) => {
    const reply = await client().quote(overrides)
    expect(reply.status).toBe(500)
    expect(reply.body.error.message).toBe("Invalid network")
  })

  it("lists mainnet on native coins and both offline flags on every coin", async () => {
    const coins: any[] = (await client().get("/v2/coins", {})).body
    const coin = (ticker: string) => coins.find((entry) => entry.coin === ticker)
    expect(coin("BTC").mainnet).toBe("bitcoin")
    expect(coin("ETH").mainnet).toBe("ethereum")
    expect(coin("POL").mainnet).toBe("polygon")
    expect(coin("USDC").mainnet).toBeUndefined()
    for (const entry of coins) {
      for (const flag of ["depositOffline", "settleOffline"]) {
        expect(entry[flag] === false || entry[flag] === true || Array.isArray(entry[flag])).toBe(true)
      }
    }
    expect(coin("BTC")).toEqual(expect.objectContaining({ depositOffline: false, settleOffline: false }))
    expect(coin("USDT")).toEqual(expect.objectContaining({ depositOffline: ["avax"], settleOffline: ["avax"] }))
  })
})

describe("sandbox validation wording", () => {
  const client = useSandbox()

  it("names the offending parameters in the service's words, not a schema library's", async () => {
    const reply = await client().quote({ depositCoin: "", settleCoin: 7 })
    expect(reply.status).toBe(400)
    expect(reply.body.error).toEqual({ message: "Invalid parameters: depositCoin, settleCoin", code: "BAD_USER_INPUT" })
    const shift = await client().variableShiftRequest({ settleAddress: undefined })
    expect(shift.body.error.message).toBe("Invalid parameters: settleAddress")
  })

  it("treats an empty refundAddress and refundMemo as absent", async () => {
    const shift = await client().variableShift({ refundAddress: "", refundMemo: "" })
    expect(shift.refundAddress).toBeUndefined()
    const fixed = await client().fixedShift({}, { refundAddress: "" })
    expect(fixed.refundAddress).toBeUndefined()
    expect((await client().variableShift({ refundAddress: BTC_ADDRESS })).refundAddress).toBe(BTC_ADDRESS)
  })

  it("answers 500 Duplicate coin when pairs names an asset twice", async () => {
    const reply = await client().get(`/v2/pairs?pairs=btc,eth,btc-mainnet&affiliateId=${client().account.id}`)
    expect(reply.status).toBe(500)
    expect(reply.body.error.message).toBe("Duplicate coin")
  })
})
