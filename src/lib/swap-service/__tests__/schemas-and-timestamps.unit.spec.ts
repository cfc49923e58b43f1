import {
  checkoutSchema,
  coinSchema,
  compareTimestamps,
  latestShiftId,
  pairRateSchema,
  parseTimestamp,
  quoteSchema,
  shiftSchema,
  webhookNotificationSchema,
  type ShiftStatus,
} from ".."

const SHIFT = {
  id: "f1a2b3c4d5e6f7a8b9c0",
  createdAt: "2026-11-22T10:00:00.000Z",
  type: "fixed",
  status: "waiting",
  depositCoin: "BTC",
  depositNetwork: "bitcoin",
  settleCoin: "USDC",
  settleNetwork: "ethereum",
  depositAddress: "bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq",
  settleAddress: "0x52908400098527886E0F7030069857D2E4169EE7",
  depositAmount: "0.00155",
  settleAmount: "100",
  rate: "64516.12903226",
}

describe("shiftSchema", () => {
  it("keeps fields it does not know and status values it does not know", () => {
    const shift = shiftSchema.parse({ ...SHIFT, status: "frozen", somethingNew: { nested: true } })
    const status: ShiftStatus = shift.status
    expect(status).toBe("frozen")
    expect(shift).toMatchObject({ somethingNew: { nested: true } })
  })

  it("accepts optional fields missing or null, including a recycled deposit address", () => {
    const { depositAmount: _amount, ...withoutAmount } = SHIFT
    const shift = shiftSchema.parse({ ...withoutAmount, depositAddress: null, depositMemo: null, refundAddress: null, deposits: null })
    expect(shift.depositAddress).toBeNull()
    expect(shift.depositAmount).toBeUndefined()
  })

  it("refuses amounts that are numbers or not decimals", () => {
    expect(shiftSchema.safeParse({ ...SHIFT, depositAmount: 0.00155 }).success).toBe(false)
    expect(shiftSchema.safeParse({ ...SHIFT, settleAmount: "NaN" }).success).toBe(false)
    expect(shiftSchema.safeParse({ ...SHIFT, rate: "1e5" }).success).toBe(false)
    expect(shiftSchema.safeParse({ ...SHIFT, rate: "-1" }).success).toBe(false)
  })

  it("reads the deposits of a `multiple` shift, each with its own status", () => {
    const shift = shiftSchema.parse({
      ...SHIFT,
      status: "multiple",
      deposits: [
        { depositHash: "a", depositAmount: "0.00155", status: "settled", settleHash: "s" },
        { depositHash: "b", depositAmount: "0.001", status: "refund", issue: "max 1 deposit", settleHash: null },
      ],
    })
    expect(shift.deposits?.map((deposit) => deposit.status)).toEqual(["settled", "refund"])
  })
})

describe("tolerance and strictness everywhere", () => {
  it("keeps unknown fields on every record the client reads", () => {
    const coin = coinSchema.parse({ coin: "BTC", networks: ["bitcoin"], newFlag: ["bitcoin"] })
    expect(coin).toMatchObject({ newFlag: ["bitcoin"] })
    const deposit = shiftSchema.parse({ ...SHIFT, status: "multiple", deposits: [{ status: "held", extra: 1 }] }).deposits?.[0]
    expect(deposit).toMatchObject({ status: "held", extra: 1 })
  })

  it("refuses a record without its identity", () => {
    const { id: _id, ...withoutId } = SHIFT
    expect(shiftSchema.safeParse(withoutId).success).toBe(false)
    expect(shiftSchema.safeParse({ ...SHIFT, status: 3 }).success).toBe(false)
  })
})

describe("quoteSchema, pairRateSchema, coinSchema", () => {
  it("requires the quote's decimal amounts and its expiry", () => {
    const quote = {
      id: "q1",
      depositCoin: "BTC",
      depositNetwork: "bitcoin",
      settleCoin: "USDC",
      settleNetwork: "ethereum",
      expiresAt: "2026-11-22T10:15:00.000Z",
      depositAmount: "0.00155",
      settleAmount: "100",
      rate: "64516.12903226",
    }
    expect(quoteSchema.parse(quote)).toMatchObject(quote)
    expect(quoteSchema.safeParse({ ...quote, rate: 64516.1 }).success).toBe(false)
    expect(quoteSchema.safeParse({ ...quote, expiresAt: undefined }).success).toBe(false)
  })

  it("refuses a pair rate with a numeric min", () => {
    const pair = { min: "0.0001", max: "3.5", rate: "64000", depositCoin: "BTC", depositNetwork: "bitcoin", settleCoin: "USDC", settleNetwork: "ethereum" }
    expect(pairRateSchema.safeParse(pair).success).toBe(true)
    expect(pairRateSchema.safeParse({ ...pair, min: 0.0001 }).success).toBe(false)
  })

  it("defaults absent or null coin flags to false and memo networks to none", () => {
    const coin = coinSchema.parse({ coin: "BTC", networks: ["bitcoin"], depositVariableOnly: null })
    expect(coin).toMatchObject({ networksWithMemo: [], fixedOnly: false, depositVariableOnly: false, settleOffline: false })
  })
})

describe("checkout timestamps and orders", () => {
  const CHECKOUT = {
    id: "c1",
    settleCoin: "USDC",
    settleNetwork: "ethereum",
    settleAmount: "100",
    settleAddress: "0x52908400098527886E0F7030069857D2E4169EE7",
    affiliateId: "acc",
    successUrl: "https://shop.example/ok",
    cancelUrl: "https://shop.example/cancel",
    createdAt: "2026-11-22T10:00:00.123456789Z",
    updatedAt: "2026-11-22T10:00:00.123456790Z",
  }

  it("keeps the nine fractional digits as written", () => {
    const checkout = checkoutSchema.parse(CHECKOUT)
    expect(checkout.createdAt).toBe("2026-11-22T10:00:00.123456789Z")
  })

  it("orders timestamps a Date cannot tell apart", () => {
    expect(parseTimestamp(CHECKOUT.createdAt).getTime()).toBe(parseTimestamp(CHECKOUT.updatedAt).getTime())
    expect(compareTimestamps(CHECKOUT.createdAt, CHECKOUT.updatedAt)).toBe(-1)
    expect(compareTimestamps(CHECKOUT.updatedAt, CHECKOUT.createdAt)).toBe(1)
    expect(compareTimestamps(CHECKOUT.createdAt, CHECKOUT.createdAt)).toBe(0)
  })

  it("orders nine-digit timestamps within one millisecond that a Date sees as equal", () => {
    const earlier = "2026-11-22T10:00:00.123000001Z"
    const later = "2026-11-22T10:00:00.123999999Z"
    expect(new Date(earlier).getTime()).toBe(new Date(later).getTime())
    expect(compareTimestamps(earlier, later)).toBe(-1)
    expect(compareTimestamps(later, earlier)).toBe(1)
    expect([later, earlier].sort(compareTimestamps)).toEqual([earlier, later])
  })

  it("gives a millisecond Date for display, and falls back to text order for unreadable stamps", () => {
    expect(parseTimestamp("2026-11-22T10:00:00.123456789Z").toISOString()).toBe("2026-11-22T10:00:00.123Z")
    expect(compareTimestamps("not a time", "2026-11-22T10:00:00Z")).toBe(1)
    expect(compareTimestamps("b", "a")).toBe(1)
    expect(compareTimestamps("a", "a")).toBe(0)
  })

  it("orders across precisions and offsets", () => {
    expect(compareTimestamps("2026-11-22T10:00:00.1Z", "2026-11-22T10:00:00.099999999Z")).toBe(1)
    expect(compareTimestamps("2026-11-22T10:00:00Z", "2026-11-22T10:00:00.000000000Z")).toBe(0)
    expect(compareTimestamps("2026-11-22T12:00:00.5+02:00", "2026-11-22T10:00:00.4Z")).toBe(1)
    expect(compareTimestamps("2026-11-22T09:59:59.999999999Z", "2026-11-22T10:00:00Z")).toBe(-1)
    const sorted = ["2026-11-22T10:00:00.000000003Z", "2026-11-22T10:00:00.000000001Z", "2026-11-22T10:00:00.000000002Z"].sort(compareTimestamps)
    expect(sorted).toEqual(["2026-11-22T10:00:00.000000001Z", "2026-11-22T10:00:00.000000002Z", "2026-11-22T10:00:00.000000003Z"])
  })

  it("takes the latest shift from orders[0], none when orders is absent or empty", () => {
    expect(latestShiftId(checkoutSchema.parse(CHECKOUT))).toBeUndefined()
    expect(latestShiftId(checkoutSchema.parse({ ...CHECKOUT, orders: [] }))).toBeUndefined()
    expect(latestShiftId(checkoutSchema.parse({ ...CHECKOUT, orders: null }))).toBeUndefined()
    const checkout = checkoutSchema.parse({
      ...CHECKOUT,
      orders: [{ id: "newest", deposits: [{ depositHash: "d", settleHash: "s" }] }, { id: "older" }],
    })
    expect(latestShiftId(checkout)).toBe("newest")
    expect(checkout.orders?.[1].deposits).toEqual([])
  })
})

describe("webhookNotificationSchema", () => {
  const NOTIFICATION = {
    meta: {
      hook: {
        id: "h1",
        createdAt: "2026-11-22T10:00:00.000Z",
        updatedAt: "2026-11-22T10:00:00.000Z",
        enabled: true,
        accountId: "acc",
        targetUrl: "https://shop.example/hooks/crypto-swap/token",
      },
    },
    payload: { shiftId: "s1", checkoutId: "c1", status: "success", txid: "0xabc" },
  }

  it("reads the section-6 body", () => {
    expect(webhookNotificationSchema.parse(NOTIFICATION)).toEqual(NOTIFICATION)
  })

  it("takes a notification without checkoutId, and refuses one without shiftId", () => {
    const { checkoutId: _checkoutId, ...payload } = NOTIFICATION.payload
    expect(webhookNotificationSchema.safeParse({ ...NOTIFICATION, payload }).success).toBe(true)
    expect(webhookNotificationSchema.safeParse({ ...NOTIFICATION, payload: { status: "success" } }).success).toBe(false)
  })

  it("bounds what an anonymous sender can make the plugin keep", () => {
    const huge = { ...NOTIFICATION, payload: { ...NOTIFICATION.payload, shiftId: "x".repeat(10_000) } }
    expect(webhookNotificationSchema.safeParse(huge).success).toBe(false)
  })
})
