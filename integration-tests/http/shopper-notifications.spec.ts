import { medusaIntegrationTestRunner } from "@medusajs/test-utils"
import { Modules } from "@medusajs/framework/utils"
import type { MedusaContainer } from "@medusajs/framework/types"
import { useSandbox } from "../helpers/sandbox"
import { createStoreFixture, PROVIDERS } from "../helpers/store-fixtures"
import { storefront } from "../helpers/storefront"
import { adminHeaders } from "../helpers/admin"
import { ledgerOf, orderWithPayments, reconcile } from "../helpers/ledger"
import { trackSubscribers } from "../helpers/events"
import { waitFor } from "../helpers/wait-for"

jest.setTimeout(180_000)

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
    let shop: ReturnType<typeof storefront>
    beforeEach(async () => {
      shop = storefront(api, await createStoreFixture(getContainer(), { stock: 10 }))
    })

    async function pay(data: Record<string, unknown> = BTC) {
      const cart = await shop.createCart()
      const { session } = await shop.createPaymentSession(cart.id, PROVIDERS.default, data)
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
          data: expect.objectContaining({ amount: session.data.amount, currency_code: "usd", deposit_coin: "BTC", payment_session_id: session.id }),
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
      expect(sent.find((notification) => notification.template === "crypto-swap.refunded")!.data).toMatchObject({ amount: "20", refund_coin: "BTC" })
      // Nothing that opens the service's order page, and nothing secret.
      const text = JSON.stringify(sent)
      for (const secret of [shiftId, refund.shift_id!, env.sandbox.account.secret]) expect(text).not.toContain(secret)
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
          data: expect.objectContaining({ payment_session_id: wrong.session.id, cart_id: wrong.cartId }),
        }),
      ])

      const unpaid = await pay()
      await env.control.advanceClock(16 * 60)
      await tick(container)
      await sentTemplates(container, unpaid.cartId, ["crypto-swap.payment_expired"])
      await tick(container)
      expect((await sentFor(container, unpaid.cartId)).map((notification) => notification.template)).toEqual(["crypto-swap.payment_expired"])
    })
  },
})
