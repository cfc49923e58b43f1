import { paymentView } from "../payment-view"

// What the shopper's page says and shows for an order canceled around its payment (placed before payment).

const catalogue = { get: async () => [] }
const waiting = {
  status: "waiting",
  issue: null,
  type: "fixed",
  deposit_coin: "BTC",
  deposit_network: "bitcoin",
  deposit_address: "bc1qcanceled",
  deposit_memo: null,
  deposit_amount: "0.001",
  deposit_min: null,
  deposit_max: null,
  settle_coin: "USDC",
  settle_network: "ethereum",
  settle_amount: "50",
  rate: "50000",
  expires_at: null,
  deposit_hash: null,
  settle_hash: null,
  refund_address: null,
  order_id: "order_1",
  flags: null,
}

describe("the page of an order canceled before its payment", () => {
  it("shows no way to pay while the service has not closed the address yet", async () => {
    const view = await paymentView({ ...waiting, order_canceled_at: new Date("2026-11-27T10:00:00Z") }, "awaiting_deposit", catalogue)
    expect(view).toMatchObject({ headline: "Order canceled", payment_uri: null, wallet_uri: null, qr_svg: null, qr_alt: null })
  })

  it("says the order is canceled once the shift the store canceled for it expired", async () => {
    const row = { ...waiting, status: "expired", order_canceled_at: new Date("2026-11-27T10:00:00Z"), canceled_at: new Date("2026-11-27T10:06:00Z") }
    expect(await paymentView(row, "expired", catalogue)).toMatchObject({
      headline: "Order canceled",
      next_step: "This order was canceled: do not send anything for it.",
    })
  })

  it("says a deposit on its way to the canceled order comes back, and never that the order is paid", async () => {
    const canceled = { ...waiting, order_canceled_at: new Date("2026-11-27T10:00:00Z"), deposit_hash: "ab12" }
    for (const [status, stage] of [["pending", "deposit_detected"], ["processing", "deposit_confirmed"], ["review", "review"], ["settled", "settled"]] as const) {
      expect(await paymentView({ ...canceled, status }, stage, catalogue)).toMatchObject({
        headline: "Refund pending",
        next_step: "This payment no longer pays an order: the store will refund what you sent.",
        given_back: true,
      })
    }
    // Captured before its order was canceled: Medusa refunds it from the order; the payment itself went through.
    expect(await paymentView({ ...canceled, status: "settled", captured_at: new Date() }, "settled", catalogue)).toMatchObject({ given_back: false })
  })

  it("tells the shopper whose unpaid order the store canceled on expiry to order again, not to requote", async () => {
    // The expired payment is canceled first, then its order (cancel-expired-payment).
    const row = { ...waiting, status: "expired", canceled_at: new Date("2026-11-27T10:15:00Z"), order_canceled_at: new Date("2026-11-27T10:15:01Z") }
    const view = await paymentView(row, "expired", catalogue)
    expect(view).toMatchObject({
      headline: "This payment request has expired",
      next_step: "Nothing arrived in time, so the order was canceled. To buy these items, place a new order. Do not send funds to the old address.",
      qr_svg: null,
    })
  })
})

describe("the page of money given back", () => {
  const settledShort = { ...waiting, status: "settled", type: "variable", deposit_network: "ethereum", flags: { held_refund: "held_1", held_amount: "25" }, refund_address: "0xrefund" }

  it("says the refund is pending until all of it reached the shopper, then that it was sent, with its transaction", async () => {
    expect(await paymentView(settledShort, "underpaid", catalogue)).toMatchObject({ headline: "Refund pending", transactions: { refund: null } })
    const sent = await paymentView({ ...settledShort, refund_sent: { settle_hash: "0xabc", settle_network: "ethereum" } }, "underpaid", catalogue)
    expect(sent).toMatchObject({
      headline: "Your payment was refunded",
      next_step: "Nothing to do: the refund was sent to your refund address.",
      transactions: { refund: { hash: "0xabc", url: expect.stringContaining("0xabc") } },
    })
    // Paid back by other means: no transaction to show.
    expect(await paymentView({ ...settledShort, refund_sent: { settle_hash: null, settle_network: null } }, "underpaid", catalogue)).toMatchObject({
      headline: "Your payment was refunded",
      transactions: { refund: null },
    })
  })
})

describe("the admin's view of a variable-rate refund shift that paid the shopper short", () => {
  // The store's USDC bought the shopper 0.0002 of the 0.0003 BTC they are owed.
  const now = new Date("2026-11-28T10:00:00Z")
  const short = {
    ...waiting,
    kind: "refund" as const,
    status: "settled",
    type: "variable",
    deposit_coin: "USDC",
    deposit_network: "ethereum",
    deposit_address: "0xrefundshift",
    deposit_amount: "13.5",
    settle_coin: "BTC",
    settle_network: "bitcoin",
    settle_amount: "0.0002",
    expires_at: new Date("2026-12-01T10:00:00Z"),
    refund_address: "bc1qshopper",
    flags: { refund_target: { settle_amount: "0.0003" }, refund_short: "0.0001" },
  }

  it("says what the shopper is still owed and where the rest goes, with the address to pay while the shift takes it", async () => {
    const view = await paymentView(short, "underpaid", catalogue, now)
    expect(view).toMatchObject({ headline: "Refund short: the shopper is still owed 0.0001 BTC on bitcoin", payment_uri: expect.stringContaining("0xrefundshift") })
    expect(view.next_step).toContain("to the same address before 2026-12-01T10:00:00.000Z")
  })

  it("asks for the rest by other means once the shift expired, and in the store's coin when the shopper bears the fees", async () => {
    const expired = await paymentView(short, "underpaid", catalogue, new Date("2026-12-02T10:00:00Z"))
    expect(expired).toMatchObject({ next_step: "The refund shift expired: pay the rest by other means, then mark the refund paid.", payment_uri: null })
    const storeCoin = await paymentView({ ...short, flags: { refund_target: { deposit_amount: "20" }, refund_short: "6.5" } }, "underpaid", catalogue, now)
    expect(storeCoin.headline).toBe("Refund short: still to send 6.5 USDC on ethereum")
  })
})

describe("the page of a short payment", () => {
  const short = { ...waiting, type: "variable", deposit_network: "ethereum", amount_due: "50", currency_code: "usd", credit: null }

  it("offers the rest once the deposit is confirmed, says to wait before, and sends the shopper to the store when no top-up is taken", async () => {
    const underpaid = { underpaid: "45", underpaid_since: "2026-11-28T10:00:00Z" }
    expect((await paymentView({ ...short, status: "processing", flags: underpaid }, "underpaid", catalogue)).next_step).toMatch(/5 USD/)
    expect((await paymentView({ ...short, status: "pending", flags: { underpaid: "45" } }, "underpaid", catalogue)).next_step).toBe(
      "Nothing to do for now: once your deposit is confirmed, you can pay the rest here."
    )
    // Its order was placed on the deposit, which then settled short: the store decides, no top-up is taken.
    const afterOrder = { ...short, status: "settled", flags: underpaid, authorized_at: new Date("2026-11-28T09:00:00Z") }
    expect((await paymentView(afterOrder, "underpaid", catalogue)).next_step).toBe("Contact the store: the amount received does not cover the order.")
  })
})
