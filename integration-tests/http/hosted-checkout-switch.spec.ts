import { medusaIntegrationTestRunner } from "@medusajs/test-utils"
import { ContainerRegistrationKeys, Modules } from "@medusajs/framework/utils"
import type { MedusaContainer } from "@medusajs/framework/types"
import { useSandbox } from "../helpers/sandbox"
import { createStoreFixture, PROVIDERS } from "../helpers/store-fixtures"
import { storefront } from "../helpers/storefront"
import { ledgerOf, ledgerRow, orderWithPayments, reconcile } from "../helpers/ledger"
import { waitFor } from "../helpers/wait-for"
import { emittedMessages } from "../helpers/events"
import { configureReconciliation, shippedReconcileDefaults } from "../helpers/reconcile-options"
import { adminHeaders } from "../helpers/admin"

jest.setTimeout(120_000)

const env = useSandbox()
const BTC_REFUND = "bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq"
/** Past a fixed shift's quote lifetime (15 minutes). */
const QUOTE_LIFETIME_PLUS = 16 * 60

async function sessionStatus(container: MedusaContainer, sessionId: string) {
  const query = container.resolve(ContainerRegistrationKeys.QUERY)
  const {
    data: [session],
  } = await query.graph({ entity: "payment_session", fields: ["status"], filters: { id: sessionId } })
  return session.status as string
}

/** Issue 13, scenario 3: on the hosted pay page the payer may pick a coin, change their mind and pick another. */
medusaIntegrationTestRunner({
  testSuite: ({ api, getContainer }) => {
    let shop: ReturnType<typeof storefront>

    beforeEach(async () => {
      await env.control.reset()
      shop = storefront(api, await createStoreFixture(getContainer()))
    })

    /** A hosted-checkout payment whose payer picked BTC first, and the ledger has already seen that shift. */
    async function checkoutWithFirstCoin() {
      const container = getContainer()
      const cart = await shop.createCart()
      const { session } = await shop.createPaymentSession(cart.id, PROVIDERS.checkout, { deposit_coin: "BTC", deposit_network: "bitcoin" })
      const checkoutId = session.data.checkout_id as string
      const first = await env.control.payCheckout(checkoutId, "BTC", "bitcoin")
      await reconcile(container)
      expect((await ledgerRow(container, { checkout_id: checkoutId })).shift_id).toBe(first.id)
      return { container, cart, session, checkoutId, first }
    }

    /** The payer opens ETH on the pay page, then pays the BTC shift in full, which places the order; answers the ETH shift. */
    async function openSecondAndPayFirst(container: MedusaContainer, checkoutId: string, firstId: string) {
      const second = await env.control.payCheckout(checkoutId, "ETH", "ethereum")
      await env.control.deposit(firstId)
      await env.control.setStatus(firstId, "processing")
      await reconcile(container)
      expect(await ledgerRow(container, { checkout_id: checkoutId })).toMatchObject({ shift_id: firstId, authorized_at: expect.anything() })
      return second
    }

    /** The payment page's view, whatever its status: the route must never fail. */
    const pageOf = (sessionId: string, cartId: string) =>
      api.get(`/store/crypto-swap/payment-sessions/${sessionId}?cart_id=${cartId}`, shop.headers).catch((error: { response?: { status: number; data: any } }) => {
        if (error.response) return error.response
        throw error
      })

    it("follows and captures the shift paid after a coin switch; the expired first shift cancels nothing", async () => {
      const { container, cart, session, checkoutId } = await checkoutWithFirstCoin()

      // The payer switches to ETH on the pay page and pays that shift; the shopper returns to the store.
      const second = await env.control.payCheckout(checkoutId, "ETH", "ethereum")
      await env.control.deposit(second.id)
      await env.control.setStatus(second.id, "processing")
      const completed = await shop.complete(cart.id)
      expect({ type: completed.type, error: completed.error }).toEqual({ type: "order", error: undefined })
      await env.control.walk(second.id, ["settling", "settled"])
      // The BTC shift, never paid, expires.
      await env.control.advanceClock(QUOTE_LIFETIME_PLUS)
      await reconcile(container)

      const page = await pageOf(session.id, cart.id)
      const row = await ledgerRow(container, { checkout_id: checkoutId })
      const order = await orderWithPayments(container, cart.id)
      expect({
        page: { status: page.status, payment: page.data.payment },
        row: { shift_id: row.shift_id, status: row.status, captured_at: row.captured_at, canceled_at: row.canceled_at },
        order: { status: order?.status, payments: order?.payments.map((payment: any) => ({ captures: payment.captures.length, canceled_at: payment.canceled_at })) },
        session: await sessionStatus(container, session.id),
      }).toEqual({
        page: {
          status: 200,
          payment: expect.objectContaining({ status: "settled", stage: "settled", deposit: expect.objectContaining({ coin: "ETH", network: "ethereum" }) }),
        },
        row: { shift_id: second.id, status: "settled", captured_at: expect.anything(), canceled_at: null },
        order: { status: "pending", payments: [{ captures: 1, canceled_at: null }] },
        session: "authorized",
      })
    })

    it("keeps an unpaid later shift alive when the earlier one expires, and the page shows the later one", async () => {
      const { container, cart, session, checkoutId } = await checkoutWithFirstCoin()

      // Ten minutes on, the payer comes back and picks ETH instead; five more and the BTC shift has expired.
      await env.control.advanceClock(10 * 60)
      const second = await env.control.payCheckout(checkoutId, "ETH", "ethereum")
      await env.control.advanceClock(6 * 60)
      await reconcile(container)

      const page = await pageOf(session.id, cart.id)
      expect(page.status).toBe(200)
      expect(page.data.payment).toMatchObject({ stage: "awaiting_deposit", deposit: { coin: "ETH", network: "ethereum" } })
      expect(page.data.payment.seconds_left).toBeGreaterThan(0)
      const row = await ledgerRow(container, { checkout_id: checkoutId })
      expect(row).toMatchObject({ shift_id: second.id, status: "waiting", canceled_at: null })
      expect(await sessionStatus(container, session.id)).toBe("pending")

      // Paid in time, it places the order and is captured.
      await env.control.deposit(second.id)
      await env.control.walk(second.id, ["processing", "settling", "settled"])
      await reconcile(container)
      const order = await orderWithPayments(container, cart.id)
      expect(order?.payments.map((payment: any) => payment.captures.length)).toEqual([1])
    })

    it.each([1, 2])("keeps the paid shift when the payer sends a wrong amount %i time(s) to another shift of the checkout, which is sent back", async (wrongDeposits) => {
      const { container, cart, session, checkoutId, first } = await checkoutWithFirstCoin()

      // The payer opened ETH too, then paid BTC in full, which places the order.
      const second = await openSecondAndPayFirst(container, checkoutId, first.id)

      // A wrong amount to the ETH address: the service will send it back (it waits for a refund address). BTC settles meanwhile.
      for (let sent = 0; sent < wrongDeposits; sent++) await env.control.deposit(second.id, { amount: "0.001" })
      expect(env.sandbox.getShift(second.id)).toMatchObject({ status: wrongDeposits > 1 ? "multiple" : "refund" })
      await env.control.walk(first.id, ["settling", "settled"])
      await reconcile(container)

      const row = await ledgerRow(container, { checkout_id: checkoutId })
      const order = await orderWithPayments(container, cart.id)
      const page = await pageOf(session.id, cart.id)
      expect({
        row: { shift_id: row.shift_id, status: row.status, captured_at: row.captured_at, canceled_at: row.canceled_at, other: row.flags?.other_paid_shifts },
        payments: order?.payments.map((payment: any) => ({ captures: payment.captures.length, canceled_at: payment.canceled_at })),
        page: { status: page.status, stage: page.data.payment?.stage, coin: page.data.payment?.deposit?.coin },
      }).toEqual({
        row: { shift_id: first.id, status: "settled", captured_at: expect.anything(), canceled_at: null, other: [second.id] },
        payments: [{ captures: 1, canceled_at: null }],
        page: { status: 200, stage: "settled", coin: "BTC" },
      })
    })

    it("passes an admin's refund address to a later shift of the checkout sent back, though one was passed to an earlier shift", async () => {
      const container = getContainer()
      const admin = await adminHeaders(container)
      const cart = await shop.createCart()
      const { session } = await shop.createPaymentSession(cart.id, PROVIDERS.checkout, { deposit_coin: "BTC", deposit_network: "bitcoin" })
      const checkoutId = session.data.checkout_id as string
      /** A wrong amount to a pick: the service waits for an address to send it back to, which the admin gives. */
      async function sentBack() {
        const shift = await env.control.payCheckout(checkoutId, "BTC", "bitcoin")
        await env.control.deposit(shift.id, { amount: "0.0001" })
        await reconcile(container)
        const row = await ledgerRow(container, { checkout_id: checkoutId })
        expect(row).toMatchObject({ shift_id: shift.id, status: "refund", flags: expect.objectContaining({ address_needed: true }) })
        expect((await api.post(`/admin/crypto-swap/shifts/${row.id}/refund-address`, { address: BTC_REFUND }, admin)).status).toBe(200)
        await reconcile(container)
        return shift
      }
      const first = await sentBack()
      expect(env.sandbox.getShift(first.id)).toMatchObject({ refundAddress: BTC_REFUND })
      await env.control.walk(first.id, ["refunding", "refunded"])

      // The payer picks again and sends a wrong amount again: that shift gets the admin's address as well.
      const second = await sentBack()
      expect(env.sandbox.getShift(second.id)).toMatchObject({ refundAddress: BTC_REFUND })
    })

    /** Makes the ledger row of a checkout one made `ago` ms ago and due now, as the clock would. */
    async function madeAgo(container: MedusaContainer, checkoutId: string, ago: number) {
      await container.resolve(ContainerRegistrationKeys.PG_CONNECTION)("crypto_swap_shift")
        .where({ checkout_id: checkoutId })
        .update({ created_at: new Date(Date.now() - ago), next_sync_at: new Date() })
    }

    it("reads a checkout nobody picked a coin on less often as it ages, and stops after a month", async () => {
      const container = getContainer()
      const testApp = configureReconciliation(container, PROVIDERS.checkout, {})
      const shipped = configureReconciliation(container, PROVIDERS.checkout, shippedReconcileDefaults())
      try {
        const cart = await shop.createCart()
        const { session } = await shop.createPaymentSession(cart.id, PROVIDERS.checkout, { deposit_coin: "BTC", deposit_network: "bitcoin" })
        const checkoutId = session.data.checkout_id as string
        await reconcile(container)
        const fresh = await ledgerRow(container, { checkout_id: checkoutId })
        expect(new Date(fresh.next_sync_at!).getTime() - Date.now()).toBeLessThanOrEqual(shipped.waitingSeconds * 1000)

        // Abandoned for two hours: the page may still be open in a tab, read hourly, not every 30 s forever.
        await madeAgo(container, checkoutId, 2 * 60 * 60 * 1000)
        const before = Date.now()
        await reconcile(container)
        const old = await ledgerRow(container, { checkout_id: checkoutId })
        expect(new Date(old.next_sync_at!).getTime()).toBeGreaterThanOrEqual(before + shipped.openAddressSeconds * 1000)

        // A week on, read daily; a month on, not at all (a notification of a payment still wakes it).
        await madeAgo(container, checkoutId, 8 * 24 * 60 * 60 * 1000)
        const weekOn = Date.now()
        await reconcile(container)
        expect(new Date((await ledgerRow(container, { checkout_id: checkoutId })).next_sync_at!).getTime()).toBeGreaterThanOrEqual(weekOn + 24 * 60 * 60 * 1000)
        await madeAgo(container, checkoutId, 31 * 24 * 60 * 60 * 1000)
        await reconcile(container)
        expect((await ledgerRow(container, { checkout_id: checkoutId })).next_sync_at).toBeNull()
      } finally {
        configureReconciliation(container, PROVIDERS.checkout, testApp)
      }
    })

    it("never gives the service a refund address the shopper typed before the payer picked a coin on the checkout's page", async () => {
      const container = getContainer()
      const cart = await shop.createCart()
      const typed = "0x" + "a".repeat(40)
      const { session } = await shop.createPaymentSession(cart.id, PROVIDERS.checkout, { deposit_coin: "USDC", deposit_network: "ethereum", refund_address: typed })
      const checkoutId = session.data.checkout_id as string
      // Recorded from the session's data, as discovery does when the ledger lost the creation.
      const ledger = ledgerOf(container)
      const recorded = await waitFor("the checkout to be recorded", () => ledger.listSwapShifts({ checkout_id: checkoutId }), (rows) => rows.length === 1)
      await ledger.deleteSwapShifts(recorded[0].id)
      await reconcile(container)
      expect(await ledgerRow(container, { checkout_id: checkoutId })).toMatchObject({ refund_address: null })

      // The payer picks another EVM coin, where that address would be accepted, and sends too little: the
      // service sends it back and needs an address for that coin, which only the payer can give.
      const picked = await env.control.payCheckout(checkoutId, "ETH", "base")
      await env.control.deposit(picked.id, { amount: "0.00001" })
      await reconcile(container)
      await reconcile(container)
      expect(env.sandbox.getShift(picked.id).refundAddress ?? null).toBeNull()
      expect(await ledgerRow(container, { checkout_id: checkoutId })).toMatchObject({ refund_address: null, flags: expect.objectContaining({ address_needed: true }) })
    })

    it("keeps a checkout's payment open when its pick's deposit is sent back, and places the order when the payer picks again and pays", async () => {
      const { container, cart, session, checkoutId, first } = await checkoutWithFirstCoin()
      // Too little for the pick's fixed amount: the service sends it back.
      await env.control.deposit(first.id, { amount: "0.00001" })
      await reconcile(container)
      expect(await ledgerRow(container, { checkout_id: checkoutId })).toMatchObject({ shift_id: first.id, status: "refund" })
      // Completing the cart meanwhile leaves the session open: Medusa would mark it in error, and the next pick could place no order.
      await shop.complete(cart.id).catch(() => undefined)
      expect(await sessionStatus(container, session.id)).toBe("pending")

      const again = await env.control.payCheckout(checkoutId, "BTC", "bitcoin")
      await env.control.deposit(again.id)
      await env.control.walk(again.id, ["processing", "settling", "settled"])
      await reconcile(container)
      await reconcile(container)
      const order = await orderWithPayments(container, cart.id)
      expect(order?.payments.map((payment: any) => payment.captures.length)).toEqual([1])
    })

    it("keeps a checkout's payment open when the coin its payer picked expires, and places the order when they pick again and pay", async () => {
      const { container, cart, session, checkoutId } = await checkoutWithFirstCoin()
      const emitted = jest.spyOn(container.resolve(Modules.EVENT_BUS), "emit")
      // The pick's quote runs out with nothing sent; the checkout's page is still open.
      await env.control.advanceClock(QUOTE_LIFETIME_PLUS)
      await reconcile(container)
      await reconcile(container)
      const row = await ledgerRow(container, { checkout_id: checkoutId })
      expect(row).toMatchObject({ status: "expired", canceled_at: null })
      expect(await sessionStatus(container, session.id)).toBe("pending")
      // Nobody is told the payment expired: its page still takes one, and the store's page says to pick again.
      const told = emittedMessages(emitted).filter((message) => message.data?.id === row.id)
      expect(told.map((message: any) => message.name)).not.toContain("crypto-swap.shift.expired")
      const page = async () => (await api.get(`/store/crypto-swap/payment-sessions/${session.id}?cart_id=${cart.id}`, shop.headers)).data.payment
      expect((await page()).next_step).toMatch(/Open the payment page to choose a coin/)
      // Completing the cart meanwhile is answered as a payment still to make: Medusa's authorization would cancel the session.
      const completion = await shop.complete(cart.id)
      expect(completion).toMatchObject({ type: "cart", error: { message: expect.stringMatching(/Open the payment page to choose a coin/) } })
      expect(await sessionStatus(container, session.id)).toBe("pending")
      // Nor does Medusa's own authorization, whichever route asks for it (a store placing orders before payment, a busy page).
      await expect(container.resolve(Modules.PAYMENT).authorizePaymentSession(session.id, {})).rejects.toThrow(/Open the payment page to choose a coin/)
      expect(await sessionStatus(container, session.id)).toBe("pending")

      // The payer picks a coin again on the open page and pays it: the store's page sees it at once, without a
      // tick; the order is placed and captured, once.
      const again = await env.control.payCheckout(checkoutId, "BTC", "bitcoin")
      await env.control.deposit(again.id)
      // Past the page's few seconds of freshness, as a shopper coming back finds it.
      await ledgerOf(container).updateSwapShifts({ id: row.id, last_synced_at: new Date(Date.now() - 60_000) })
      expect(await page()).toMatchObject({ stage: "deposit_detected" })
      await env.control.walk(again.id, ["processing", "settling", "settled"])
      await reconcile(container)
      await reconcile(container)
      expect(await ledgerRow(container, { checkout_id: checkoutId })).toMatchObject({ shift_id: again.id, status: "settled", captured_at: expect.anything() })
      const order = await orderWithPayments(container, cart.id)
      expect(order?.payments.map((payment: any) => payment.captures.length)).toEqual([1])
    })

    it("keeps reading a checkout whose only shift expired unpaid hours ago, and sees the shift its payer picks and pays then", async () => {
      const { container, checkoutId, first } = await checkoutWithFirstCoin()
      const testApp = configureReconciliation(container, PROVIDERS.checkout, {})
      const shipped = configureReconciliation(container, PROVIDERS.checkout, shippedReconcileDefaults())
      try {
        await env.control.advanceClock(QUOTE_LIFETIME_PLUS)
        // Expired two hours ago, past the hour a late deposit is watched for.
        const expired = { ...env.sandbox.getShift(first.id), expiresAt: new Date(Date.now() - 2 * 60 * 60 * 1000).toISOString() }
        await env.control.addFault({ method: "GET", path: `/v2/shifts/${first.id}`, status: 200, body: JSON.stringify(expired) })
        await madeAgo(container, checkoutId, 3 * 60 * 60 * 1000)
        await reconcile(container)
        const row = await ledgerRow(container, { checkout_id: checkoutId })
        expect(row).toMatchObject({ shift_id: first.id, status: "expired" })
        expect(row.next_sync_at).not.toBeNull()
        await env.control.clearFaults()

        // The payer, back on the open page, picks a coin again and pays: the money is seen and listed, not lost.
        const again = await env.control.payCheckout(checkoutId, "BTC", "bitcoin")
        await env.control.deposit(again.id)
        await env.control.walk(again.id, ["processing", "settling", "settled"])
        await madeAgo(container, checkoutId, 3 * 60 * 60 * 1000)
        await reconcile(container)
        expect(await ledgerRow(container, { checkout_id: checkoutId })).toMatchObject({ shift_id: again.id, status: "settled" })
      } finally {
        configureReconciliation(container, PROVIDERS.checkout, testApp)
      }
    })

    it("keeps the shift that placed the order when the payer pays another one too, and flags that one for the merchant", async () => {
      const { container, cart, session, checkoutId, first } = await checkoutWithFirstCoin()

      // The payer opened ETH too, then sent money to both addresses: BTC first, which places the order.
      const second = await openSecondAndPayFirst(container, checkoutId, first.id)

      await env.control.deposit(second.id)
      await env.control.walk(second.id, ["processing", "settling", "settled"])
      await env.control.walk(first.id, ["settling", "settled"])
      await reconcile(container)

      const row = await ledgerRow(container, { checkout_id: checkoutId })
      expect(row).toMatchObject({ shift_id: first.id, status: "settled", canceled_at: null, flags: { other_paid_shifts: [second.id] } })
      expect(row.captured_at).not.toBeNull()
      expect(row.events.filter((event: any) => event.detail?.shift_switched)).toHaveLength(0)
      const order = await orderWithPayments(container, cart.id)
      expect(order?.payments.map((payment: any) => payment.captures.length)).toEqual([1])
      const page = await pageOf(session.id, cart.id)
      expect({ status: page.status, payment: page.data.payment }).toMatchObject({ status: 200, payment: { stage: "settled", deposit: { coin: "BTC" } } })
    })
  },
})
