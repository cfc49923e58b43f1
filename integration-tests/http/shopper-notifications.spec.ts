import { medusaIntegrationTestRunner } from "@medusajs/test-utils"
import { Modules } from "@medusajs/framework/utils"
import type { MedusaContainer } from "@medusajs/framework/types"
import BigNumber from "bignumber.js"
import { useSandbox } from "../helpers/sandbox"
import { createStoreFixture, PROVIDERS, type StoreFixture } from "../helpers/store-fixtures"
import { storefront } from "../helpers/storefront"
import { adminHeaders } from "../helpers/admin"
import { ledgerOf, orderWithPayments, reconcile } from "../helpers/ledger"
import { trackSubscribers } from "../helpers/events"
import { waitFor } from "../helpers/wait-for"

jest.setTimeout(180_000)

// The store adds Italian with its own subject for one notice (the `messages` option); English fills the rest.
const ITALIAN_EXPIRED = "La tua richiesta di pagamento è scaduta"
process.env.CRYPTO_SWAP_TEST_MESSAGES = JSON.stringify({ it: { "notice.payment_expired.subject": ITALIAN_EXPIRED } })
const env = useSandbox()
const BTC = { deposit_coin: "BTC", deposit_network: "bitcoin" }
const BTC_REFUND = "bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq"

/** What the store's notification provider was asked to send about one cart's payment. */
async function sentFor(container: MedusaContainer, cartId: string) {
  const notifications = await container.resolve(Modules.NOTIFICATION).listNotifications({ to: "shopper@example.com" })
  return notifications.filter((notification) => notification.data?.cart_id === cartId)
}

medusaIntegrationTestRunner({
  testSuite: ({ api, getContainer }) => {
    let fixture: StoreFixture
    let shop: ReturnType<typeof storefront>
    afterAll(() => {
      delete process.env.CRYPTO_SWAP_TEST_MESSAGES
    })
    beforeEach(async () => {
      fixture = await createStoreFixture(getContainer(), { stock: 10 })
      shop = storefront(api, fixture)
    })

    /** A cart as a storefront in the shopper's language creates it: Medusa keeps the tag in `cart.locale`. */
    async function cartIn(locale: string) {
      const { data } = await api.post(
        "/store/carts",
        { region_id: fixture.regionId, email: "shopper@example.com", items: [{ variant_id: fixture.variantId, quantity: 1 }], locale },
        shop.headers
      )
      return data.cart
    }

    async function pay(data: Record<string, unknown> = BTC, locale?: string, providerId = PROVIDERS.default) {
      const cart = locale ? await cartIn(locale) : await shop.createCart()
      const { session } = await shop.createPaymentSession(cart.id, providerId, data)
      return { cartId: cart.id as string, session, shiftId: session.data.shift_id as string }
    }

    /** A reconciliation tick, and the subscribers it woke. */
    async function tick(container: MedusaContainer) {
      const subscribers = trackSubscribers(container)
      await reconcile(container)
      await subscribers.idle()
    }

    /** The templates sent about a cart's payment, once they include `expected`. */
    const sentTemplates = (container: MedusaContainer, cartId: string, expected: string[]) =>
      waitFor(
        `notifications ${expected.join(", ")}`,
        async () => (await sentFor(container, cartId)).map((notification) => notification.template).sort(),
        (templates) => expected.every((template) => templates.includes(template))
      )

    it("tells the shopper once that the payment arrived, and that it was refunded, through the store's notification provider", async () => {
      const container = getContainer()
      const { cartId, session, shiftId } = await pay({ ...BTC, refund_address: BTC_REFUND })
      await env.control.deposit(shiftId)
      await tick(container)
      await env.control.setStatus(shiftId, "processing")
      await sentTemplates(container, cartId, ["crypto-swap.payment_received"])
      await tick(container)
      const received = await sentFor(container, cartId)
      expect(received).toEqual([
        expect.objectContaining({
          channel: "email",
          template: "crypto-swap.payment_received",
          data: expect.objectContaining({
            amount: session.data.amount,
            currency_code: "usd",
            deposit_coin: "BTC",
            payment_session_id: session.id,
            // No locale on the cart: English.
            locale: null,
            subject: "We received your payment",
            text: expect.stringContaining(`for your order of ${session.data.amount} USD`),
          }),
        }),
      ])

      // The merchant refunds 20 and funds the refund shift; the shopper hears once the service paid it.
      await env.control.walk(shiftId, ["settling", "settled"])
      await tick(container)
      const { payments } = (await orderWithPayments(container, cartId))!
      await api.post(`/admin/payments/${payments[0].id}/refund`, { amount: 20 }, await adminHeaders(container))
      await tick(container)
      const [refund] = await ledgerOf(container).listSwapShifts({ kind: "refund", payment_id: payments[0].id })
      await env.control.deposit(refund.shift_id!)
      await env.control.walk(refund.shift_id!, ["processing", "settling", "settled"])
      await tick(container)
      await sentTemplates(container, cartId, ["crypto-swap.refunded"])
      await tick(container)
      const sent = await sentFor(container, cartId)
      expect(sent.map((notification) => notification.template).sort()).toEqual(["crypto-swap.payment_received", "crypto-swap.refunded"])
      const refunded = sent.find((notification) => notification.template === "crypto-swap.refunded")!.data
      expect(refunded).toMatchObject({ amount: "20", refund_coin: "BTC", subject: "Your refund was sent" })
      expect(refunded!.text).toContain(`A refund of 20 USD for your order was sent to you (`)
      expect(refunded!.text).toContain(BTC_REFUND)
      // Nothing that opens the service's order page, and nothing secret.
      const text = JSON.stringify(sent)
      for (const secret of [shiftId, refund.shift_id!, env.sandbox.account.secret]) expect(text).not.toContain(secret)
    })

    it("asks the shopper for a refund address, on their page and by a notice, when the store refunds a payment that has none", async () => {
      const container = getContainer()
      // The storefront asked for no refund address: the shopper paid without one.
      const { cartId, session, shiftId } = await pay(BTC, undefined, PROVIDERS.settled)
      await env.control.deposit(shiftId)
      await env.control.walk(shiftId, ["processing", "settling", "settled"])
      await tick(container)
      const { payments } = (await orderWithPayments(container, cartId))!
      await api.post(`/admin/payments/${payments[0].id}/refund`, { amount: 20 }, await adminHeaders(container))
      await tick(container)
      const [refund] = await ledgerOf(container).listSwapShifts({ kind: "refund", payment_id: payments[0].id })
      expect(refund).toMatchObject({ status: "address_needed", shift_id: null })

      const page = async () => (await api.get(`/store/crypto-swap/payment-sessions/${session.id}?cart_id=${cartId}`, shop.headers)).data.payment
      const asking = await page()
      expect(asking.refund).toEqual({ address_needed: true, address: null })
      expect(asking.next_step).toMatch(/refund of 20 USD.*BTC address on bitcoin/i)

      await sentTemplates(container, cartId, ["crypto-swap.refund_address_needed"])
      const [notice] = (await sentFor(container, cartId)).filter((notification) => notification.template === "crypto-swap.refund_address_needed")
      const link = `http://shop.test/checkout?cart_id=${cartId}&step=payment`
      expect(notice.data).toMatchObject({ amount: "20", currency_code: "usd", deposit_coin: "BTC", deposit_network: "bitcoin", payment_page_url: link })
      expect(notice.data!.subject).toMatch(/refund/i)
      expect(notice.data!.text).toContain(`refund of 20 USD`)
      expect(notice.data!.text).toContain(link)
      expect(JSON.stringify(notice)).not.toContain(shiftId)
      // Told once, however many ticks follow.
      await tick(container)
      await tick(container)
      expect((await sentFor(container, cartId)).filter((notification) => notification.template === "crypto-swap.refund_address_needed")).toHaveLength(1)

      // The shopper answers on the page: the refund shift is made, and the page asks no more.
      await api.post(`/store/crypto-swap/payment-sessions/${session.id}/refund-address`, { cart_id: cartId, address: BTC_REFUND }, shop.headers)
      expect(await ledgerOf(container).retrieveSwapShift(refund.id)).toMatchObject({ status: "waiting", settle_address: BTC_REFUND })
      expect((await page()).refund.address_needed).toBe(false)
    })

    it("tells a shopper whose payment arrived short what is missing and where to pay it, once", async () => {
      const container = getContainer()
      // The smallest deposit the service takes on a variable-rate shift: a few dollars of the order.
      const { cartId, session, shiftId } = await pay({ deposit_coin: "ETH", deposit_network: "zksync" }, undefined, PROVIDERS.settled)
      await env.control.deposit(shiftId, { amount: session.data.deposit_min })
      await env.control.walk(shiftId, ["processing", "settling", "settled"])
      await tick(container)
      await tick(container)
      await sentTemplates(container, cartId, ["crypto-swap.payment_short"])
      const row = (await ledgerOf(container).listSwapShifts({ shift_id: shiftId }))[0]
      const received = row.flags!.underpaid as string
      const missing = new BigNumber(session.data.amount).minus(received).toFixed()
      const short = (await sentFor(container, cartId)).filter((notification) => notification.template === "crypto-swap.payment_short")
      expect(short).toHaveLength(1)
      const link = `http://shop.test/checkout?cart_id=${cartId}&step=payment`
      expect(short[0].data).toMatchObject({ amount: session.data.amount, currency_code: "usd", received, missing, payment_page_url: link, payment_session_id: session.id })
      expect(short[0].data!.text).toContain(`${missing} USD`)
      expect(short[0].data!.text).toContain(link)
      expect(JSON.stringify(short)).not.toContain(shiftId)
    })

    it("asks the shopper for a refund address when the service needs one, and says when a payment expired", async () => {
      const container = getContainer()
      const wrong = await pay()
      // A wrong amount on a fixed-rate shift: the service sends it back and needs an address.
      await env.control.deposit(wrong.shiftId, { amount: "0.00001" })
      await tick(container)
      await sentTemplates(container, wrong.cartId, ["crypto-swap.refund_address_needed"])
      expect(await sentFor(container, wrong.cartId)).toEqual([
        expect.objectContaining({
          template: "crypto-swap.refund_address_needed",
          data: expect.objectContaining({
            payment_session_id: wrong.session.id,
            cart_id: wrong.cartId,
            subject: expect.stringContaining("refund address"),
            // A store that did not name its payment page: the text says where to give the address.
            text: expect.stringContaining("go back to the store's payment page for your order"),
            payment_page_url: null,
          }),
        }),
      ])

      // A store that named its payment page (`notifications.paymentPageUrl`) gets a link to it in the text.
      const linked = await pay(BTC, undefined, PROVIDERS.settled)
      await env.control.deposit(linked.shiftId, { amount: "0.00001" })
      await tick(container)
      await sentTemplates(container, linked.cartId, ["crypto-swap.refund_address_needed"])
      const [withLink] = await sentFor(container, linked.cartId)
      const link = `http://shop.test/checkout?cart_id=${linked.cartId}&step=payment`
      expect(withLink.data).toMatchObject({ payment_page_url: link })
      expect(withLink.data!.text).toContain(`on your order's payment page: ${link}`)

      const unpaid = await pay()
      await env.control.advanceClock(16 * 60)
      await tick(container)
      await sentTemplates(container, unpaid.cartId, ["crypto-swap.payment_expired"])
      await tick(container)
      expect((await sentFor(container, unpaid.cartId)).map((notification) => notification.template)).toEqual(["crypto-swap.payment_expired"])
    })

    it("writes each notice in the shopper's language, chosen from the cart's locale as the store routes choose it", async () => {
      const container = getContainer()
      // Unpaid, each expires: German with a region, a language the store added, and one nobody has.
      const swiss = await pay(BTC, "de-CH")
      const italian = await pay(BTC, "it")
      const japanese = await pay(BTC, "ja")
      await env.control.advanceClock(16 * 60)
      await tick(container)
      const expired = async ({ cartId }: { cartId: string }) => {
        await sentTemplates(container, cartId, ["crypto-swap.payment_expired"])
        return (await sentFor(container, cartId))[0].data!
      }
      const amount = `${swiss.session.data.amount} USD`
      expect(await expired(swiss)).toMatchObject({ locale: "de-CH", subject: "Ihre Zahlungsanforderung ist abgelaufen" })
      expect((await expired(swiss)).text).toContain(`Die Zahlungsanforderung über ${amount} für Ihre Bestellung ist abgelaufen`)
      expect(await expired(italian)).toMatchObject({
        locale: "it",
        subject: ITALIAN_EXPIRED,
        text: expect.stringContaining(`The payment request of ${amount} for your order expired`),
      })
      expect(await expired(japanese)).toMatchObject({ locale: "ja", subject: "Your payment request expired" })

      const german = await pay({ ...BTC, refund_address: BTC_REFUND }, "de")
      await env.control.deposit(german.shiftId)
      await tick(container)
      await sentTemplates(container, german.cartId, ["crypto-swap.payment_received"])
      const [received] = await sentFor(container, german.cartId)
      expect(received.data).toMatchObject({ locale: "de", subject: "Wir haben Ihre Zahlung erhalten", amount: german.session.data.amount })
      expect(received.data!.text).toContain(`für Ihre Bestellung über ${amount} erhalten`)

      const text = JSON.stringify([received, ...(await Promise.all([swiss, italian, japanese].map(({ cartId }) => sentFor(container, cartId))))])
      for (const secret of [german.shiftId, swiss.shiftId, italian.shiftId, japanese.shiftId, env.sandbox.account.secret]) {
        expect(text).not.toContain(secret)
      }
    })
  },
})
