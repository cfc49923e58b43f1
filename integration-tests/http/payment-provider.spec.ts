import { medusaIntegrationTestRunner } from "@medusajs/test-utils"
import { ContainerRegistrationKeys, Modules } from "@medusajs/framework/utils"
import type { MedusaContainer } from "@medusajs/framework/types"
import { useSandbox } from "../helpers/sandbox"
import { createStoreFixture, PROVIDERS, type StoreFixture } from "../helpers/store-fixtures"
import { failing, storefront } from "../helpers/storefront"
import { orderWithPayments } from "../helpers/ledger"
import { onLoggerLines, type LoggerLine } from "../helpers/logger-lines"

jest.setTimeout(120_000)

const env = useSandbox()

async function cartSessions(container: MedusaContainer, cartId: string) {
  const query = container.resolve(ContainerRegistrationKeys.QUERY)
  const {
    data: [cart],
  } = await query.graph({
    entity: "cart",
    fields: ["id", "payment_collection.payment_sessions.*"],
    filters: { id: cartId },
  })
  return cart.payment_collection?.payment_sessions ?? []
}

medusaIntegrationTestRunner({
  testSuite: ({ api, getContainer }) => {
    let store: StoreFixture
    let shop: ReturnType<typeof storefront>

    beforeEach(async () => {
      store = await createStoreFixture(getContainer())
      shop = storefront(api, store)
    })

    it("creates a fixed shift for the amount due and shows the shopper how to pay", async () => {
      const cart = await shop.createCart(2)
      const { session } = await shop.createPaymentSession(cart.id, PROVIDERS.default, {
        deposit_coin: "BTC",
        deposit_network: "bitcoin",
      })
      expect(session.status).toBe("pending")
      expect(session.data).toMatchObject({
        mode: "shift",
        shift_type: "fixed",
        session_id: session.id,
        amount: "99.98",
        currency_code: "usd",
        deposit_coin: "BTC",
        deposit_network: "bitcoin",
        settle_coin: "USDC",
        settle_network: "ethereum",
        settle_amount: "99.98",
        status: "waiting",
      })
      expect(session.data.shift_id).toEqual(expect.any(String))
      expect(session.data.deposit_address).toEqual(expect.any(String))
      expect(Number(session.data.deposit_amount)).toBeGreaterThan(0)
      expect(new Date(session.data.expires_at).getTime()).toBeGreaterThan(Date.now())
      // The shopper's IP reached the service from the server side, and no secret is in the session.
      expect(session.data.customer_ip).toMatch(/^(127\.0\.0\.1|::1)$/)
      expect(JSON.stringify(session.data)).not.toContain(env.sandbox.account.secret)

      const shift = await (await fetch(`${env.sandbox.baseUrl}/v2/shifts/${session.data.shift_id}`)).json()
      expect(shift).toMatchObject({ externalId: session.id, settleAmount: "99.98", type: "fixed" })
    })

    it("answers a waiting payment only for a cart Medusa would complete: anything else gets Medusa's own refusal", async () => {
      const cart = await shop.createCart()
      await shop.createPaymentSession(cart.id, PROVIDERS.default, { deposit_coin: "ETH", deposit_network: "ethereum" })
      // The item now needs shipping and the cart has no shipping method: Medusa refuses before any payment.
      await getContainer().resolve(Modules.CART).updateLineItems(cart.items[0].id, { requires_shipping: true })
      const refused = await failing(api.post(`/store/carts/${cart.id}/complete`, {}, shop.headers))
      expect(refused.status).toBe(400)
      expect(refused.data.message).toMatch(/no shipping method/i)
    })

    it("refuses to complete the cart until the deposit is confirmed, then places the order with an authorized payment", async () => {
      const cart = await shop.createCart()
      const { session } = await shop.createPaymentSession(cart.id, PROVIDERS.default, {
        deposit_coin: "ETH",
        deposit_network: "ethereum",
      })

      // Waiting is the expected answer, not an error: nothing above debug level may be logged about it.
      const lines: LoggerLine[] = []
      const stopListening = onLoggerLines((line) => lines.push(line))
      const early = await shop.complete(cart.id)
      expect(early.type).toBe("cart")
      expect(early.error).toMatchObject({ type: "payment_authorization_error", message: expect.stringMatching(/waiting for your deposit: send [\d.]+ ETH/i) })

      await env.control.deposit(session.data.shift_id)
      const detected = await shop.complete(cart.id)
      expect(detected.type).toBe("cart")
      expect(detected.error.message).toMatch(/being confirmed/i)
      stopListening()
      const said = lines.map(({ level, formatted, info }) => ({ level, text: `${formatted ?? info.message}` }))
      // (The shopper's "payment received" notice, sent on the deposit, is news, not the waiting answer.)
      const tooLoud = said.filter(
        ({ level, text }) => level === "error" || level === "warn" || (level !== "debug" && /waiting for your deposit|being confirmed|authoriz/i.test(text))
      )
      expect(tooLoud).toEqual([])

      await env.control.setStatus(session.data.shift_id, "processing")
      const placed = await shop.complete(cart.id)
      expect(placed.type).toBe("order")
      const [payment] = (await orderWithPayments(getContainer(), cart.id))!.payments
      expect(payment).toMatchObject({ provider_id: PROVIDERS.default, captured_at: null })
      expect(Number(payment.amount)).toBe(49.99)
      expect(payment.data).toMatchObject({ status: "processing", shift_id: session.data.shift_id })
    })

    it("places the order with a captured payment when authorizing on settlement", async () => {
      const cart = await shop.createCart()
      const { session } = await shop.createPaymentSession(cart.id, PROVIDERS.settled, {
        deposit_coin: "SOL",
        deposit_network: "solana",
      })
      await env.control.deposit(session.data.shift_id)
      await env.control.walk(session.data.shift_id, ["processing", "settling"])
      expect((await shop.complete(cart.id)).type).toBe("cart")

      await env.control.setStatus(session.data.shift_id, "settled")
      const placed = await shop.complete(cart.id)
      expect(placed.type).toBe("order")
      const [payment] = (await orderWithPayments(getContainer(), cart.id))!.payments
      expect(payment.captured_at).not.toBeNull()
      expect(payment.captures).toHaveLength(1)
      expect(Number(payment.captures[0].amount)).toBe(49.99)
    })

    it("uses the hosted checkout in checkout mode and completes once its shift settles", async () => {
      const cart = await shop.createCart()
      const { session } = await shop.createPaymentSession(cart.id, PROVIDERS.checkout, {
        deposit_coin: "BTC",
        deposit_network: "bitcoin",
      })
      expect(session.data).toMatchObject({ mode: "checkout", settle_amount: "49.99", status: "waiting" })
      expect(session.data.pay_url).toBe(`${env.sandbox.payUrl}/checkout/${session.data.checkout_id}`)

      // The payer picks a coin on the service's page, which creates the checkout's shift.
      const page = await fetch(session.data.pay_url)
      expect(page.status).toBe(200)
      const { id: shiftId } = await env.control.payCheckout(session.data.checkout_id, "ETH", "ethereum")
      await env.control.deposit(shiftId)
      await env.control.walk(shiftId, ["processing", "settling", "settled"])

      const placed = await shop.complete(cart.id)
      expect(placed.type).toBe("order")
      const [payment] = (await orderWithPayments(getContainer(), cart.id))!.payments
      expect(payment.captured_at).not.toBeNull()
      expect(payment.data).toMatchObject({ shift_id: shiftId, status: "settled" })
    })

    describe("refuses bad checkouts clearly and leaves no broken session", () => {
      async function expectRefused(data: Record<string, unknown>, status: number, message: RegExp) {
        const cart = await shop.createCart()
        const response = await failing(shop.createPaymentSession(cart.id, PROVIDERS.default, data))
        expect(response.status).toBe(status)
        expect(response.data.message).toMatch(message)
        expect(JSON.stringify(response.data)).not.toContain(env.sandbox.account.secret)
        expect(await cartSessions(getContainer(), cart.id)).toHaveLength(0)
      }

      it("an unsupported coin", async () => {
        await expectRefused({ deposit_coin: "NOPE", deposit_network: "bitcoin" }, 400, /not a coin and network/)
      })

      it("a memo on a network without memos", async () => {
        await expectRefused(
          { deposit_coin: "BTC", deposit_network: "bitcoin", refund_address: "bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq", refund_memo: "123" },
          400,
          /takes no memo/
        )
      })

      it("the merchant's own settlement coin", async () => {
        await expectRefused({ deposit_coin: "USDC", deposit_network: "ethereum" }, 400, /what the store receives/)
      })

      it("fields a storefront may not send", async () => {
        await expectRefused({ deposit_coin: "BTC", deposit_network: "bitcoin", settle_address: "0xevil" }, 400, /unknown field/)
        await expectRefused({ deposit_coin: "BTC" }, 400, /deposit_network/)
      })

      it("an expired quote", async () => {
        await env.control.addFault({
          method: "POST",
          path: "/v2/shifts/fixed",
          status: 400,
          body: JSON.stringify({ error: { code: "BAD_USER_INPUT", message: "Quote has already expired. Request a new quote." } }),
        })
        await expectRefused({ deposit_coin: "BTC", deposit_network: "bitcoin" }, 400, /Quote has already expired/)
      })

      it("the service being down", async () => {
        await env.control.addFault({ method: "POST", path: "/v2/quotes", status: 502, body: "Bad gateway" })
        await expectRefused({ deposit_coin: "BTC", deposit_network: "bitcoin" }, 500, /unavailable right now/)
      })
    })
  },
})
