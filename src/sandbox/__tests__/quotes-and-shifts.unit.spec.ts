import BigNumber from "bignumber.js"
import { BTC_ADDRESS, EVM_ADDRESS, SOL_ADDRESS, XRP_ADDRESS, useSandbox } from "./sandbox-client"

const FIFTEEN_MINUTES_MS = 15 * 60 * 1000
/** What the service keeps of a swap's value: its 0.5% spread and its default 0.5% commission. */
const KEPT_AFTER_MARGINS = new BigNumber("0.995").times("0.995")

describe("sandbox quotes", () => {
  const client = useSandbox()

  it("quotes a deposit amount: 201 with the service's fields, settle side rounded down to 6 decimals", async () => {
    const reply = await client().quote({ settleAmount: null, depositAmount: "0.01" })
    expect(reply.status).toBe(201)
    expect(Object.keys(reply.body).sort()).toEqual(
      ["id", "createdAt", "depositCoin", "depositNetwork", "settleCoin", "settleNetwork", "expiresAt", "depositAmount", "settleAmount", "rate", "affiliateId"].sort()
    )
    expect(reply.body).toEqual(
      expect.objectContaining({ depositCoin: "BTC", depositNetwork: "bitcoin", settleCoin: "USDC", settleNetwork: "ethereum", depositAmount: "0.01", affiliateId: client().account.id })
    )
    // 0.01 × 65000 USD per BTC less the spread and the commission, less the 2 USD Ethereum settlement fee.
    expect(reply.body.settleAmount).toBe(new BigNumber(650).times(KEPT_AFTER_MARGINS).minus(2).decimalPlaces(6, BigNumber.ROUND_DOWN).toFixed())
    expect(new BigNumber(reply.body.depositAmount).times(reply.body.rate).gte(reply.body.settleAmount)).toBe(true)
    expect(Date.parse(reply.body.expiresAt) - Date.parse(reply.body.createdAt)).toBe(FIFTEEN_MINUTES_MS)
  })

  it("quotes a settle amount with the deposit rounded up, so the settle side is never short", async () => {
    const reply = await client().quote({ settleAmount: "123.45" })
    expect(reply.status).toBe(201)
    const { depositAmount, settleAmount, rate } = reply.body
    expect(settleAmount).toBe("123.45")
    expect(new BigNumber(depositAmount).decimalPlaces()).toBeLessThanOrEqual(8)
    expect(new BigNumber(depositAmount).times(rate).gte(settleAmount)).toBe(true)
    // What that deposit really yields covers the amount; one satoshi less would not.
    const yielded = await client().quote({ settleAmount: null, depositAmount })
    expect(new BigNumber(yielded.body.settleAmount).gte("123.45")).toBe(true)
    const oneLess = await client().quote({ settleAmount: null, depositAmount: new BigNumber(depositAmount).minus("0.00000001").toFixed() })
    expect(new BigNumber(oneLess.body.settleAmount).lt("123.45")).toBe(true)
  })

  it("loses a little on a round trip and prices EURC at its euro peg", async () => {
    const there = await client().quote({ depositCoin: "USDC", depositNetwork: "solana", settleCoin: "BTC", settleNetwork: "bitcoin", settleAmount: null, depositAmount: "1000" })
    const back = await client().quote({ depositCoin: "BTC", depositNetwork: "bitcoin", settleCoin: "USDC", settleNetwork: "solana", settleAmount: null, depositAmount: there.body.settleAmount })
    // Both legs lose the margins and their settlement fee (1.5 USD on Bitcoin, 0.01 USD on Solana); rounding costs less than a cent.
    const expected = new BigNumber(1000).times(KEPT_AFTER_MARGINS).minus("1.5").times(KEPT_AFTER_MARGINS).minus("0.01")
    expect(new BigNumber(back.body.settleAmount).minus(expected).abs().lt("0.01")).toBe(true)

    const euros = await client().quote({ depositCoin: "EURC", depositNetwork: "solana", settleCoin: "USDC", settleNetwork: "solana", settleAmount: null, depositAmount: "100" })
    // 100 EURC at 1.08 USD less the margins, less a 0.01 USD Solana fee.
    expect(euros.body.settleAmount).toBe(new BigNumber(108).times(KEPT_AFTER_MARGINS).minus("0.01").decimalPlaces(6, BigNumber.ROUND_DOWN).toFixed())
  })

  it("accepts tickers in any case and token contract addresses as the deposit coin", async () => {
    const reply = await client().quote({
      depositCoin: "0xdac17f958d2ee523a2206206994597c13d831ec7",
      depositNetwork: "ethereum",
      settleCoin: "btc",
      settleNetwork: "bitcoin",
      settleAmount: "0.001",
    })
    expect(reply.status).toBe(201)
    expect(reply.body).toEqual(expect.objectContaining({ depositCoin: "USDT", settleCoin: "BTC" }))
    expect(new BigNumber(reply.body.depositAmount).decimalPlaces()).toBeLessThanOrEqual(6)
  })

  it.each([
    [{ depositCoin: "NOPE" }, "Invalid coin"],
    [{ settleNetwork: "bitcoin" }, "Invalid network"],
    [{ depositCoin: "USDC", depositNetwork: "ethereum" }, "Deposit and settle method must be different"],
    [{ depositCoin: "USDT", depositNetwork: "avax" }, "Rate unavailable"],
    [{ settleAmount: "0.5" }, "Amount too low"],
    [{ settleAmount: "5000000" }, "Amount too high"],
    // Fixed rate refused: deposit-variable-only deposit network, settle-variable-only settle network.
    [{ depositCoin: "ETH", depositNetwork: "zksync" }, "Fixed rate is not available for this pair"],
    [{ settleCoin: "USDC", settleNetwork: "algorand" }, "Fixed rate is not available for this pair"],
  ])("refuses %j with 500 %s", async (overrides, message) => {
    const reply = await client().quote(overrides)
    expect(reply.status).toBe(500)
    expect(reply.body.error.message).toBe(message)
  })

  it("reports the deposit range with Amount too low", async () => {
    const reply = await client().quote({ settleAmount: "1" })
    expect(reply.body.error).toEqual(expect.objectContaining({ message: "Amount too low", depositRangeMin: expect.any(String), depositRangeMax: expect.any(String) }))
  })

  it("treats the variable-only sides separately: zksync settles and algorand deposits at a fixed rate", async () => {
    expect((await client().quote({ settleCoin: "ETH", settleNetwork: "zksync", settleAmount: "0.1" })).status).toBe(201)
    expect((await client().quote({ depositCoin: "USDC", depositNetwork: "algorand", settleAmount: "0.001", settleCoin: "BTC", settleNetwork: "bitcoin" })).status).toBe(201)
  })

  it("needs exactly one of the two amounts", async () => {
    expect((await client().quote({ settleAmount: null })).status).toBe(400)
    const both = await client().quote({ depositAmount: "0.01" })
    expect(both.status).toBe(400)
    expect(both.body.error.code).toBe("BAD_USER_INPUT")
  })
})

describe("sandbox fixed shifts", () => {
  const client = useSandbox()

  it("creates a fixed shift from a quote with the service's fields", async () => {
    const quote = (await client().quote()).body
    const reply = await client().post("/v2/shifts/fixed", {
      quoteId: quote.id,
      affiliateId: client().account.id,
      settleAddress: EVM_ADDRESS,
      refundAddress: BTC_ADDRESS,
      externalId: "payses_123",
    })
    expect(reply.status).toBe(201)
    expect(reply.body).toEqual(
      expect.objectContaining({
        id: expect.any(String),
        createdAt: expect.any(String),
        depositCoin: "BTC",
        depositNetwork: "bitcoin",
        settleCoin: "USDC",
        settleNetwork: "ethereum",
        depositAddress: expect.stringMatching(/^bc1q/),
        settleAddress: EVM_ADDRESS,
        refundAddress: BTC_ADDRESS,
        depositMin: quote.depositAmount,
        depositMax: quote.depositAmount,
        depositAmount: quote.depositAmount,
        settleAmount: "100",
        rate: quote.rate,
        type: "fixed",
        quoteId: quote.id,
        expiresAt: quote.expiresAt,
        status: "waiting",
        averageShiftSeconds: expect.any(String),
        externalId: "payses_123",
      })
    )
    expect(reply.body.depositMemo).toBeUndefined()
    // Nothing has changed yet: the service sends updatedAt only once something has.
    expect(reply.body.updatedAt).toBeUndefined()
    const read = await client().shift(reply.body.id)
    expect(read.body).toEqual(expect.objectContaining({ id: reply.body.id, status: "waiting" }))
    expect(read.body.updatedAt).toBeUndefined()
  })

  it("inherits the quote's expiresAt, so a late shift has less than 15 minutes", async () => {
    const quote = (await client().quote()).body
    await client().advanceClock(10 * 60)
    const reply = await client().post("/v2/shifts/fixed", { quoteId: quote.id, affiliateId: client().account.id, settleAddress: EVM_ADDRESS })
    expect(reply.body.expiresAt).toBe(quote.expiresAt)
    expect(Date.parse(reply.body.expiresAt) - Date.parse(reply.body.createdAt)).toBeLessThanOrEqual(5 * 60 * 1000)
  })

  it("refuses an expired quote", async () => {
    const quote = (await client().quote()).body
    await client().advanceClock(15 * 60)
    const reply = await client().post("/v2/shifts/fixed", { quoteId: quote.id, affiliateId: client().account.id, settleAddress: EVM_ADDRESS })
    expect(reply.status).toBe(400)
    expect(reply.body.error.message).toBe("Quote has already expired. Request a new quote.")
  })

  it("refuses a second shift from one quote and names the first as orderId", async () => {
    const quote = (await client().quote()).body
    const body = { quoteId: quote.id, affiliateId: client().account.id, settleAddress: EVM_ADDRESS }
    const first = await client().post("/v2/shifts/fixed", body)
    const second = await client().post("/v2/shifts/fixed", body)
    expect(second.status).toBe(400)
    expect(second.body.error).toEqual(expect.objectContaining({ message: "Quote has already been accepted", orderId: first.body.id }))
  })

  it("requires the quote's affiliateId", async () => {
    const other = (await client().post("/create-account", undefined, {})).body
    const quote = (await client().quote()).body
    const reply = await client().post("/v2/shifts/fixed", { quoteId: quote.id, affiliateId: other.id, settleAddress: EVM_ADDRESS })
    expect(reply.status).toBe(400)
    expect(reply.body.error.message).toMatch(/affiliateId/)
  })

  it("checks addresses against their network", async () => {
    const quote = (await client().quote()).body
    const wrongSettle = await client().post("/v2/shifts/fixed", { quoteId: quote.id, affiliateId: client().account.id, settleAddress: BTC_ADDRESS })
    expect(wrongSettle.status).toBe(400)
    expect(wrongSettle.body.error.message).toMatch(/^Invalid address/)
    const wrongRefund = await client().post("/v2/shifts/fixed", { quoteId: quote.id, affiliateId: client().account.id, settleAddress: EVM_ADDRESS, refundAddress: SOL_ADDRESS })
    expect(wrongRefund.status).toBe(400)
    expect(wrongRefund.body.error.message).toMatch(/refundAddress/)
  })

  it("accepts settleMemo only on memo networks, and gives memo deposit networks a depositMemo", async () => {
    const noMemo = await client().quote()
    const refused = await client().post("/v2/shifts/fixed", { quoteId: noMemo.body.id, affiliateId: client().account.id, settleAddress: EVM_ADDRESS, settleMemo: "42" })
    expect(refused.status).toBe(500)
    expect(refused.body.error.message).toBe("Memo is not supported for this settle coin")

    const toRipple = await client().fixedShift({ settleCoin: "XRP", settleNetwork: "ripple", settleAmount: "50" }, { settleAddress: XRP_ADDRESS, settleMemo: "12345" })
    expect(toRipple.settleMemo).toBe("12345")

    const fromRipple = await client().fixedShift({ depositCoin: "XRP", depositNetwork: "ripple", settleAmount: "50" })
    expect(fromRipple.depositAddress).toMatch(/^r/)
    expect(fromRipple.depositMemo).toMatch(/^\d+$/)
  })
})

describe("sandbox variable shifts", () => {
  const client = useSandbox()

  it("creates a variable shift with a deposit range, live rate, fee estimates and a 7-day validity", async () => {
    const reply = await client().variableShiftRequest({ externalId: "payses_9" })
    expect(reply.status).toBe(201)
    const shift = reply.body
    expect(shift).toEqual(expect.objectContaining({ type: "variable", status: "waiting", externalId: "payses_9", settleCoinNetworkFee: "2", networkFeeUsd: "2" }))
    expect(shift.quoteId).toBeUndefined()
    expect(shift.depositAmount).toBeUndefined()
    expect(new BigNumber(shift.depositMin).lt(shift.depositMax)).toBe(true)
    // The rate is fixed by the deposit, and nothing has changed since creation.
    expect(shift.rate).toBeUndefined()
    expect(shift.updatedAt).toBeUndefined()
    const read = (await client().shift(shift.id)).body
    expect(read.rate).toBeUndefined()
    await client().deposit(shift.id)
    const deposited = (await client().shift(shift.id)).body
    expect(deposited.rate).toEqual(expect.any(String))
    expect(deposited.updatedAt).toEqual(expect.any(String))
    expect(Date.parse(shift.expiresAt) - Date.parse(shift.createdAt)).toBe(7 * 24 * 60 * 60 * 1000)
  })

  it("refuses variable shifts on fixed-only networks and accepts deposit-variable-only deposits", async () => {
    for (const overrides of [{ depositCoin: "XMR", depositNetwork: "monero" }, { settleCoin: "USDT", settleNetwork: "ton", settleAddress: "UQ" + "A".repeat(46) }]) {
      const reply = await client().variableShiftRequest(overrides)
      expect(reply.status).toBe(500)
      expect(reply.body.error.message).toBe("Variable rate is not available for this pair")
    }
    expect((await client().variableShiftRequest({ depositCoin: "ETH", depositNetwork: "zksync" })).status).toBe(201)
  })

  it("answers 403 too many open orders beyond the open variable shift limit, until one closes", async () => {
    const shifts = []
    for (let i = 0; i < 5; i++) {
      shifts.push(await client().variableShift())
    }
    const refused = await client().variableShiftRequest()
    expect(refused.status).toBe(403)
    expect(refused.body.error.message).toBe("too many open orders")
    // Fixed shifts do not count.
    await client().fixedShift()
    await client().advanceClock(5 * 60)
    expect((await client().post("/v2/cancel-order", { orderId: shifts[0].id }, client().secretHeaders)).status).toBe(204)
    expect((await client().variableShiftRequest()).status).toBe(201)
  })
})

describe("sandbox pair rates", () => {
  const client = useSandbox()

  it("answers a pair with range and rate, lowered by commissionRate percent", async () => {
    const id = client().account.id
    const plain = await client().get(`/v2/pair/btc-bitcoin/usdc-ethereum?affiliateId=${id}&commissionRate=0`)
    expect(plain.status).toBe(200)
    // 65000 USD per BTC less the 0.5% spread.
    expect(plain.body).toEqual({ min: expect.any(String), max: expect.any(String), rate: "64675", depositCoin: "BTC", depositNetwork: "bitcoin", settleCoin: "USDC", settleNetwork: "ethereum" })
    const withCommission = await client().get(`/v2/pair/btc-bitcoin/usdc-ethereum?affiliateId=${id}&commissionRate=2`)
    expect(withCommission.body.rate).toBe("63381.5")
  })

  it("gives the rate a deposit amount really settles at, the settlement's network fee included", async () => {
    const id = client().account.id
    const forHalf = await client().get(`/v2/pair/btc-bitcoin/usdc-ethereum?affiliateId=${id}&commissionRate=2&amount=0.5`)
    // 0.5 BTC at 63381.5 is 31690.75 USDC, less the 2 USDC fee of a settlement on ethereum: 31688.75 for 0.5.
    expect(forHalf.body.rate).toBe("63377.5")
    const forLess = await client().get(`/v2/pair/btc-bitcoin/usdc-ethereum?affiliateId=${id}&commissionRate=2&amount=0.001`)
    // The fee weighs more on a small deposit: 63.3815 - 2 = 61.3815 for 0.001.
    expect(forLess.body.rate).toBe("61381.5")
  })

  it("refuses a commissionRate outside 0..2 and needs credentials and affiliateId", async () => {
    const id = client().account.id
    expect((await client().get(`/v2/pair/btc-bitcoin/usdc-ethereum?affiliateId=${id}&commissionRate=2.5`)).status).toBe(400)
    expect((await client().get(`/v2/pair/btc-bitcoin/usdc-ethereum?affiliateId=${id}`, {})).status).toBe(401)
    expect((await client().get(`/v2/pair/btc-bitcoin/usdc-ethereum`)).status).toBe(400)
  })

  it("lists every available ordered pair among the coins of /v2/pairs", async () => {
    const reply = await client().get(`/v2/pairs?pairs=btc-bitcoin,usdc-ethereum,eth&affiliateId=${client().account.id}`)
    expect(reply.status).toBe(200)
    const names = reply.body.map((pair: any) => `${pair.depositCoin}-${pair.depositNetwork}>${pair.settleCoin}-${pair.settleNetwork}`)
    expect(names.sort()).toEqual(
      [
        "BTC-bitcoin>USDC-ethereum",
        "BTC-bitcoin>ETH-ethereum",
        "USDC-ethereum>BTC-bitcoin",
        "USDC-ethereum>ETH-ethereum",
        "ETH-ethereum>BTC-bitcoin",
        "ETH-ethereum>USDC-ethereum",
      ].sort()
    )
  })
})
