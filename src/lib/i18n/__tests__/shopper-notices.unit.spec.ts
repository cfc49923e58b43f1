import { sayIn, SHIPPED_LANGUAGES } from ".."
import { noticeData, noticeTexts, type ShopperNotice } from "../../shift/shopper-notices"

const row = {
  kind: "payment" as const,
  cart_id: "cart_1",
  order_id: "order_1",
  payment_session_id: "payses_1",
  amount_due: "49.99",
  currency_code: "usd",
  deposit_coin: "BTC",
  deposit_network: "bitcoin",
  deposit_amount: "0.00071",
  settle_coin: "USDC",
  settle_network: "ethereum",
  settle_amount: "49.99",
  refund_address: "bc1qrefund",
  flags: null,
  credit: null,
}
const refundRow = { ...row, kind: "refund" as const, amount_due: "20", settle_coin: "BTC", settle_network: "bitcoin", settle_amount: "0.00028" }

/** Every notice, and both kinds of refund: the store's and the one the service made by sending a deposit back. */
const NOTICES: Array<[string, ReturnType<typeof noticeData>]> = [
  ...(["payment_received", "refund_address_needed", "refunded", "payment_expired"] as ShopperNotice[]).map(
    (notice) => [notice, noticeData(notice, row)] as [string, ReturnType<typeof noticeData>]
  ),
  ["refunded by the store", noticeData("refunded", refundRow)],
  ["payment short", noticeData("payment_short", { ...row, flags: { underpaid: "30" }, credit: "4.99" })],
  ["refund address for the store's refund", noticeData("refund_address_needed", { ...refundRow, amount_due: "49.99" })],
]

const render = (language: string, data: ReturnType<typeof noticeData>, overrides = {}) => {
  const say = sayIn(language, overrides)
  const { subject, text } = noticeTexts(data)
  return { subject: say(subject), text: say(text) }
}

describe("shopper notices", () => {
  it("renders each notice in each shipped language, its values filled in", () => {
    for (const language of Object.keys(SHIPPED_LANGUAGES)) {
      for (const [name, data] of NOTICES) {
        const { subject, text } = render(language, data)
        expect({ language, name, gap: /[{}]/.test(subject + text), empty: !subject.trim() }).toEqual({ language, name, gap: false, empty: false })
        expect({ language, name, amount: text.includes(`${data.amount} USD`) }).toEqual({ language, name, amount: true })
        // Each language has its own words, not English's.
        if (language !== "en") expect({ language, name, english: text === render("en", data).text }).toEqual({ language, name, english: false })
      }
    }
  })

  it("says what a short payment misses, counting what its top-ups brought, and asks for the store's refund address", () => {
    const [short, storeRefund] = NOTICES.slice(-2).map(([, data]) => data)
    expect(short).toMatchObject({ received: "30", missing: "15", payment_session_id: "payses_1", payment_page_url: null })
    expect(render("en", short)).toEqual({
      subject: "Your payment arrived short",
      text: "Your payment for your order of 49.99 USD arrived short: 30 USD of it reached the store, 15 USD is missing. Go back to the store's payment page for your order, where you chose the coin, to pay the rest or to see what becomes of what you sent.",
    })
    expect(noticeData("payment_short", { ...row, flags: { underpaid: "30" }, credit: null }, "https://shop.test/pay?cart={cart_id}")).toMatchObject({
      payment_page_url: "https://shop.test/pay?cart=cart_1",
    })
    // The store's refund pays the shopper's own coin (the refund's settle coin), for the refund's amount.
    expect(storeRefund).toMatchObject({ store_refund: true, deposit_coin: "BTC", deposit_network: "bitcoin" })
    expect(render("en", storeRefund).subject).toBe("Your refund needs an address")
  })

  it("says what arrived, where the refund address goes and what was refunded, in English and in German", () => {
    const [received, needed, sentBack, expired, refunded] = NOTICES.map(([, data]) => data)
    expect(render("en", received)).toEqual({
      subject: "We received your payment",
      text: "We received your payment (0.00071 BTC on bitcoin) for your order of 49.99 USD. Nothing to do: your order goes ahead as soon as the payment is processed.",
    })
    expect(render("de", received).text).toBe(
      "Wir haben Ihre Zahlung (0.00071 BTC über bitcoin) für Ihre Bestellung über 49.99 USD erhalten. Sie müssen nichts tun: Ihre Bestellung wird bearbeitet, sobald die Zahlung verarbeitet ist."
    )
    expect(render("en", needed).text).toContain("go back to the store's payment page for your order, where you chose the coin, and enter a BTC address on bitcoin.")
    expect(render("en", refunded).text).toBe("A refund of 20 USD for your order was sent to you (0.00028 BTC on bitcoin) to the address bc1qrefund.")
    expect(render("fr", sentBack).text).toBe("Les BTC envoyés pour votre commande de 49.99 USD vous ont été renvoyés sur bitcoin, à l’adresse bc1qrefund.")
    expect(render("pt", expired).subject).toBe("A sua solicitação de pagamento expirou")
    // A coin amount the ledger does not know yet is left out, not shown as a gap.
    expect(render("es", noticeData("payment_received", { ...row, deposit_amount: null })).text).toContain("Hemos recibido su pago (BTC en bitcoin)")
  })

  it("takes the store's own texts, English filling what a language it added lacks", () => {
    const [received] = NOTICES.map(([, data]) => data)
    const overrides = { de: { "notice.payment_received.subject": "Zahlung da!" }, it: { "notice.payment_received.subject": "Pagamento ricevuto" } }
    expect(render("de", received, overrides).subject).toBe("Zahlung da!")
    expect(render("it", received, overrides)).toEqual({ subject: "Pagamento ricevuto", text: render("en", received).text })
  })
})
