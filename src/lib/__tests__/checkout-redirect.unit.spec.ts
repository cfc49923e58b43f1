import type { Checkout } from "../swap-service"
import { checkoutOrigin, signedRedirect, type CheckoutTerms } from "../checkout-redirect"

const store = { accountId: "acct-store", privateKey: "the-store's-private-key" }
const terms: CheckoutTerms = {
  sessionId: "payses_1",
  amount: "49.99",
  settleCoin: "USDC",
  settleNetwork: "ethereum",
  settleAmount: "50.2",
  settleAddress: "0x1111111111111111111111111111111111111111",
}

/** The checkout as the service answers it: the store's terms, and the redirect it was given. */
function checkoutOf(successUrl: string, changes: Partial<Checkout> = {}): Checkout {
  const { sessionId: _session, amount: _amount, ...settlement } = terms
  return { id: "c1", affiliateId: "acct-store", successUrl, cancelUrl: successUrl, createdAt: "", updatedAt: "", ...settlement, ...changes } as Checkout
}

describe("checkout redirect", () => {
  const signed = signedRedirect("https://shop.test/done?step=3", store, terms)

  it("names the session and amount of a checkout the store made, keeping the store's own query", () => {
    expect(new URL(signed).searchParams.get("step")).toBe("3")
    expect(checkoutOrigin(checkoutOf(signed), store)).toEqual({ sessionId: "payses_1", amount: "49.99" })
    // The service may write the settle amount back with trailing zeros.
    expect(checkoutOrigin(checkoutOf(signed, { settleAmount: "50.200000" }), store)).toEqual({ sessionId: "payses_1", amount: "49.99" })
  })

  it("names nothing for a checkout someone else made to the store's wallet, whatever its redirect says", () => {
    const unsigned = new URL(signed)
    unsigned.searchParams.delete("crypto_swap_sig")
    const otherSession = new URL(signed)
    otherSession.searchParams.set("crypto_swap_session", "payses_2")
    const moreDue = new URL(signed)
    moreDue.searchParams.set("crypto_swap_amount", "2000")
    for (const url of [unsigned, otherSession, moreDue]) expect(checkoutOrigin(checkoutOf(url.toString()), store)).toBeUndefined()
    // The store's own redirect copied onto a cheaper checkout, or one settling elsewhere.
    expect(checkoutOrigin(checkoutOf(signed, { settleAmount: "5" }), store)).toBeUndefined()
    expect(checkoutOrigin(checkoutOf(signed, { settleAddress: "0x2222222222222222222222222222222222222222" }), store)).toBeUndefined()
    expect(checkoutOrigin(checkoutOf(signed, { settleNetwork: "base" }), store)).toBeUndefined()
    // Signed with another key, or garbage.
    expect(checkoutOrigin(checkoutOf(signedRedirect("https://shop.test/done", { ...store, privateKey: "guess" }, terms)), store)).toBeUndefined()
    expect(checkoutOrigin(checkoutOf("not a url"), store)).toBeUndefined()
    const notANumber = new URL(signed)
    notANumber.searchParams.set("crypto_swap_amount", "lots")
    expect(checkoutOrigin(checkoutOf(notANumber.toString()), store)).toBeUndefined()
  })

  it("carries nothing of the private key", () => {
    expect(signed).not.toContain(store.privateKey)
    expect(signed).not.toContain(encodeURIComponent(store.privateKey))
  })
})
