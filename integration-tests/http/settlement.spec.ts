import { medusaIntegrationTestRunner } from "@medusajs/test-utils"
import { ContainerRegistrationKeys, Modules } from "@medusajs/framework/utils"
import { processPaymentWorkflow } from "@medusajs/core-flows"
import type { MedusaContainer } from "@medusajs/framework/types"
import { useSandbox } from "../helpers/sandbox"
import { createStoreFixture, PROVIDERS, type StoreFixture } from "../helpers/store-fixtures"
import { failing, storefront } from "../helpers/storefront"
import { adminHeaders } from "../helpers/admin"
import { ledgerOf, ledgerRow, LOST_CONNECTION, orderWithPayments, reconcile } from "../helpers/ledger"
import { waitFor } from "../helpers/wait-for"
import { configureReconciliation, shippedReconcileDefaults } from "../helpers/reconcile-options"
import { webhookUrl } from "../../src/lib/webhook-token"

jest.setTimeout(180_000)

const env = useSandbox()
const BTC = { deposit_coin: "BTC", deposit_network: "bitcoin" }
const BTC_REFUND = "bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq"
const ETH_REFUND = "0x52908400098527886E0F7030069857D2E4169EE7"

function captureCount(order: Awaited<ReturnType<typeof orderWithPayments>>) {
  return (order?.payments ?? []).reduce((count: number, payment: any) => count + payment.captures.length, 0)
}

async function reservedQuantity(container: MedusaContainer, inventoryItemId: string) {
  const levels = await container.resolve(Modules.INVENTORY).listInventoryLevels({ inventory_item_id: inventoryItemId })
  return levels.reduce((sum, level) => sum + Number(level.reserved_quantity), 0)
}

medusaIntegrationTestRunner({
  testSuite: ({ api, getContainer }) => {
    let store: StoreFixture
    let shop: ReturnType<typeof storefront>

    beforeEach(async () => {
      store = await createStoreFixture(getContainer(), { stock: 10 })
      shop = storefront(api, store)
    })

    async function paySession(providerId = PROVIDERS.default, data: Record<string, unknown> = BTC) {
      const cart = await shop.createCart()
      const { session } = await shop.createPaymentSession(cart.id, providerId, data)
      return { cart, session, shiftId: session.data.shift_id as string }
    }

    /** All that settled on the shift is owed back, and no payment of the cart's (canceled) order is captured or open. */
    async function expectOwedBackUnpaid(container: MedusaContainer, cartId: string, shiftId: string) {
      const row = await ledgerRow(container, { shift_id: shiftId })
      const payments = (await orderWithPayments(container, cartId))!.payments
      expect({
        ledger: { refund_owed: row.refund_owed, captured_at: row.captured_at },
        capturedOrOpen: payments.filter((payment: any) => payment.captured_at || !payment.canceled_at).length,
      }).toEqual({ ledger: { refund_owed: env.sandbox.getShift(shiftId).settleAmount, captured_at: null }, capturedOrOpen: 0 })
    }

    it("turns a paid cart into an order and captures it, from the job alone, after the shopper left", async () => {
      const container = getContainer()
      const { cart, session, shiftId } = await paySession()
      await reconcile(container)
      const recorded = await ledgerRow(container, { shift_id: shiftId })
      expect(recorded).toMatchObject({ payment_session_id: session.id, cart_id: cart.id, status: "waiting", amount_due: "49.99" })

      await env.control.deposit(shiftId)
      await env.control.setStatus(shiftId, "processing")
      await reconcile(container)
      const placed = await orderWithPayments(container, cart.id)
      expect(placed?.payments).toHaveLength(1)
      expect(placed?.payments[0].captured_at).toBeNull()

      await env.control.walk(shiftId, ["settling", "settled"])
      await reconcile(container)
      await reconcile(container)
      const captured = await orderWithPayments(container, cart.id)
      expect(captureCount(captured)).toBe(1)
      expect(Number(captured!.payments[0].captures[0].amount)).toBe(49.99)

      const row = await ledgerRow(container, { shift_id: shiftId })
      // Over, but read once more within an hour of its expiry, for a deposit sent to it again (sent back).
      expect(row).toMatchObject({ status: "settled", terminal: true, order_id: captured!.id, next_sync_at: expect.any(Date) })
      expect(row.authorized_at).not.toBeNull()
      expect(row.captured_at).not.toBeNull()
      expect(row.settle_hash).toEqual(expect.any(String))
      expect(row.events.filter((e: any) => !e.action).map((e: any) => [e.from_status, e.to_status, e.source])).toEqual([
        [null, "waiting", "create"],
        ["waiting", "processing", "poll"],
        ["processing", "settled", "poll"],
      ])
      expect(row.events.filter((e: any) => e.action).map((e: any) => e.action)).toEqual(["authorized", "captured"])
    })

    it("reads a fresh waiting shift as often as one in flight, so a shopper who paid and left has the order at the job's next tick", async () => {
      const container = getContainer()
      // The cadence a store gets when it sets none (the test app reads every open shift at every tick).
      const testApp = configureReconciliation(container, PROVIDERS.default, {})
      const shipped = configureReconciliation(container, PROVIDERS.default, shippedReconcileDefaults())
      try {
        const { cart, shiftId } = await paySession()
        // The job's first look: the shift waits for a deposit; the shopper closes the page.
        await reconcile(container)
        const waiting = await ledgerRow(container, { shift_id: shiftId })
        expect(waiting.status).toBe("waiting")
        // Shoppers pay in the minutes after they see the address: the next read is as soon as for money in flight.
        const nextReadAt = new Date(waiting.next_sync_at!).getTime()
        // Counted from when the tick wrote the row (its read went out a moment before).
        const nextReadIn = nextReadAt - new Date(waiting.updated_at).getTime()
        expect(nextReadIn).toBeLessThanOrEqual(shipped.inFlightSeconds * 1000)

        await env.control.deposit(shiftId)
        await env.control.walk(shiftId, ["processing", "settling", "settled"])
        // The job's next tick, once the shift is due: the order is placed and captured.
        await new Promise((resolve) => setTimeout(resolve, Math.max(0, nextReadAt - Date.now())))
        await reconcile(container)
        expect(captureCount(await orderWithPayments(container, cart.id))).toBe(1)
      } finally {
        configureReconciliation(container, PROVIDERS.default, testApp)
      }
    })

    it("books the capture on an order placed before payment whose shift is first read settled, so the order shows it paid", async () => {
      const container = getContainer()
      const { cart, shiftId } = await paySession(PROVIDERS.beforePayment)
      expect((await shop.complete(cart.id)).type).toBe("order")
      await env.control.deposit(shiftId)
      await env.control.walk(shiftId, ["processing", "settling", "settled"])
      await reconcile(container)
      await reconcile(container)
      expect(await ledgerRow(container, { shift_id: shiftId })).toMatchObject({ captured_at: expect.any(Date) })
      const order = (await orderWithPayments(container, cart.id))!
      const [capture] = order.payments.flatMap((payment: any) => payment.captures)
      expect({
        transactions: order.transactions.map((transaction: any) => ({ reference: transaction.reference, reference_id: transaction.reference_id, amount: Number(transaction.amount) })),
        pending: Number(order.summary.pending_difference),
      }).toEqual({ transactions: [{ reference: "capture", reference_id: capture.id, amount: Number(capture.amount) }], pending: 0 })
    })

    it("books that capture too when the order is canceled before the capture action books it, so its refund nets it out", async () => {
      const container = getContainer()
      const { cart, shiftId } = await paySession(PROVIDERS.beforePayment)
      const placed = await shop.complete(cart.id)
      await env.control.deposit(shiftId)
      await env.control.walk(shiftId, ["processing", "settling", "settled"])
      // Medusa captures inside the authorization; the merchant cancels the order before the capture action runs.
      const payments = container.resolve(Modules.PAYMENT)
      const authorize = payments.authorizePaymentSession.bind(payments)
      jest.spyOn(payments, "authorizePaymentSession").mockImplementationOnce(async (...args) => {
        const authorized = await authorize(...args)
        await api.post(`/admin/orders/${placed.order.id}/cancel`, {}, await adminHeaders(container))
        return authorized
      })
      await reconcile(container)
      await reconcile(container)
      const order = (await orderWithPayments(container, cart.id))!
      const booked = order.transactions.map((transaction: any) => ({ reference: transaction.reference, amount: Number(transaction.amount) }))
      expect({ status: order.status, booked: booked.sort((a: any, b: any) => a.amount - b.amount) }).toEqual({
        status: "canceled",
        booked: [{ reference: "refund", amount: -49.99 }, { reference: "capture", amount: 49.99 }],
      })
    })

    it("cancels an expired unpaid session and the order placed before payment, releasing its stock", async () => {
      const container = getContainer()
      const { cart, shiftId } = await paySession(PROVIDERS.beforePayment)
      const placed = await shop.complete(cart.id)
      expect(placed.type).toBe("order")
      expect(await reservedQuantity(container, store.inventoryItemId!)).toBe(1)

      await reconcile(container)
      await env.control.advanceClock(16 * 60)
      await reconcile(container)

      const row = await ledgerRow(container, { shift_id: shiftId })
      expect(row).toMatchObject({ status: "expired", terminal: true, order_id: placed.order.id })
      expect(row.canceled_at).not.toBeNull()
      expect(row.order_canceled_at).not.toBeNull()
      const order = await orderWithPayments(container, cart.id)
      expect(order?.status).toBe("canceled")
      expect(await reservedQuantity(container, store.inventoryItemId!)).toBe(0)
      const query = container.resolve(ContainerRegistrationKeys.QUERY)
      const {
        data: [session],
      } = await query.graph({ entity: "payment_session", fields: ["status"], filters: { id: row.payment_session_id } })
      expect(session.status).toBe("canceled")
      // No new quote pays a canceled order: the shopper is told to order again.
      const { data } = await api.get(`/store/crypto-swap/payment-sessions/${row.payment_session_id}?cart_id=${cart.id}`, shop.headers)
      expect(data.payment).toMatchObject({ headline: "This payment request has expired", next_step: expect.stringContaining("place a new order") })
    })

    it("stops the payment of an order placed before payment that is canceled before any deposit", async () => {
      const container = getContainer()
      const { cart, session, shiftId } = await paySession(PROVIDERS.beforePayment)
      const placed = await shop.complete(cart.id)
      expect(placed.type).toBe("order")
      await reconcile(container)
      // Past the service's first minutes, when it refuses a cancel; the quote has not expired.
      await env.control.advanceClock(6 * 60)

      await api.post(`/admin/orders/${placed.order.id}/cancel`, {}, await adminHeaders(container))
      const row = await waitFor("the order's cancel to reach its payment", () => ledgerRow(container, { shift_id: shiftId }), (found) => Boolean(found.order_canceled_at))
      expect(row.order_id).toBe(placed.order.id)
      // Nobody can pay it any more: the shift is canceled at the service, and the page says so.
      // Expired 9 minutes before its quote's end: the service canceled it.
      await waitFor("the shift to be canceled at the service", async () => env.sandbox.getShift(shiftId), (shift) => shift.status === "expired")
      await reconcile(container)
      expect(await ledgerRow(container, { shift_id: shiftId })).toMatchObject({ status: "expired", terminal: true })
      const { data } = await api.get(`/store/crypto-swap/payment-sessions/${session.id}?cart_id=${cart.id}`, shop.headers)
      expect(data.payment).toMatchObject({ headline: "Order canceled", next_step: "This order was canceled: do not send anything for it." })
    })

    it.each(["settled", "processing"])(
      "owes back a deposit that lands after its order, placed before payment, was canceled (first read: %s): no payment of the canceled order holds it",
      async (firstRead) => {
        const container = getContainer()
        const { cart, session, shiftId } = await paySession(PROVIDERS.beforePayment)
        const placed = await shop.complete(cart.id)
        expect(placed.type).toBe("order")
        await reconcile(container)
        // Canceled in the shift's first minutes, when the service refuses to cancel it: the deposit the shopper
        // already sent lands anyway.
        await api.post(`/admin/orders/${placed.order.id}/cancel`, {}, await adminHeaders(container))
        const canceled = await waitFor("the order's cancel to reach its payment", () => ledgerRow(container, { shift_id: shiftId }), (found) => Boolean(found.order_canceled_at))
        await env.control.deposit(shiftId)
        const path = ["processing", "settling", "settled"]
        for (const until of [firstRead, "settled"]) {
          await env.control.walk(shiftId, path.slice(path.indexOf(env.sandbox.getShift(shiftId).status) + 1, path.indexOf(until) + 1))
          // The failed cancel backed the shift's reads off: read now, as the job does once that passes.
          await ledgerOf(container).updateSwapShifts({ id: canceled.id, next_sync_at: new Date() })
          await reconcile(container)
          // The shopper's page says it comes back, on its way or settled, and never that the order is paid.
          const { data } = await api.get(`/store/crypto-swap/payment-sessions/${session.id}?cart_id=${cart.id}`, shop.headers)
          expect(data.payment).toMatchObject({ headline: "Refund pending", given_back: true })
        }

        await expectOwedBackUnpaid(container, cart.id, shiftId)
      }
    )

    it("records the cancel of an order placed before payment whose expiry stopped before writing it, when the expiry runs again", async () => {
      const container = getContainer()
      const { cart, shiftId } = await paySession(PROVIDERS.beforePayment)
      const placed = await shop.complete(cart.id)
      expect(placed.type).toBe("order")
      await reconcile(container)
      const { id: rowId } = await ledgerRow(container, { shift_id: shiftId })
      await env.control.advanceClock(16 * 60)
      // The expiry cancels the order, and the process stops before the ledger records it.
      const ledger = ledgerOf(container)
      const update = ledger.updateSwapShifts.bind(ledger)
      const lost = jest.spyOn(ledger, "updateSwapShifts").mockImplementation(((data: { id?: string }, ...rest: unknown[]) =>
        data?.id === rowId && "order_canceled_at" in data ? Promise.reject(new Error(LOST_CONNECTION)) : (update as Function)(data, ...rest)) as never)
      try {
        await reconcile(container)
      } finally {
        lost.mockRestore()
      }
      const { data: [order] } = await container.resolve(ContainerRegistrationKeys.QUERY).graph({ entity: "order", fields: ["status"], filters: { id: placed.order.id } })
      expect(order.status).toBe("canceled")
      expect((await ledgerRow(container, { id: rowId })).order_canceled_at).toBeNull()

      // Run again, it finds the order canceled already and records it: a deposit after it is owed back, not lost.
      await ledger.updateSwapShifts({ id: rowId, next_sync_at: new Date() })
      await reconcile(container)
      expect(await ledgerRow(container, { id: rowId })).toMatchObject({ order_canceled_at: expect.any(Date), canceled_at: expect.any(Date), order_id: placed.order.id })
    })

    it("refunds via shift the deposit of a canceled order whose payment failed to authorize", async () => {
      const container = getContainer()
      const { cart, shiftId } = await paySession(PROVIDERS.beforePayment)
      const placed = await shop.complete(cart.id)
      expect(placed.type).toBe("order")
      await env.control.deposit(shiftId)
      await env.control.setStatus(shiftId, "processing")
      // Medusa fails as the deposit is seen: the payment is recorded paid with no order holding it.
      const payments = container.resolve(Modules.PAYMENT)
      const failure = jest.spyOn(payments, "authorizePaymentSession").mockRejectedValue(new Error("database unavailable"))
      try {
        await reconcile(container)
      } finally {
        failure.mockRestore()
      }
      const failed = await ledgerRow(container, { shift_id: shiftId })
      expect(failed.paid_no_order_since).not.toBeNull()

      const admin = await adminHeaders(container)
      await api.post(`/admin/orders/${placed.order.id}/cancel`, {}, admin)
      await waitFor("the order's cancel to reach its payment", () => ledgerRow(container, { shift_id: shiftId }), (found) => Boolean(found.order_canceled_at))
      await env.control.walk(shiftId, ["settling", "settled"])
      await ledgerOf(container).updateSwapShifts({ id: failed.id, next_sync_at: new Date() })
      await reconcile(container)
      const owed = await ledgerRow(container, { shift_id: shiftId })
      expect({ refund_owed: owed.refund_owed, paid_no_order_since: owed.paid_no_order_since }).toEqual({
        refund_owed: env.sandbox.getShift(shiftId).settleAmount,
        paid_no_order_since: null,
      })
      // Nothing will place its order any more: the failed authorize no longer waits to be retried, nor for an admin.
      const [authorize] = await ledgerOf(container).listSwapShiftActions({ swap_shift_id: owed.id, kind: "authorize" })
      expect(authorize).toMatchObject({ state: "done", outcome: "refund_owed", next_attempt_at: null })

      const refunded = await api.post(`/admin/crypto-swap/shifts/${owed.id}/refund`, { address: BTC_REFUND }, admin)
      expect(refunded.status).toBe(200)
      const [refund] = await ledgerOf(container).listSwapShifts({ kind: "refund", refund_of_shift_id: shiftId })
      expect(refund).toMatchObject({ amount_due: owed.refund_owed, refund_address: BTC_REFUND })
    })

    /**
     * An order placed before payment, canceled; then a payment page left open starts another payment on its cart,
     * whose deposit settles before any read.
     */
    async function paidAfterOrderCanceled() {
      const container = getContainer()
      const { cart } = await paySession(PROVIDERS.beforePayment)
      const placed = await shop.complete(cart.id)
      expect(placed.type).toBe("order")
      await api.post(`/admin/orders/${placed.order.id}/cancel`, {}, await adminHeaders(container))
      await waitFor("the order's cancel to be recorded", () => orderWithPayments(container, cart.id), (order) => order?.status === "canceled")
      const { session } = await shop.createPaymentSession(cart.id, PROVIDERS.beforePayment, { deposit_coin: "ETH", deposit_network: "ethereum" })
      const shiftId = session.data.shift_id as string
      await env.control.deposit(shiftId)
      await env.control.walk(shiftId, ["processing", "settling", "settled"])
      return { container, cart, session, shiftId }
    }

    /** The service's notification of it reaching Medusa's own payment webhook route (a replay, or a webhook registered there). */
    const medusaRouteCaptures = (container: MedusaContainer, sessionId: string) =>
      processPaymentWorkflow(container).run({ input: { action: "captured", data: { session_id: sessionId, amount: 0 } }, throwOnError: false })

    it("owes back a deposit to a payment started after its order, placed before payment, was canceled", async () => {
      const { container, cart, session, shiftId } = await paidAfterOrderCanceled()
      await reconcile(container)
      await reconcile(container)

      await expectOwedBackUnpaid(container, cart.id, shiftId)
      // Nor can Medusa's own payment webhook route capture it afterwards.
      await medusaRouteCaptures(container, session.id)
      await expectOwedBackUnpaid(container, cart.id, shiftId)
    })

    it("refuses to refund via shift money owed back that Medusa's own payment webhook route captured since: Medusa's payment is refunded instead", async () => {
      const { container, cart, session, shiftId } = await paidAfterOrderCanceled()
      await reconcile(container)
      await reconcile(container)
      const row = await ledgerRow(container, { shift_id: shiftId })
      expect(row.refund_owed).toBe(env.sandbox.getShift(shiftId).settleAmount)
      // The route read the session's data before the capture marked it given back: it captures anyway.
      const payments = container.resolve(Modules.PAYMENT)
      const [stored] = await payments.listPaymentSessions({ id: session.id })
      await payments.updatePaymentSession({ id: stored.id, amount: stored.amount, currency_code: stored.currency_code, data: { ...stored.data, given_back: false } })
      await medusaRouteCaptures(container, session.id)
      expect((await orderWithPayments(container, cart.id))!.payments.filter((payment: any) => payment.captured_at)).toHaveLength(1)

      const refused = await failing(api.post(`/admin/crypto-swap/shifts/${row.id}/refund`, { address: ETH_REFUND }, await adminHeaders(container)))
      expect({ status: refused.status, message: refused.data.message }).toEqual({ status: 400, message: expect.stringMatching(/Medusa captured/) })
      expect(await ledgerOf(container).listSwapShifts({ kind: "refund", refund_of_shift_id: shiftId })).toEqual([])
    })

    it("refunds a payment Medusa's own payment webhook route captured for an order canceled before the payment started", async () => {
      const { container, cart, session } = await paidAfterOrderCanceled()
      // The notification reaches Medusa's own route before the job reads the shift: Medusa captures.
      await medusaRouteCaptures(container, session.id)
      const [captured] = (await orderWithPayments(container, cart.id))!.payments.filter((payment: any) => payment.captured_at)
      expect(captured).toBeDefined()
      await reconcile(container)

      const { data: refunds } = await container
        .resolve(ContainerRegistrationKeys.QUERY)
        .graph({ entity: "refund", fields: ["amount"], filters: { payment_id: captured.id } })
      expect(refunds.map((refund: any) => String(refund.amount))).toEqual([String(captured.amount)])
    })

    it("cancels the shift the shopper switched away from once the service allows it, without touching the order the new one paid for", async () => {
      const container = getContainer()
      const cart = await shop.createCart()
      const { session: first } = await shop.createPaymentSession(cart.id, PROVIDERS.default, BTC)
      await reconcile(container)
      // The shopper picks another coin: Medusa deletes the first session (its shift is too young to cancel).
      const { session: second } = await shop.createPaymentSession(cart.id, PROVIDERS.default, { deposit_coin: "ETH", deposit_network: "ethereum" })
      const secondShift = second.data.shift_id as string
      await env.control.deposit(secondShift)
      await env.control.walk(secondShift, ["processing", "settling", "settled"])
      await reconcile(container)
      await reconcile(container)
      expect(captureCount(await orderWithPayments(container, cart.id))).toBe(1)

      // Too young to cancel when Medusa deleted its session; cancelled by reconciliation from 5 minutes on.
      await env.control.advanceClock(6 * 60)
      // Only the sandbox's clock moved: make the shift's next read due now.
      await ledgerOf(container).updateSwapShifts({ id: (await ledgerRow(container, { shift_id: first.data.shift_id })).id, next_sync_at: new Date() })
      await reconcile(container)
      await reconcile(container)
      const upstream = await (await fetch(`${env.sandbox.baseUrl}/v2/shifts/${first.data.shift_id}`)).json()
      expect(upstream.status).toBe("expired")
      const abandoned = await ledgerRow(container, { shift_id: first.data.shift_id })
      expect(abandoned).toMatchObject({ status: "expired", terminal: true, order_canceled_at: null })
      const order = await orderWithPayments(container, cart.id)
      expect(order?.status).not.toBe("canceled")
      expect(captureCount(order)).toBe(1)
      expect(order?.payments.map((payment: any) => payment.canceled_at)).toEqual([null])
    })

    it("refuses a cart change while a deposit no sync has seen yet is on its way, so the shopper is not asked to pay again", async () => {
      const container = getContainer()
      const cart = await shop.createCart()
      const { session } = await shop.createPaymentSession(cart.id, PROVIDERS.default, BTC)
      await env.control.deposit(session.data.shift_id as string)

      const refused = await failing(api.post(`/store/carts/${cart.id}/line-items/${cart.items[0].id}`, { quantity: 2 }, shop.headers))
      const { data } = await api.get(`/store/carts/${cart.id}?fields=items.quantity,payment_collection.payment_sessions.id`, shop.headers)
      // Medusa turns the provider's refusal into its own answer (core-flows' validate-deleted-payment-sessions).
      expect({
        refused: { status: refused.status, message: refused.data.message },
        quantity: data.cart.items[0].quantity,
        sessions: data.cart.payment_collection.payment_sessions.map((kept: { id: string }) => kept.id),
      }).toEqual({ refused: { status: 500, message: "Could not delete all payment sessions" }, quantity: 1, sessions: [session.id] })

      // The deposit places the order as usual.
      await env.control.walk(session.data.shift_id as string, ["processing", "settling", "settled"])
      await reconcile(container)
      expect(captureCount(await orderWithPayments(container, cart.id))).toBe(1)
    })

    it("flags money paid into the shift of a replaced session instead of authorizing a session that is gone", async () => {
      const container = getContainer()
      const cart = await shop.createCart()
      const { session: first } = await shop.createPaymentSession(cart.id, PROVIDERS.default, BTC)
      await reconcile(container)
      await shop.createPaymentSession(cart.id, PROVIDERS.default, { deposit_coin: "ETH", deposit_network: "ethereum" })
      // The shopper pays the old address anyway, before the shift could be cancelled.
      const oldShift = first.data.shift_id as string
      await env.control.deposit(oldShift)
      await env.control.walk(oldShift, ["processing", "settling", "settled"])
      const row = await ledgerRow(container, { shift_id: oldShift })
      await ledgerOf(container).updateSwapShifts({ id: row.id, next_sync_at: new Date() })
      await reconcile(container)
      await reconcile(container)

      const flagged = await ledgerRow(container, { shift_id: oldShift })
      expect(flagged).toMatchObject({ status: "settled", authorized_at: null, captured_at: null, last_error: null })
      expect(flagged.flags).toMatchObject({ paid_without_session: "settled" })
      expect(await orderWithPayments(container, cart.id)).toBeUndefined()
      // No order page shows it: the settings page's status does, for the merchant to pay back.
      const { data: status } = await api.get("/admin/crypto-swap/status", await adminHeaders(container))
      expect(status.paid_without_session).toEqual([
        expect.objectContaining({ id: flagged.id, status: "settled", deposit_coin: "BTC", cart_id: cart.id }),
      ])
    })

    it("flags review, asks for a refund address, passes on the one it learns, and fails a refunded payment", async () => {
      const container = getContainer()
      const { cart, shiftId } = await paySession()
      await reconcile(container)
      await env.control.deposit(shiftId)
      await env.control.setStatus(shiftId, "review", "amount over max")
      await reconcile(container)
      expect((await ledgerRow(container, { shift_id: shiftId })).flags).toMatchObject({ review: "amount over max" })

      await env.control.setStatus(shiftId, "refund", "refund required")
      await reconcile(container)
      const asking = await ledgerRow(container, { shift_id: shiftId })
      expect(asking.flags).toMatchObject({ address_needed: true })
      expect(asking.flags?.review).toBeNull()

      // The shopper gives an address (the store route of the surfaces issue does this); the ledger passes it on.
      await ledgerOf(container).updateSwapShifts({ id: asking.id, refund_address: BTC_REFUND })
      await reconcile(container)
      const shift = await (await fetch(`${env.sandbox.baseUrl}/v2/shifts/${shiftId}`)).json()
      expect(shift.refundAddress).toBe(BTC_REFUND)

      await env.control.walk(shiftId, ["refunding", "refunded"])
      await reconcile(container)
      const refunded = await ledgerRow(container, { shift_id: shiftId })
      expect(refunded).toMatchObject({ status: "refunded", terminal: true, authorized_at: null, captured_at: null })
      expect(refunded.flags).toMatchObject({ refunded: true })
      expect(refunded.flags?.address_needed).toBeNull()
      expect(await orderWithPayments(container, cart.id)).toBeUndefined()
    })

    it("copies a payment's status into its session again after a copy that failed, so a cart whose deposit went back can change", async () => {
      const container = getContainer()
      const { cart, session, shiftId } = await paySession(PROVIDERS.default, { ...BTC, refund_address: BTC_REFUND })
      await env.control.deposit(shiftId)
      await reconcile(container)
      const payments = container.resolve(Modules.PAYMENT)
      const sessionData = async () => (await payments.listPaymentSessions({ id: session.id }))[0].data
      expect((await sessionData()).status).toBe("pending")

      // The service sends the deposit back; the copy of that into the session is lost (a dropped connection, a crash).
      await env.control.setStatus(shiftId, "refund", "refund required")
      await env.control.walk(shiftId, ["refunding", "refunded"])
      const update = payments.updatePaymentSession.bind(payments)
      const lost = jest.spyOn(payments, "updatePaymentSession").mockImplementation(async (data) => {
        if (data.data?.status === "refunded") throw new Error(LOST_CONNECTION)
        return update(data)
      })
      await reconcile(container)
      expect(await ledgerRow(container, { shift_id: shiftId })).toMatchObject({ status: "refunded", last_error: expect.stringContaining(LOST_CONNECTION) })
      expect((await sessionData()).status).toBe("pending")

      lost.mockRestore()
      await reconcile(container)
      expect((await sessionData()).status).toBe("refunded")
      expect(await ledgerRow(container, { shift_id: shiftId })).toMatchObject({ status: "refunded", last_error: null, sync_failures: 0 })
      // The money went back: the cart is the shopper's again, for a new payment.
      const { session: next } = await shop.createPaymentSession(cart.id, PROVIDERS.default, BTC)
      expect(next.id).not.toBe(session.id)
    })

    it("decides a shift with several deposits from deposits[]: the first valid one pays, the extra is refunded", async () => {
      const container = getContainer()
      const { cart, shiftId } = await paySession(PROVIDERS.default, { ...BTC, refund_address: BTC_REFUND })
      await reconcile(container)
      await env.control.deposit(shiftId)
      await env.control.deposit(shiftId, { amount: "0.001" })
      const shift = await (await fetch(`${env.sandbox.baseUrl}/v2/shifts/${shiftId}`)).json()
      expect(shift.status).toBe("multiple")
      expect(shift.deposits.map((d: any) => d.status)).toEqual(["pending", "refund"])

      await env.control.walk(shiftId, ["processing", "settling", "settled"])
      await reconcile(container)
      const row = await ledgerRow(container, { shift_id: shiftId })
      expect(row.status).toBe("multiple")
      expect(row.deposits).toHaveLength(2)
      expect(row.captured_at).not.toBeNull()
      const order = await orderWithPayments(container, cart.id)
      expect(captureCount(order)).toBe(1)
      expect(Number(order!.payments[0].captures[0].amount)).toBe(49.99)

      // The extra deposit goes back while the shift's own status stays "multiple": the ledger follows it to the end.
      await env.control.setDepositStatus(shiftId, 1, "refunding")
      await env.control.setDepositStatus(shiftId, 1, "refunded")
      await reconcile(container)
      await reconcile(container)
      const over = await ledgerRow(container, { shift_id: shiftId })
      expect((over.deposits as unknown as Array<{ status: string }>).map((deposit) => deposit.status)).toEqual(["settled", "refunded"])
      expect(over).toMatchObject({ status: "multiple", terminal: true })
    })

    it("asks a shopper who paid a captured fixed shift again for a refund address: it is watched until an hour after it expires", async () => {
      const container = getContainer()
      const { cart, session, shiftId } = await paySession()
      await env.control.deposit(shiftId)
      await env.control.walk(shiftId, ["processing", "settling", "settled"])
      await reconcile(container)
      await reconcile(container)
      const captured = await ledgerRow(container, { shift_id: shiftId })
      expect(captured.captured_at).not.toBeNull()
      // Over at the service, but its address still takes (and sends back) a deposit sent to it again.
      const expiresAt = new Date(captured.expires_at!).getTime()
      expect(captured.next_sync_at).not.toBeNull()
      expect(new Date(captured.next_sync_at!).getTime()).toBeLessThanOrEqual(expiresAt + 60 * 60 * 1000)

      // The shopper's wallet sends the same amount again: the service holds it for a refund address nobody gave.
      await env.control.deposit(shiftId)
      expect(env.sandbox.getShift(shiftId)!.deposits!.map((deposit) => [deposit.status, deposit.issue])).toEqual([["settled", undefined], ["refund", "max 1 deposit"]])
      // Its next read comes due (the tick after next_sync_at).
      await ledgerOf(container).updateSwapShifts({ id: captured.id, next_sync_at: new Date() })
      await reconcile(container)
      const asking = await ledgerRow(container, { shift_id: shiftId })
      expect(asking.flags).toMatchObject({ address_needed: true })
      const { data } = await api.get(`/store/crypto-swap/payment-sessions/${session.id}?cart_id=${cart.id}`, shop.headers)
      expect(data.payment.refund.address_needed).toBe(true)
      // The merchant sees it too, should the shopper never come back (an e-mail lost, no notification provider).
      const admin = await adminHeaders(container)
      const listed = async () => (await api.get("/admin/crypto-swap/payments?attention=deposit_address_needed", admin)).data.payments.map((line: any) => line.shift_id)
      expect(await listed()).toEqual([shiftId])

      // The shopper gives one on the payment page: the service has it, and sends the money back.
      await api.post(`/store/crypto-swap/payment-sessions/${session.id}/refund-address`, { cart_id: cart.id, address: BTC_REFUND }, shop.headers)
      await reconcile(container)
      expect(env.sandbox.getShift(shiftId)!.refundAddress).toBe(BTC_REFUND)
      expect(await listed()).toEqual([])
      expect((await orderWithPayments(container, cart.id))!.payments).toHaveLength(1)
    })

    it("cancels an authorized payment whose deposit the service refunded, and flags the order", async () => {
      const container = getContainer()
      const { cart, shiftId } = await paySession()
      await env.control.deposit(shiftId)
      await env.control.setStatus(shiftId, "processing")
      await reconcile(container)
      const placed = await orderWithPayments(container, cart.id)
      expect(placed!.payments[0].captured_at).toBeNull()

      await env.control.setStatus(shiftId, "refund", "refund required")
      await reconcile(container)
      // The order waits on money going back to the shopper: the merchant sees it before shipping, with the order.
      const admin = await adminHeaders(container)
      const listed = async () => (await api.get("/admin/crypto-swap/payments?attention=order_unpaid", admin)).data.payments.map((line: any) => [line.shift_id, line.order_id])
      expect(await listed()).toEqual([[shiftId, placed!.id]])
      await fetch(`${env.sandbox.baseUrl}/v2/shifts/${shiftId}/set-refund-address`, {
        method: "POST",
        headers: { "content-type": "application/json", "x-service-secret": env.sandbox.account.secret },
        body: JSON.stringify({ address: BTC_REFUND }),
      })
      await env.control.walk(shiftId, ["refunding", "refunded"])
      await reconcile(container)

      const row = await ledgerRow(container, { shift_id: shiftId })
      expect(row).toMatchObject({ status: "refunded", captured_at: null })
      expect(row.canceled_at).not.toBeNull()
      const order = await orderWithPayments(container, cart.id)
      expect(order!.payments[0].canceled_at).not.toBeNull()
      expect(captureCount(order)).toBe(0)
      const query = container.resolve(ContainerRegistrationKeys.QUERY)
      const {
        data: [flagged],
      } = await query.graph({ entity: "order", fields: ["metadata"], filters: { id: order!.id } })
      expect(flagged.metadata).toMatchObject({ crypto_swap_flag: "refunded" })
      // Listed until the merchant cancels the order.
      expect(await listed()).toEqual([[shiftId, placed!.id]])
      await api.post(`/admin/orders/${order!.id}/cancel`, {}, admin)
      await waitFor("the order's cancel to reach the ledger", () => ledgerRow(container, { shift_id: shiftId }), (found) => Boolean(found.order_canceled_at))
      expect(await listed()).toEqual([])
    })

    describe("webhooks", () => {
      async function checkoutPaid() {
        const container = getContainer()
        const cart = await shop.createCart()
        const { session } = await shop.createPaymentSession(cart.id, PROVIDERS.checkout, BTC)
        await reconcile(container)
        const shift = await env.control.payCheckout(session.data.checkout_id, "ETH", "ethereum")
        return { cart, session, shiftId: shift.id as string, checkoutId: session.data.checkout_id as string }
      }

      function webhookPath(providerId: string) {
        const options = { privateKey: env.sandbox.account.secret, accountId: env.sandbox.account.id }
        return new URL(webhookUrl("http://store.test", { providerId, options })).pathname
      }

      function notification(shiftId: string, checkoutId: string, overrides: Record<string, unknown> = {}) {
        return {
          meta: {
            hook: {
              id: "hook",
              createdAt: "",
              updatedAt: "",
              enabled: true,
              accountId: env.sandbox.account.id,
              targetUrl: "x",
              ...overrides,
            },
          },
          payload: { shiftId, checkoutId, status: "success", txid: "0xfeed" },
        }
      }

      it("captures at once when the service notifies the registered URL, and ignores forgeries", async () => {
        const container = getContainer()
        const admin = await adminHeaders(container)
        const backendUrl = api.defaults.baseURL as string
        const registered = await api.post("/admin/crypto-swap/webhooks", { provider_id: PROVIDERS.checkout, backend_url: backendUrl }, admin)
        expect(registered.status).toBe(201)
        const hookId = registered.data.webhook.hook_id

        const { cart, shiftId, checkoutId } = await checkoutPaid()
        const url = webhookPath(PROVIDERS.checkout)

        // Forgeries first: a wrong token, a hook this store never registered, a "success" for an unpaid shift.
        expect((await failing(api.post("/hooks/crypto-swap/not-the-token", notification(shiftId, checkoutId, { id: hookId })))).status).toBe(404)
        expect((await api.post(url, notification(shiftId, checkoutId, { id: "someone-elses-hook" }))).status).toBe(200)
        expect((await api.post(url, notification(shiftId, checkoutId, { id: hookId }))).status).toBe(200)
        await reconcile(container)
        expect(await orderWithPayments(container, cart.id)).toBeUndefined()
        expect((await ledgerRow(container, { checkout_id: checkoutId })).captured_at).toBeNull()

        // The real thing: the sandbox notifies the registered URL itself when the checkout's shift settles.
        await env.control.deposit(shiftId)
        await env.control.walk(shiftId, ["processing", "settling", "settled"])
        const row = await waitFor(
          "the sandbox's own notification to capture the checkout's payment",
          () => ledgerRow(container, { checkout_id: checkoutId }),
          (row) => Boolean(row.captured_at)
        )
        expect(row.events.some((event: any) => event.source === "webhook")).toBe(true)
        expect(captureCount(await orderWithPayments(container, cart.id))).toBe(1)
      })

      it("captures exactly once when the same notification arrives 20 times while the job runs", async () => {
        const container = getContainer()
        const { cart, shiftId, checkoutId } = await checkoutPaid()
        await env.control.deposit(shiftId)
        await env.control.walk(shiftId, ["processing", "settling", "settled"])
        const url = webhookPath(PROVIDERS.checkout)
        await Promise.all([
          ...Array.from({ length: 20 }, () => api.post(url, notification(shiftId, checkoutId))),
          reconcile(container),
          reconcile(container),
        ])
        await waitFor(
          "the 20 notifications' subscribers to capture the payment",
          () => ledgerRow(container, { checkout_id: checkoutId }),
          (row) => Boolean(row.captured_at)
        )
        await reconcile(container)
        expect(captureCount(await orderWithPayments(container, cart.id))).toBe(1)
        const row = await ledgerRow(container, { checkout_id: checkoutId })
        expect(row.events.filter((event: any) => event.action === "captured")).toHaveLength(1)
      })
    })
  },
})
