import { medusaIntegrationTestRunner } from "@medusajs/test-utils"
import {
  beginOrderEditOrderWorkflow,
  confirmOrderEditRequestWorkflow,
  createLocationFulfillmentSetWorkflow,
  createServiceZonesWorkflow,
  createShippingOptionsWorkflow,
  createShippingProfilesWorkflow,
  orderEditAddNewItemWorkflow,
  requestOrderEditRequestWorkflow,
} from "@medusajs/core-flows"
import { ContainerRegistrationKeys, Modules } from "@medusajs/framework/utils"
import type { MedusaContainer } from "@medusajs/framework/types"
import { useSandbox } from "../helpers/sandbox"
import { createStoreFixture, PROVIDERS, type StoreFixture } from "../helpers/store-fixtures"
import { failing, storefront } from "../helpers/storefront"
import { adminHeaders } from "../helpers/admin"
import { waitFor } from "../helpers/wait-for"
import { emittedMessages, emittedNamed, unheardByThePlugin } from "../helpers/events"
import { configureReconciliation } from "../helpers/reconcile-options"
import { providerRegistry } from "../../src/lib/provider-registry"
import { ledgerOf, ledgerRow, LOST_CONNECTION, orderWithPayments, paidOrder, placedOnConfirmedDeposit, reconcile, syncLosingActionRecords, syncWhileOrderCancelMarked } from "../helpers/ledger"
import BigNumber from "bignumber.js"
import findUnheardOrderCancels from "../../src/jobs/find-unheard-order-cancels"
import { syncShiftWorkflow } from "../../src/workflows/sync-shift"
import findUnheardOrderCancelsAtUpgrade from "../../src/migration-scripts/crypto-swap-find-unheard-order-cancels"

jest.setTimeout(240_000)

const env = useSandbox()
const BTC_REFUND = "bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq"
const BTC = { deposit_coin: "BTC", deposit_network: "bitcoin", refund_address: BTC_REFUND }

/** Medusa's own record of a payment's refunds: the source of truth the ledger follows. */
async function medusaRefunds(container: MedusaContainer, paymentId: string) {
  const { data } = await container
    .resolve(ContainerRegistrationKeys.QUERY)
    .graph({ entity: "refund", fields: ["id", "amount", "payment_id"], filters: { payment_id: paymentId } })
  return data as Array<{ id: string; amount: unknown; payment_id: string }>
}

/** What Medusa refunded of a payment in all, as a decimal string. */
async function refundedTotal(container: MedusaContainer, paymentId: string) {
  return (await medusaRefunds(container, paymentId)).reduce((sum, entry) => sum.plus(String(entry.amount)), new BigNumber(0)).toFixed()
}

async function refundRows(container: MedusaContainer, paymentId: string) {
  return ledgerOf(container).listSwapShifts({ kind: "refund", payment_id: paymentId }, { order: { created_at: "ASC" } })
}

/** A shipping option of Medusa's manual fulfillment provider at `locationId`, so an order can be fulfilled and returned. */
async function manualShippingOption(container: MedusaContainer, locationId: string): Promise<string> {
  const provider_id = "manual_manual"
  await container.resolve(ContainerRegistrationKeys.LINK).create({
    [Modules.STOCK_LOCATION]: { stock_location_id: locationId },
    [Modules.FULFILLMENT]: { fulfillment_provider_id: provider_id },
  })
  const {
    result: [profile],
  } = await createShippingProfilesWorkflow(container).run({ input: { data: [{ name: `Returns ${locationId}`, type: "default" }] } })
  await createLocationFulfillmentSetWorkflow(container).run({
    input: { location_id: locationId, fulfillment_set_data: { name: `Shipping ${locationId}`, type: "shipping" } },
  })
  const {
    data: [
      {
        fulfillment_sets: [set],
      },
    ],
  } = await container.resolve(ContainerRegistrationKeys.QUERY).graph({ entity: "stock_location", fields: ["fulfillment_sets.id"], filters: { id: locationId } })
  const {
    result: [zone],
  } = await createServiceZonesWorkflow(container).run({
    input: { data: [{ name: "Everywhere", fulfillment_set_id: set.id, geo_zones: [{ type: "country", country_code: "us" }] }] },
  })
  const {
    result: [option],
  } = await createShippingOptionsWorkflow(container).run({
    input: [
      {
        name: "Manual",
        service_zone_id: zone.id,
        shipping_profile_id: profile.id,
        provider_id,
        price_type: "flat",
        type: { label: "Manual", description: "Manual", code: "manual" },
        prices: [{ currency_code: "usd", amount: 0 }],
        rules: [],
      },
    ],
  })
  return option.id
}

medusaIntegrationTestRunner({
  testSuite: ({ api, getContainer }) => {
    let store: StoreFixture
    let shop: ReturnType<typeof storefront>
    let admin: { headers: Record<string, string> }

    beforeEach(async () => {
      store = await createStoreFixture(getContainer(), { stock: 5 })
      shop = storefront(api, store)
      admin = await adminHeaders(getContainer())
    })

    async function settledOrder() {
      const container = getContainer()
      const cart = await shop.createCart()
      const { session } = await shop.createPaymentSession(cart.id, PROVIDERS.default, BTC)
      const shiftId = session.data.shift_id as string
      await env.control.deposit(shiftId)
      await env.control.walk(shiftId, ["processing", "settling", "settled"])
      await reconcile(container)
      const order = (await orderWithPayments(container, cart.id))!
      return { cart, shiftId, order, payment: order.payments[0] }
    }

    /**
     * An order paid in USDC on algorand, which the service settles at a variable rate only (no fixed quote can
     * pay the shopper in it), refunded 20 by the admin: its refund's ledger row once a tick made its shift.
     */
    async function variableRefund(refundAddress: string) {
      const container = getContainer()
      const paid = await paidOrder(container, shop, env.control, PROVIDERS.default, { deposit_coin: "USDC", deposit_network: "algorand", refund_address: refundAddress })
      await api.post(`/admin/payments/${paid.payments[0].id}/refund`, { amount: 20 }, admin)
      await reconcile(container)
      const [row] = await refundRows(container, paid.payments[0].id)
      return { ...paid, row }
    }

    /**
     * The refund shift's deadline passed `agoMs` ago, as the service reports it on the next read (its clock, not
     * the store's). By default a minute: a deposit already on its way may still reach it for the hour after.
     */
    function passDeadline(shiftId: string, agoMs = 60_000) {
      const shift = env.sandbox.getShift(shiftId)!
      env.sandbox.addFault({
        method: "GET",
        path: `/v2/shifts/${shiftId}`,
        status: 200,
        body: JSON.stringify({ ...shift, expiresAt: new Date(Date.now() - agoMs).toISOString() }),
        times: 1,
      })
    }
    /** Past the hour after its deadline in which a late deposit may still reach a refund shift. */
    const LATE_HOUR_PASSED_MS = 61 * 60_000

    /** A settled order refunded 20 by the admin, with the refund's ledger row once a tick made its shift. */
    async function refundedOrder() {
      const paid = await settledOrder()
      await api.post(`/admin/payments/${paid.payment.id}/refund`, { amount: 20 }, admin)
      await reconcile(getContainer())
      const [refund] = await refundRows(getContainer(), paid.payment.id)
      return { ...paid, refund }
    }

    it("makes one refund shift for an order canceled after capture, keyed on Medusa's refund, within one tick and without an event", async () => {
      const container = getContainer()
      const { order, payment } = await settledOrder()
      const emitted = jest.spyOn(container.resolve(Modules.EVENT_BUS), "emit")
      await api.post(`/admin/orders/${order.id}/cancel`, {}, admin)
      const [medusaRefund] = await medusaRefunds(container, payment.id)
      expect(medusaRefund).toBeDefined()
      expect(emittedMessages(emitted).map((message) => message.name)).not.toContain("payment.refunded")

      await reconcile(container)
      await reconcile(container)
      const rows = await refundRows(container, payment.id)
      expect(rows).toHaveLength(1)
      expect(rows[0]).toMatchObject({ refund_id: medusaRefund.id, amount_due: "49.99", settle_coin: "BTC", settle_address: BTC_REFUND, status: "waiting" })
      expect(rows[0].shift_id).toEqual(expect.any(String))
      // Pending until the service settles it, whatever Medusa's payment section says: what to send, where.
      const { data } = await api.get(`/admin/crypto-swap/orders/${order.id}`, admin)
      const pending = data.shifts.find((shift: any) => shift.id === rows[0].id)
      expect(pending.view.headline).toBe(`Refund pending: send exactly ${rows[0].deposit_amount} USDC on ethereum`)
      expect(pending.view.deposit).toMatchObject({ amount: rows[0].deposit_amount, min: null, max: null })
      expect(pending.view.deposit.address).toBe(rows[0].deposit_address)
      expect((await ledgerRow(container, { id: rows[0].id })).events.map((event) => [event.from_status, event.to_status])).toEqual([
        [null, "creating"],
        ["creating", "waiting"],
      ])
    })

    /** Cancels the order while the job captures its settled payment: Medusa's cancel read it uncaptured, then cancels it. */
    async function cancelDuringCapture(container: MedusaContainer, orderId: string) {
      const payments = container.resolve(Modules.PAYMENT)
      const cancel = payments.cancelPayment.bind(payments)
      const race = jest.spyOn(payments, "cancelPayment").mockImplementationOnce(async (...args: Parameters<typeof cancel>) => {
        await reconcile(container)
        return cancel(...args)
      })
      try {
        await api.post(`/admin/orders/${orderId}/cancel`, {}, admin)
      } finally {
        race.mockRestore()
      }
    }

    it("owes back, visibly, a deposit whose payment Medusa canceled when the order was edited before the capture", async () => {
      const container = getContainer()
      const { shiftId, order: placed } = await placedOnConfirmedDeposit(container, shop, env.control, PROVIDERS.default, BTC)
      // Adding an item to an order whose payment is authorized: Medusa cancels that payment and asks for the new total.
      await beginOrderEditOrderWorkflow(container).run({ input: { order_id: placed.id } })
      await orderEditAddNewItemWorkflow(container).run({ input: { order_id: placed.id, items: [{ variant_id: store.variantId, quantity: 1 }] } })
      await requestOrderEditRequestWorkflow(container).run({ input: { order_id: placed.id } })
      await confirmOrderEditRequestWorkflow(container).run({ input: { order_id: placed.id, confirmed_by: "admin" } })

      await env.control.walk(shiftId, ["settling", "settled"])
      await reconcile(container)
      const row = await ledgerRow(container, { shift_id: shiftId })
      expect(row).toMatchObject({ refund_owed: "49.99", captured_at: null })
      const { data: status } = await api.get("/admin/crypto-swap/status", admin)
      expect(status.refund_owed).toEqual([expect.objectContaining({ id: row.id, order_id: placed.id, refund_owed: "49.99" })])
      // The order still open asks for a new payment of its whole new total: the crypto one is given back, never counted twice.
      const order = (await orderWithPayments(container, row.cart_id!))!
      expect({ status: order.status, captured: order.payments.filter((payment: any) => payment.captured_at) }).toEqual({ status: "pending", captured: [] })
    })

    it("links a crypto payment of what an edited order still owes to that order: the admin finds it, and an unheard cancel refunds it", async () => {
      const container = getContainer()
      const { order: placed } = await settledOrder()
      // An item added once the order is paid: Medusa asks for the difference with a collection of the order's own, no cart's.
      await beginOrderEditOrderWorkflow(container).run({ input: { order_id: placed.id } })
      await orderEditAddNewItemWorkflow(container).run({ input: { order_id: placed.id, items: [{ variant_id: store.variantId, quantity: 1 }] } })
      await requestOrderEditRequestWorkflow(container).run({ input: { order_id: placed.id } })
      await confirmOrderEditRequestWorkflow(container).run({ input: { order_id: placed.id, confirmed_by: "admin" } })
      const query = container.resolve(ContainerRegistrationKeys.QUERY)
      const {
        data: [edited],
      } = await query.graph({ entity: "order", fields: ["payment_collections.id", "payment_collections.status"], filters: { id: placed.id } })
      const outstanding = edited.payment_collections.find((collection: any) => collection.status === "not_paid")
      const { data } = await api.post(`/store/payment-collections/${outstanding.id}/payment-sessions`, { provider_id: PROVIDERS.default, data: BTC }, shop.headers)
      const shiftId = data.payment_collection.payment_sessions.find((session: any) => session.provider_id === PROVIDERS.default).data.shift_id
      await env.control.deposit(shiftId)
      await env.control.walk(shiftId, ["processing", "settling", "settled"])
      await reconcile(container)

      const row = await ledgerRow(container, { shift_id: shiftId })
      expect(row).toMatchObject({ order_id: placed.id, cart_id: null, captured_at: expect.anything() })
      const { data: shown } = await api.get(`/admin/crypto-swap/orders/${placed.id}`, admin)
      expect(shown.shifts.map((shift: any) => shift.id)).toContain(row.id)

      // Canceled without the plugin hearing of it: the hourly job finds the payment by its order.
      await unheardByThePlugin(container, () => api.post(`/admin/orders/${placed.id}/cancel`, {}, admin))
      await findUnheardOrderCancels(container)
      expect(await ledgerRow(container, { shift_id: shiftId })).toMatchObject({ order_canceled_at: expect.anything() })
      // What the cancel refunded of it becomes its refund shift, on the order's page with it.
      await reconcile(container)
      const refunds = await refundRows(container, row.payment_id!)
      expect(refunds.map((refund) => ({ order_id: refund.order_id, amount_due: refund.amount_due }))).toEqual([{ order_id: placed.id, amount_due: "49.99" }])
      const { data: after } = await api.get(`/admin/crypto-swap/orders/${placed.id}`, admin)
      expect(after.shifts.map((shift: any) => shift.id)).toEqual(expect.arrayContaining([row.id, refunds[0].id]))
    })

    it("refunds an order canceled while the plugin captured its payment, between Medusa's read of it and its cancel", async () => {
      const container = getContainer()
      const { cart, shiftId, order: placed } = await placedOnConfirmedDeposit(container, shop, env.control, PROVIDERS.default, BTC)
      await env.control.walk(shiftId, ["settling", "settled"])
      await cancelDuringCapture(container, placed.id)
      const [payment] = (await orderWithPayments(container, cart.id))!.payments
      expect(payment.captured_at).toBeTruthy()
      await waitFor("the captured money of the canceled order to be refunded", () => medusaRefunds(container, payment.id), (found) => found.length > 0)
      expect(await refundedTotal(container, payment.id)).toBe("49.99")
      await reconcile(container)
      expect((await refundRows(container, payment.id)).map((row) => row.amount_due)).toEqual(["49.99"])
    })

    it("retries the refund of money a capture racing the cancel kept when the first try fails, visibly until it is done", async () => {
      const container = getContainer()
      const { cart, shiftId, order: placed } = await placedOnConfirmedDeposit(container, shop, env.control, PROVIDERS.default, BTC)
      await env.control.walk(shiftId, ["settling", "settled"])
      // The refund the cancel's subscriber asks of Medusa fails once (a lock timeout, a dropped connection).
      const refund = jest.spyOn(container.resolve(Modules.PAYMENT), "refundPayment").mockRejectedValueOnce(new Error("connection terminated unexpectedly"))
      try {
        await cancelDuringCapture(container, placed.id)
        const row = await ledgerRow(container, { shift_id: shiftId })
        // The failure waits on the payment's row, where the merchant sees it, to be tried again.
        const [failed] = await waitFor(
          "the failed refund to be recorded on the payment's row",
          () => ledgerOf(container).listSwapShiftActions({ swap_shift_id: row.id, kind: "refund_canceled_capture" }),
          (found) => found.length > 0 && found[0].attempts > 0
        )
        // Medusa's refund step only logs the error; the plugin reads back what is still kept.
        expect(failed).toMatchObject({ state: "pending", last_error: expect.stringContaining(`Money captured on canceled order ${placed.id} could not be refunded`) })
        const [payment] = (await orderWithPayments(container, cart.id))!.payments
        expect(await medusaRefunds(container, payment.id)).toEqual([])

        await reconcile(container)
        expect(await refundedTotal(container, payment.id)).toBe("49.99")
        const [done] = await ledgerOf(container).listSwapShiftActions({ swap_shift_id: row.id, kind: "refund_canceled_capture" })
        expect(done).toMatchObject({ state: "done", last_error: null })
        await reconcile(container)
        expect((await refundRows(container, payment.id)).map((entry) => entry.amount_due)).toEqual(["49.99"])
      } finally {
        refund.mockRestore()
      }
    })

    it("captures the rest of a settled payment an admin captured part of by hand, rather than retrying a capture of the whole", async () => {
      const container = getContainer()
      const { shiftId, order: placed } = await placedOnConfirmedDeposit(container, shop, env.control, PROVIDERS.default, BTC)
      await env.control.walk(shiftId, ["settling", "settled"])
      const [payment] = placed.payments
      expect((await api.post(`/admin/payments/${payment.id}/capture`, { amount: 20 }, admin)).status).toBe(200)
      await reconcile(container)

      const row = await ledgerRow(container, { shift_id: shiftId })
      expect(row).toMatchObject({ captured_at: expect.any(Date), refund_owed: null })
      const [capture] = await ledgerOf(container).listSwapShiftActions({ swap_shift_id: row.id, kind: "capture" })
      expect(capture).toMatchObject({ state: "done" })
      const [captured] = await container.resolve(Modules.PAYMENT).listPayments({ id: payment.id }, { relations: ["captures"] })
      expect(captured.captured_at).not.toBeNull()
      expect(captured.captures!.reduce((sum, entry) => sum.plus(String(entry.amount)), new BigNumber(0)).toFixed()).toBe(new BigNumber(String(payment.amount)).toFixed())
      expect(await refundRows(container, payment.id)).toHaveLength(0)
    })

    it("captures nothing more of a payment whose captures by hand cover it, when a crash lost Medusa's record that it was captured in full", async () => {
      const container = getContainer()
      const { shiftId, order: placed } = await placedOnConfirmedDeposit(container, shop, env.control, PROVIDERS.default, BTC)
      await env.control.walk(shiftId, ["settling", "settled"])
      const [payment] = placed.payments
      expect((await api.post(`/admin/payments/${payment.id}/capture`, {}, admin)).status).toBe(200)
      // Medusa writes the capture, then in a separate write that the payment is captured in full: that one was lost.
      await container.resolve(ContainerRegistrationKeys.PG_CONNECTION)("payment").where({ id: payment.id }).update({ captured_at: null })
      await reconcile(container)

      const row = await ledgerRow(container, { shift_id: shiftId })
      expect(row.captured_at).toEqual(expect.any(Date))
      const [capture] = await ledgerOf(container).listSwapShiftActions({ swap_shift_id: row.id, kind: "capture" })
      expect(capture).toMatchObject({ state: "done" })
      const [captured] = await container.resolve(Modules.PAYMENT).listPayments({ id: payment.id }, { relations: ["captures"] })
      expect(captured.captures!.map((entry) => new BigNumber(String(entry.amount)).toFixed())).toEqual([new BigNumber(String(payment.amount)).toFixed()])
    })

    it("gives back everything that settled, once, when an admin captured part of the payment by hand before its order was canceled", async () => {
      const container = getContainer()
      const { cart, shiftId, order: placed } = await placedOnConfirmedDeposit(container, shop, env.control, PROVIDERS.default, BTC)
      await env.control.walk(shiftId, ["settling", "settled"])
      // Before the job's capture, an admin captures part of it; then the order is canceled, and Medusa refunds that part.
      const [payment] = placed.payments
      expect((await api.post(`/admin/payments/${payment.id}/capture`, { amount: 20 }, admin)).status).toBe(200)
      await api.post(`/admin/orders/${placed.id}/cancel`, {}, admin)
      expect(await refundedTotal(container, payment.id)).toBe("20")
      await reconcile(container)
      await reconcile(container)

      // The rest is captured and refunded as the cancel would have: all of it goes back through refund shifts priced
      // like any Medusa refund, none of it twice, and nothing is left owed or waiting for an admin.
      const row = await ledgerRow(container, { shift_id: shiftId })
      expect(row).toMatchObject({ refund_owed: null, captured_at: expect.any(Date) })
      const [capture] = await ledgerOf(container).listSwapShiftActions({ swap_shift_id: row.id, kind: "capture" })
      expect(capture).toMatchObject({ state: "done" })
      expect(await refundedTotal(container, payment.id)).toBe(new BigNumber(String(payment.amount)).toFixed())
      const refunds = await refundRows(container, payment.id)
      expect(refunds).toHaveLength(2)
      expect(refunds.reduce((sum, refund) => sum.plus(refund.amount_due!), new BigNumber(0)).toFixed()).toBe(row.settle_amount)
      // The canceled order's books say the same: all of it captured, all of it refunded.
      const booked = await container.resolve(Modules.ORDER).listOrderTransactions({ order_id: placed.id })
      expect(booked.reduce((sum, entry) => sum.plus(String(entry.amount)), new BigNumber(0)).toFixed()).toBe("0")
      const refused = await failing(api.post(`/admin/crypto-swap/shifts/${row.id}/refund`, { address: BTC_REFUND }, admin))
      expect(refused).toMatchObject({ status: 400, data: { message: expect.stringContaining("Medusa captured") } })
      await reconcile(container)
      expect(await refundRows(container, payment.id)).toHaveLength(2)
      expect(await refundedTotal(container, payment.id)).toBe(new BigNumber(String(payment.amount)).toFixed())
    })

    /**
     * A capture racing the order's cancel keeps the money, and the cancel never reaches the plugin (the process
     * stopped before its subscriber ran, the subscriber failed, or the order was canceled before this release):
     * the local bus's listener is taken off for the cancel.
     */
    async function captureKeptByUnheardCancel(container: MedusaContainer) {
      const { cart, shiftId, order: placed } = await placedOnConfirmedDeposit(container, shop, env.control, PROVIDERS.default, BTC)
      await env.control.walk(shiftId, ["settling", "settled"])
      await unheardByThePlugin(container, () => cancelDuringCapture(container, placed.id))
      const [payment] = (await orderWithPayments(container, cart.id))!.payments
      const kept = await ledgerRow(container, { shift_id: shiftId })
      expect({ captured: Boolean(payment.captured_at), order_canceled_at: kept.order_canceled_at, refunds: await medusaRefunds(container, payment.id) }).toEqual({
        captured: true,
        order_canceled_at: null,
        refunds: [],
      })
      return { payment, kept }
    }

    it("refunds at an admin's Sync what a capture racing the cancel kept when the cancel never reached the plugin", async () => {
      const container = getContainer()
      const { payment, kept } = await captureKeptByUnheardCancel(container)

      const synced = await api.post(`/admin/crypto-swap/shifts/${kept.id}/sync`, {}, admin)
      expect(synced.status).toBe(200)
      expect(await refundedTotal(container, payment.id)).toBe("49.99")
      expect((await ledgerRow(container, { id: kept.id })).order_canceled_at).not.toBeNull()
      await api.post(`/admin/crypto-swap/shifts/${kept.id}/sync`, {}, admin)
      await reconcile(container)
      expect(await refundedTotal(container, payment.id)).toBe("49.99")
      expect((await refundRows(container, payment.id)).map((entry) => entry.amount_due)).toEqual(["49.99"])
    })

    it("refunds at an admin's Sync what a capture racing an unheard cancel kept while the service can't be read: Medusa's refund needs no read", async () => {
      const container = getContainer()
      const { payment, kept } = await captureKeptByUnheardCancel(container)
      for (const path of ["/v2/shifts/*", "/v2/shifts"]) {
        await env.control.addFault({ method: "GET", path, status: 503, body: JSON.stringify({ error: { message: "Service unavailable" } }) })
      }
      // A store's backoff (the test app's is 0 s), longer than the cadence of its open address: the failed read's retry is told apart.
      const testApp = configureReconciliation(container, PROVIDERS.default, {})
      const backoff = configureReconciliation(container, PROVIDERS.default, { inFlightSeconds: 600, maxBackoffSeconds: 3600, openAddressSeconds: 1 })
      try {
        const before = Date.now()
        await api.post(`/admin/crypto-swap/shifts/${kept.id}/sync`, {}, admin)
        expect((await ledgerRow(container, { id: kept.id })).sync_failures).toBeGreaterThan(0)
        expect(await refundedTotal(container, payment.id)).toBe("49.99")
        const [done] = await ledgerOf(container).listSwapShiftActions({ swap_shift_id: kept.id, kind: "refund_canceled_capture" })
        expect(done).toMatchObject({ state: "done", last_error: null })
        // The failed read is tried again at its backoff, whatever the refund did.
        const nextRead = (await ledgerRow(container, { id: kept.id })).next_sync_at
        expect(new Date(nextRead!).getTime()).toBeGreaterThanOrEqual(before + 2 * backoff.inFlightSeconds * 1000)
      } finally {
        configureReconciliation(container, PROVIDERS.default, testApp)
        await env.control.clearFaults()
      }
    })

    it("refunds an unheard cancel's kept money marked while a sync of the payment was under way, which planned without it", async () => {
      const container = getContainer()
      const { payment, kept } = await captureKeptByUnheardCancel(container)
      // The mark (the cancel's subscriber, the job looking for unheard cancels: neither takes the shift's lock)
      // lands as the sync records what it planned.
      await syncWhileOrderCancelMarked(container, kept.id)
      expect(await refundedTotal(container, payment.id)).toBe("0")
      await reconcile(container)
      expect(await refundedTotal(container, payment.id)).toBe("49.99")
    })

    it("refunds an unheard cancel's kept money when the sync that planned the refund stopped before scheduling it, its shift long over", async () => {
      const container = getContainer()
      const { payment, kept } = await captureKeptByUnheardCancel(container)
      // Expired hours ago: the shift itself gives no reason to read it again.
      const shift = { ...env.sandbox.getShift(kept.shift_id!), expiresAt: new Date(Date.now() - 2 * 60 * 60 * 1000).toISOString() }
      await env.control.addFault({ method: "GET", path: `/v2/shifts/${kept.shift_id}`, status: 200, body: JSON.stringify(shift) })
      await env.control.addFault({ method: "GET", path: "/v2/shifts", status: 200, body: JSON.stringify([shift]) })
      // The job marks the cancel; the sync it starts records what it planned, then loses its database before the
      // refund's own record is written (as a process killed there would).
      await ledgerOf(container).updateSwapShifts({ id: kept.id, order_canceled_at: new Date(), next_sync_at: new Date() })
      expect(await syncLosingActionRecords(container, kept.id)).toEqual([LOST_CONNECTION])
      expect(await refundedTotal(container, payment.id)).toBe("0")
      expect((await ledgerRow(container, { id: kept.id })).next_sync_at).not.toBeNull()

      // Still due: the job's next tick refunds it (the job looking for unheard cancels no longer sees a marked row).
      await reconcile(container)
      await env.control.clearFaults()
      expect(await refundedTotal(container, payment.id)).toBe("49.99")
    })

    it("finds within the hour, with nobody pressing Sync, what a capture racing an unheard cancel kept, and refunds it once; older payments once at the upgrade", async () => {
      const container = getContainer()
      const { payment, kept } = await captureKeptByUnheardCancel(container)
      await findUnheardOrderCancels(container)
      expect((await ledgerRow(container, { id: kept.id })).order_canceled_at).not.toBeNull()
      expect(await refundedTotal(container, payment.id)).toBe("49.99")
      await findUnheardOrderCancels(container)
      await reconcile(container)
      await reconcile(container)
      expect(await refundedTotal(container, payment.id)).toBe("49.99")
      expect((await refundRows(container, payment.id)).map((entry) => entry.amount_due)).toEqual(["49.99"])

      // Captured before the job's look-back (an order canceled before this release): the upgrade's migration script finds it.
      const older = await captureKeptByUnheardCancel(container)
      const longAgo = new Date(Date.now() - 30 * 24 * 60 * 60 * 1000)
      await ledgerOf(container).updateSwapShifts({ id: older.kept.id, captured_at: longAgo })
      await findUnheardOrderCancels(container)
      expect((await ledgerRow(container, { id: older.kept.id })).order_canceled_at).toBeNull()
      await findUnheardOrderCancelsAtUpgrade({ container })
      await reconcile(container)
      expect(await refundedTotal(container, older.payment.id)).toBe("49.99")
    })

    it("waits, uncounted, while the service rate-limits a refund's shift, rather than giving up on it", async () => {
      const container = getContainer()
      const paid = await settledOrder()
      // Busy (a flood of checkouts shares the store's allowance): every quote is refused for a while.
      await env.control.addFault({ method: "POST", path: "/v2/quotes", status: 429, headers: { "Retry-After": "60" }, body: JSON.stringify({ error: { message: "Rate limit exceeded" } }) })
      try {
        await api.post(`/admin/payments/${paid.payment.id}/refund`, { amount: 20 }, admin)
        for (let tick = 0; tick < 3; tick++) await reconcile(container)
        const [refund] = await refundRows(container, paid.payment.id)
        const [make] = await ledgerOf(container).listSwapShiftActions({ swap_shift_id: refund.id, kind: "create_refund_shift" })
        expect(make).toMatchObject({ state: "pending", attempts: 0, blocked_since: expect.any(Date), last_error: expect.stringMatching(/busy|rate/i) })
        // A limit that does not lift within the hour is the merchant's to see.
        await ledgerOf(container).updateSwapShiftActions({ id: make.id, blocked_since: new Date(Date.now() - 61 * 60_000), next_attempt_at: null })
        await ledgerOf(container).updateSwapShifts({ id: refund.id, next_sync_at: new Date() })
        await reconcile(container)
        const [listed] = await ledgerOf(container).listSwapShiftActions({ swap_shift_id: refund.id, kind: "create_refund_shift" })
        expect(listed).toMatchObject({ state: "attention", attempts: 0 })
      } finally {
        await env.control.clearFaults()
      }
    })

    it("makes one refund shift for a return's refund, keyed on Medusa's refund", async () => {
      const container = getContainer()
      const { order, payment } = await settledOrder()
      const query = container.resolve(ContainerRegistrationKeys.QUERY)
      const {
        data: [placed],
      } = await query.graph({ entity: "order", fields: ["items.id"], filters: { id: order.id } })
      const {
        data: [location],
      } = await query.graph({ entity: "stock_location", fields: ["id"], filters: { name: "Warehouse" } })
      const item = { id: placed.items[0].id, quantity: 1 }
      // Delivered, then sent back by the shopper: the admin records both as Medusa's dashboard does.
      const shipping_option_id = await manualShippingOption(container, location.id)
      await api.post(`/admin/orders/${order.id}/fulfillments`, { items: [item], location_id: location.id, shipping_option_id }, admin)
      const { data: requested } = await api.post("/admin/returns", { order_id: order.id, location_id: location.id }, admin)
      const returnId = requested.return.id
      await api.post(`/admin/returns/${returnId}/request-items`, { items: [item] }, admin)
      await api.post(`/admin/returns/${returnId}/request`, {}, admin)
      await api.post(`/admin/returns/${returnId}/receive`, {}, admin)
      await api.post(`/admin/returns/${returnId}/receive-items`, { items: [item] }, admin)
      await api.post(`/admin/returns/${returnId}/receive/confirm`, {}, admin)
      // The order now owes the shopper the item's price: the dashboard's "Refund" pays that difference.
      const { data: owed } = await api.get(`/admin/orders/${order.id}?fields=summary.*`, admin)
      const difference = -Number(owed.order.summary.pending_difference)
      expect(difference).toBeGreaterThan(0)
      await api.post(`/admin/payments/${payment.id}/refund`, { amount: difference }, admin)
      await reconcile(container)

      const [medusaRefund] = await medusaRefunds(container, payment.id)
      const rows = await refundRows(container, payment.id)
      expect(rows).toHaveLength(1)
      expect(rows[0]).toMatchObject({ refund_id: medusaRefund.id, amount_due: String(difference), status: "waiting", settle_address: BTC_REFUND })
      expect(env.sandbox.shifts().filter((shift) => shift.externalId === rows[0].id)).toHaveLength(1)
    })

    it("sends a refund shift's deposit the service turns back to the wallet its payment settled to, though the store settles elsewhere now", async () => {
      const container = getContainer()
      const { shiftId, payment } = await settledOrder()
      const paid = await ledgerRow(container, { shift_id: shiftId })
      // Since the payment, the store settles dollars as USDT on tron: an address the refund's USDC could not go back to.
      const provider = providerRegistry(container.resolve(ContainerRegistrationKeys.CONFIG_MODULE)).get(PROVIDERS.default)!
      const before = provider.options
      provider.options = { ...before, settlement: { ...before.settlement, usd: { coin: "USDT", network: "tron", address: "TJRyWwFs9wTFGZg3JbrVriFbNfCug5tDeC" } } }
      try {
        await api.post(`/admin/payments/${payment.id}/refund`, { amount: 20 }, admin)
        await reconcile(container)
      } finally {
        provider.options = before
      }
      const [refund] = await refundRows(container, payment.id)
      expect(refund).toMatchObject({ status: "waiting", deposit_coin: paid.settle_coin, deposit_network: paid.settle_network })
      expect(env.sandbox.getShift(refund.shift_id!).refundAddress).toBe(paid.settle_address)
    })

    /** A settled order whose shopper gave no refund address, refunded 20 by the admin: the refund waits for one. */
    async function refundWithoutAddress() {
      const container = getContainer()
      const cart = await shop.createCart()
      const { session } = await shop.createPaymentSession(cart.id, PROVIDERS.default, { deposit_coin: "BTC", deposit_network: "bitcoin" })
      await env.control.deposit(session.data.shift_id)
      await env.control.walk(session.data.shift_id, ["processing", "settling", "settled"])
      await reconcile(container)
      const { payments } = (await orderWithPayments(container, cart.id))!
      await api.post(`/admin/payments/${payments[0].id}/refund`, { amount: 20 }, admin)
      await reconcile(container)
      const [waiting] = await refundRows(container, payments[0].id)
      expect(waiting).toMatchObject({ status: "address_needed", shift_id: null })
      return { waiting, shiftId: session.data.shift_id as string }
    }

    it("waits for the shopper's address when none is known, then makes the refund shift, every step in its history", async () => {
      const container = getContainer()
      const { waiting } = await refundWithoutAddress()
      await api.post(`/admin/crypto-swap/shifts/${waiting.id}/refund-address`, { address: BTC_REFUND }, admin)
      const made = await ledgerRow(container, { id: waiting.id })
      expect(made).toMatchObject({ status: "waiting", refund_address: BTC_REFUND, settle_address: BTC_REFUND })
      expect(made.events.map((event) => [event.from_status, event.to_status])).toEqual([
        [null, "address_needed"],
        ["address_needed", "creating"],
        ["creating", "waiting"],
      ])
    })

    it("never lets a shopper give the address of another shopper's refund, from a hosted checkout whose payer has not picked a coin yet", async () => {
      const container = getContainer()
      const victim = await refundWithoutAddress()

      // The attacker's own session: no shift and no Medusa payment yet, so nothing of theirs waits for an address.
      const cart = await shop.createCart()
      const { session } = await shop.createPaymentSession(cart.id, PROVIDERS.checkout, { deposit_coin: "BTC", deposit_network: "bitcoin" })
      const attacker = "bc1qxy2kgdygjrsqtzq2n0yrf2493p83kkfjhx0wlh"
      const refused = await failing(api.post(`/store/crypto-swap/payment-sessions/${session.id}/refund-address`, { cart_id: cart.id, address: attacker }, shop.headers))
      expect(refused.status).toBe(400)

      expect(await ledgerRow(container, { id: victim.waiting.id })).toMatchObject({ status: "address_needed", refund_address: null, shift_id: null })
      expect((await ledgerRow(container, { shift_id: victim.shiftId })).refund_address).toBeNull()
    })

    it("records both of two refunds made at the same moment, each with its own refund shift", async () => {
      const container = getContainer()
      const { payment } = await settledOrder()
      // As Medusa's refund workflows do, each refund through the payment module, both handed the same payment data.
      // (Two admin refunds at once mostly collide on the order's change first: Medusa refuses one.)
      const paymentModule = container.resolve(Modules.PAYMENT)
      await Promise.all([10, 15].map((amount) => paymentModule.refundPayment({ payment_id: payment.id, amount })))
      await reconcile(container)
      const refunds = await medusaRefunds(container, payment.id)
      expect(refunds).toHaveLength(2)
      const rows = await refundRows(container, payment.id)
      expect(rows.map((row) => row.refund_id).sort()).toEqual(refunds.map((refund) => refund.id).sort())
      expect(rows.map((row) => row.amount_due).sort()).toEqual(["10", "15"])
      expect(rows.every((row) => row.shift_id)).toBe(true)
      expect(new Set(rows.map((row) => row.shift_id)).size).toBe(2)
    })

    it("reads a funded and settled refund shift as the shopper refunded, never as an underpaid payment", async () => {
      const container = getContainer()
      const { order, refund: row } = await refundedOrder()
      await env.control.deposit(row.shift_id!)
      await env.control.walk(row.shift_id!, ["processing", "settling", "settled"])
      await reconcile(container)

      const settled = await ledgerRow(container, { id: row.id })
      // Where the refund went stays the shopper's address, not the merchant's own fallback on the shift.
      expect(settled).toMatchObject({ status: "settled", terminal: true, refund_address: BTC_REFUND })
      expect(settled.flags?.underpaid ?? null).toBeNull()
      const { data } = await api.get(`/admin/crypto-swap/orders/${order.id}`, admin)
      const shown = data.shifts.find((shift: any) => shift.id === row.id)
      expect(shown.view).toMatchObject({ stage: "refunded", headline: "Refunded: the shopper was paid" })
    })

    it("keeps a refund open when the service sends the merchant's deposit back, and renews it: nothing reached the shopper", async () => {
      const container = getContainer()
      const { order, payment, refund: row } = await refundedOrder()
      // The merchant sends the wrong amount: the service returns it to the merchant's own address.
      await env.control.deposit(row.shift_id!, { amount: new BigNumber(row.deposit_amount!).minus("1").toFixed() })
      expect(env.sandbox.getShift(row.shift_id!)).toMatchObject({ status: "refund" })
      await env.control.walk(row.shift_id!, ["refunding", "refunded"])
      await reconcile(container)

      const returned = await ledgerRow(container, { id: row.id })
      expect(returned.status).toBe("refunded")
      expect(returned.flags?.refunded ?? null).toBeNull()
      const { data } = await api.get(`/admin/crypto-swap/orders/${order.id}`, admin)
      const view = data.shifts.find((shift: any) => shift.id === row.id).view
      expect(view.stage).not.toBe("refunded")
      expect(view.headline).toBe("Refund not sent: the service sent your deposit back")
      // Still among the refunds to reach the shopper (the shopper is told nothing: the ledger's stage is not "refunded").
      const { data: status } = await api.get("/admin/crypto-swap/status", admin)
      expect(status.refunds.filter((refund: any) => refund.id === row.id)).toEqual([expect.objectContaining({ status: "refunded", amount_due: "20" })])
      const { data: listed } = await api.get("/admin/crypto-swap/payments?attention=refund_sent_back", admin)
      expect(listed.payments.map((line: any) => line.id)).toEqual([row.id])

      // Until an hour after its deadline the shift may still receive a deposit of the right amount already on its
      // way: no second shift beside it yet.
      const early = await failing(api.post(`/admin/crypto-swap/shifts/${row.id}/renew-refund`, {}, admin))
      expect(early.status).toBe(400)
      expect(early.data.message).toContain("can still receive a deposit")
      // Nor can it be marked paid by other means before its deadline: a fixed shift can't be canceled once funded.
      const markedEarly = await failing(api.post(`/admin/crypto-swap/shifts/${row.id}/mark-refunded`, {}, admin))
      expect(markedEarly.status).toBe(400)
      expect(markedEarly.data.message).toContain("takes a deposit until")
      passDeadline(row.shift_id!)
      expect((await failing(api.post(`/admin/crypto-swap/shifts/${row.id}/renew-refund`, {}, admin))).data.message).toContain("can still receive a deposit")
      passDeadline(row.shift_id!, LATE_HOUR_PASSED_MS)
      const renewed = await api.post(`/admin/crypto-swap/shifts/${row.id}/renew-refund`, {}, admin)
      expect(renewed.data.shift).toMatchObject({ id: row.id, status: "waiting", refund_id: row.refund_id, terminal: false })
      expect(renewed.data.shift.shift_id).not.toBe(row.shift_id)
      expect(await refundRows(container, payment.id)).toHaveLength(1)
    })

    it("renews a refund whose two deposits the service both sent back (multiple): nothing reached the shopper", async () => {
      const container = getContainer()
      const { payment, refund: row } = await refundedOrder()
      // The merchant sends a wrong amount twice: each goes back to the merchant's own address.
      const wrong = new BigNumber(row.deposit_amount!).minus("1").toFixed()
      await env.control.deposit(row.shift_id!, { amount: wrong })
      await env.control.deposit(row.shift_id!, { amount: wrong })
      expect(env.sandbox.getShift(row.shift_id!)).toMatchObject({ status: "multiple" })
      for (const index of [0, 1]) {
        await env.control.setDepositStatus(row.shift_id!, index, "refunding")
        await env.control.setDepositStatus(row.shift_id!, index, "refunded")
      }
      await reconcile(container)

      const returned = await ledgerRow(container, { id: row.id })
      expect({ status: returned.status, refunded: returned.flags?.refunded ?? null, sent_back: returned.flags?.sent_back }).toEqual({
        status: "multiple",
        refunded: null,
        sent_back: "refunded",
      })
      const { data: listed } = await api.get("/admin/crypto-swap/payments?attention=refund_sent_back", admin)
      expect(listed.payments.map((line: any) => line.id)).toEqual([row.id])
      const { data: status } = await api.get("/admin/crypto-swap/status", admin)
      expect(status.refunds.filter((refund: any) => refund.id === row.id)).toEqual([expect.objectContaining({ status: "multiple", sent_back: "refunded" })])

      // An hour past the deadline the same refund gets a new shift, as one sent back in a single deposit does.
      passDeadline(row.shift_id!, LATE_HOUR_PASSED_MS)
      const renewed = await api.post(`/admin/crypto-swap/shifts/${row.id}/renew-refund`, {}, admin)
      expect(renewed.data.shift).toMatchObject({ id: row.id, status: "waiting", refund_id: row.refund_id, terminal: false })
      expect(renewed.data.shift.flags?.sent_back ?? null).toBeNull()
      expect(await refundRows(container, payment.id)).toHaveLength(1)
    })

    /**
     * A refund whose first try at its shift failed at `failing` (made at once by the refund's own sync), then two syncs
     * of it at once that retry it, as a server and a worker each holding "the" shift's lock in its own memory
     * (Medusa's in-memory locking), both past `slowed` before either asks for the shift.
     */
    async function refundSyncedTwiceUnlocked(paymentId: string, failing: { method: string; path: string }, slowed: { method: string; path: string }) {
      const container = getContainer()
      env.sandbox.addFault({ ...failing, status: 500, times: 50 })
      await api.post(`/admin/payments/${paymentId}/refund`, { amount: 20 }, admin)
      const [refund] = await waitFor("the refund's ledger row", () => refundRows(container, paymentId), (rows) => rows.length === 1)
      await waitFor(
        "the refund's first try at its shift to fail",
        () => ledgerOf(container).listSwapShiftActions({ swap_shift_id: refund.id, kind: "create_refund_shift" }),
        (actions) => actions[0]?.attempts >= 1
      )
      expect((await ledgerRow(container, { id: refund.id })).shift_id).toBeNull()
      await env.control.clearFaults()
      env.sandbox.addFault({ ...slowed, delayMs: 300, times: 2 })
      const locking = container.resolve(Modules.LOCKING)
      const spies = [
        jest.spyOn(locking, "acquire").mockResolvedValue(undefined as never),
        jest.spyOn(locking, "release").mockResolvedValue(true as never),
        jest.spyOn(locking, "execute").mockImplementation(async (_keys: unknown, job: () => Promise<unknown>) => job()),
      ]
      try {
        await Promise.all([0, 1].map(() => syncShiftWorkflow(container).run({ input: { ledger_id: refund.id, source: "admin", retry_actions: true } })))
      } finally {
        for (const spy of spies) spy.mockRestore()
      }
      // The merchant is shown one address to fund; a second would pay the shopper twice.
      const made = env.sandbox.shifts().filter((shift) => shift.externalId === refund.id)
      expect(made).toHaveLength(1)
      await reconcile(container)
      expect((await ledgerRow(container, { id: refund.id })).shift_id).toBe(made[0].id)
    }

    it("makes one refund shift when two processes whose locks don't see each other sync its refund at once", async () => {
      const { payment } = await settledOrder()
      // Both ask for a quote before either has recorded one.
      await refundSyncedTwiceUnlocked(payment.id, { method: "POST", path: "/v2/quotes" }, { method: "POST", path: "/v2/quotes" })
    })

    it("makes one variable-rate refund shift when two processes whose locks don't see each other sync its refund at once", async () => {
      const paid = await paidOrder(getContainer(), shop, env.control, PROVIDERS.default, { deposit_coin: "USDC", deposit_network: "algorand", refund_address: "H".repeat(58) })
      // Both read the pair for the estimate before either asks for the shift.
      await refundSyncedTwiceUnlocked(paid.payments[0].id, { method: "GET", path: "/v2/pair/*/*" }, { method: "GET", path: "/v2/pair/*/*" })
    })

    it("finds the refund shift the service made when its answer was lost, instead of making a second one", async () => {
      const container = getContainer()
      const { payment } = await settledOrder()
      // The service makes every refund shift asked for, and every answer is lost on the way back.
      for (const path of ["/v2/shifts/fixed", "/v2/shifts/variable"]) {
        env.sandbox.addFault({ method: "POST", path, afterHandling: true, reset: true, times: 20 })
      }
      await api.post(`/admin/payments/${payment.id}/refund`, { amount: 20 }, admin)
      await reconcile(container)
      const [cut] = await refundRows(container, payment.id)
      expect(cut).toMatchObject({ status: "creating", shift_id: null })
      const made = () => env.sandbox.shifts().filter((shift) => shift.externalId === cut.id)
      expect(made().length).toBeGreaterThan(0)

      await env.control.clearFaults()
      await reconcile(container)
      const [recovered] = await refundRows(container, payment.id)
      expect(made().map((shift) => shift.id)).toEqual([recovered.shift_id])
      expect(recovered.status).toBe("waiting")
    })

    it("asks an admin instead of making a second variable-rate refund shift when the service's answer to the first was lost", async () => {
      const container = getContainer()
      const emitted = jest.spyOn(container.resolve(Modules.EVENT_BUS), "emit")
      const paid = await paidOrder(container, shop, env.control, PROVIDERS.default, { deposit_coin: "USDC", deposit_network: "algorand", refund_address: "F".repeat(58) })
      // The service makes the refund shift, and its answer is lost on the way back. A variable shift has no quote
      // to find it again by, and each one pays the shopper whatever is sent to it for a week.
      env.sandbox.addFault({ method: "POST", path: "/v2/shifts/variable", afterHandling: true, reset: true, times: 1 })
      await api.post(`/admin/payments/${paid.payments[0].id}/refund`, { amount: 20 }, admin)
      await reconcile(container)
      const [cut] = await refundRows(container, paid.payments[0].id)
      const made = () => env.sandbox.shifts().filter((shift) => shift.externalId === cut.id)
      expect(made()).toHaveLength(1)
      expect(cut).toMatchObject({ status: "creating", shift_id: null })
      const creation = async () => (await ledgerOf(container).listSwapShiftActions({ swap_shift_id: cut.id, kind: "create_refund_shift" }))[0]
      expect(await creation()).toMatchObject({ state: "attention", last_error: expect.stringContaining("may have made it") })
      const attention = emittedNamed(emitted, "crypto-swap.shift.attention")
      expect(attention).toEqual([
        expect.objectContaining({
          data: expect.objectContaining({ id: cut.id, action: "create_refund_shift", reason: "needs_admin", error: expect.stringContaining("may have made it") }),
        }),
      ])
      await ledgerOf(container).updateSwapShifts({ id: cut.id, next_sync_at: new Date() })
      await reconcile(container)
      expect(made()).toHaveLength(1)
      const { data: listed } = await api.get("/admin/crypto-swap/payments?attention=action_stopped", admin)
      expect(listed.payments.map((line: any) => line.id)).toEqual([cut.id])

      // The admin found and canceled it at the service, and asks again: one new shift.
      await api.post(`/admin/crypto-swap/shifts/${cut.id}/retry`, {}, admin)
      expect(made()).toHaveLength(2)
      expect(await ledgerRow(container, { id: cut.id })).toMatchObject({ status: "waiting", shift_id: made()[1].id })
    })

    it("asks an admin instead of a second variable-rate refund shift after a crash while the first was asked for, and retries a plain refusal alone", async () => {
      const container = getContainer()
      const paid = await paidOrder(container, shop, env.control, PROVIDERS.default, { deposit_coin: "USDC", deposit_network: "algorand", refund_address: "G".repeat(58) })
      // A refusal made nothing: tried again on its own.
      env.sandbox.addFault({ method: "POST", path: "/v2/shifts/variable", status: 400, body: JSON.stringify({ error: { message: "Invalid address" } }), times: 100 })
      await api.post(`/admin/payments/${paid.payments[0].id}/refund`, { amount: 20 }, admin)
      await reconcile(container)
      const [refused] = await refundRows(container, paid.payments[0].id)
      const creation = async () => (await ledgerOf(container).listSwapShiftActions({ swap_shift_id: refused.id, kind: "create_refund_shift" }))[0]
      expect(await creation()).toMatchObject({ state: "pending", last_error: expect.stringContaining("Invalid address") })
      expect(refused.flags?.variable_shift_asked_at ?? null).toBeNull()
      await env.control.clearFaults()

      // The process died after the next request went out: what it left on the row says it was asked.
      await ledgerOf(container).updateSwapShifts({ id: refused.id, flags: { ...(refused.flags ?? {}), variable_shift_asked_at: new Date().toISOString() } })
      await api.post(`/admin/crypto-swap/shifts/${refused.id}/sync`, {}, admin)
      await ledgerOf(container).updateSwapShiftActions({ id: (await creation()).id, next_attempt_at: null })
      await ledgerOf(container).updateSwapShifts({ id: refused.id, next_sync_at: new Date() })
      await reconcile(container)
      expect(env.sandbox.shifts().filter((shift) => shift.externalId === refused.id)).toHaveLength(0)
      expect(await creation()).toMatchObject({ state: "attention", last_error: expect.stringContaining("may have made it") })
    })

    it("asks the store to deposit enough for the shopper to get back what they paid for the refunded value (refundFees: store)", async () => {
      const container = getContainer()
      const { shiftId, payment } = await settledOrder()
      const paid = await ledgerRow(container, { shift_id: shiftId })
      await api.post(`/admin/payments/${payment.id}/refund`, { amount: 20 }, admin)
      await reconcile(container)
      const [row] = await refundRows(container, payment.id)
      const shift = env.sandbox.getShift(row.shift_id!)
      // 20 of the 49.99 settled: that share of the BTC the shopper deposited, rounded up to the satoshi.
      const share = new BigNumber(paid.deposit_amount!).times(20).div(paid.settle_amount!).decimalPlaces(8, BigNumber.ROUND_UP).toFixed()
      expect(shift).toMatchObject({ type: "fixed", settleCoin: "BTC", settleAmount: share, settleAddress: BTC_REFUND })
      expect(row).toMatchObject({ type: "fixed", deposit_amount: shift.depositAmount, settle_amount: share })
      expect(new BigNumber(shift.depositAmount!).gt(20)).toBe(true)
    })

    it("makes no refund shift that costs the store more than the refund's value allows until the merchant approves that cost", async () => {
      const container = getContainer()
      const { payment } = await settledOrder()
      // The spread and fees alone put a refund in kind above its value: limits of 0 stand for a coin that rose.
      const provider = providerRegistry(container.resolve(ContainerRegistrationKeys.CONFIG_MODULE)).get(PROVIDERS.default)!
      const before = provider.options
      provider.options = { ...before, refundCostLimitPercent: "0", refundCostAllowance: "0" }
      const emitted = jest.spyOn(container.resolve(Modules.EVENT_BUS), "emit")
      try {
        await env.control.clearRequests()
        await api.post(`/admin/payments/${payment.id}/refund`, { amount: 20 }, admin)
        await reconcile(container)
        await reconcile(container)
        const [held] = await refundRows(container, payment.id)
        expect(held).toMatchObject({ status: "creating", shift_id: null, flags: expect.objectContaining({ refund_cost_asked: expect.any(String) }) })
        const cost = held.flags!.refund_cost_asked as string
        expect(new BigNumber(cost).gt(20)).toBe(true)
        expect(await env.control.requestsTo("POST", /^\/v2\/shifts\//)).toEqual([])
        const [action] = await ledgerOf(container).listSwapShiftActions({ swap_shift_id: held.id, kind: "create_refund_shift" })
        expect(action).toMatchObject({ state: "attention" })
        expect(action.last_error).toContain(`would ask you to send ${cost} USDC`)
        const { data: listed } = await api.get(`/admin/crypto-swap/payments?attention=refund_cost_asked`, admin)
        expect(listed.payments.map((line: { id: string }) => line.id)).toEqual([held.id])
        // A subscriber that tells the merchant can say it is a cost to approve, and how much, without reading the ledger.
        const told = emittedNamed(emitted, "crypto-swap.shift.attention")
        expect(told.map((message: any) => message.data)).toEqual([
          expect.objectContaining({ id: held.id, action: "create_refund_shift", reason: "refund_cost_asked", error: expect.stringContaining(cost) }),
        ])

        // An approval names the cost the merchant saw: another one approves nothing.
        const other = await failing(api.post(`/admin/crypto-swap/shifts/${held.id}/approve-refund-cost`, { cost: "20" }, admin))
        expect(other.status).toBe(400)
        expect(other.data.message).toContain(`now asks ${cost} USDC`)
        // Approved: made at once, for the cost the merchant saw.
        const { data } = await api.post(`/admin/crypto-swap/shifts/${held.id}/approve-refund-cost`, { cost }, admin)
        expect(data).toMatchObject({ sync_error: null, shift: { status: "waiting", deposit_amount: cost } })
        expect(data.shift.flags.refund_cost_asked).toBeNull()
        expect(env.sandbox.getShift(data.shift.shift_id)).toMatchObject({ depositAmount: cost, settleAddress: BTC_REFUND })
        expect((await failing(api.post(`/admin/crypto-swap/shifts/${held.id}/approve-refund-cost`, { cost }, admin))).status).toBe(400)
      } finally {
        provider.options = before
      }
    })

    it("asks the store to deposit exactly the refunded value when the shopper bears the fees (refundFees: shopper)", async () => {
      const container = getContainer()
      const cart = await shop.createCart()
      const { session } = await shop.createPaymentSession(cart.id, PROVIDERS.refunding, BTC)
      await env.control.deposit(session.data.shift_id)
      await env.control.walk(session.data.shift_id, ["processing", "settling", "settled"])
      await reconcile(container)
      const { payments } = (await orderWithPayments(container, cart.id))!
      await api.post(`/admin/payments/${payments[0].id}/refund`, { amount: 20 }, admin)
      await reconcile(container)
      const [row] = await refundRows(container, payments[0].id)
      expect(env.sandbox.getShift(row.shift_id!)).toMatchObject({ type: "fixed", depositCoin: "USDC", depositAmount: "20" })
      expect(row).toMatchObject({ deposit_amount: "20", status: "waiting" })
    })

    it("makes a variable-rate refund shift when the shopper's coin can only be settled at a variable rate", async () => {
      const container = getContainer()
      const ALGORAND_REFUND = "A".repeat(58)
      const { order, row } = await variableRefund(ALGORAND_REFUND)
      expect(row).toMatchObject({ status: "waiting", type: "variable", settle_coin: "USDC", settle_network: "algorand", refund_address: ALGORAND_REFUND })
      expect(env.sandbox.getShift(row.shift_id!)).toMatchObject({ type: "variable", settleNetwork: "algorand", externalId: row.id })

      // No exact amount to send: the merchant is told about how much pays the shopper their share, fees included.
      expect(row.deposit_estimate).toBeTruthy()
      const { data } = await api.get(`/admin/crypto-swap/orders/${order.id}`, admin)
      const shown = data.shifts.find((shift: any) => shift.id === row.id)
      expect(shown.view.headline).toBe(`Refund pending: send about ${row.deposit_estimate} USDC on ${row.deposit_network}`)
      // Sending that estimate is enough: the shopper gets what they are owed.
      await env.control.deposit(row.shift_id!, { amount: row.deposit_estimate! })
      await env.control.walk(row.shift_id!, ["processing", "settling", "settled"])
      await reconcile(container)
      const sent = await ledgerRow(container, { id: row.id })
      expect(sent.flags?.refund_short ?? null).toBeNull()
      expect(sent.flags?.refunded).toBe(true)
    })

    it("asks the store to send at least the service's smallest deposit to a variable-rate refund shift of less", async () => {
      const container = getContainer()
      const paid = await paidOrder(container, shop, env.control, PROVIDERS.default, { deposit_coin: "USDC", deposit_network: "algorand", refund_address: "A".repeat(58) })
      await api.post(`/admin/payments/${paid.payments[0].id}/refund`, { amount: 1 }, admin)
      await reconcile(container)
      const [row] = await refundRows(container, paid.payments[0].id)
      expect(row).toMatchObject({ type: "variable", amount_due: "1" })
      // Less would sit in review ("amount under min") for hours, then go back to the store, again and again.
      expect(new BigNumber(row.deposit_estimate!).gte(row.deposit_min!)).toBe(true)
    })

    it("waits to judge a variable-rate refund the service says settled without its figures, and tells the shopper once it can", async () => {
      const container = getContainer()
      const { row } = await variableRefund("D".repeat(58))
      await env.control.deposit(row.shift_id!, { amount: row.deposit_estimate! })
      await env.control.walk(row.shift_id!, ["processing", "settling", "settled"])
      // The service says settled, once, without what it paid the shopper (single and bulk reads alike).
      const { settleAmount: _figure, ...unpriced } = env.sandbox.getShift(row.shift_id!)!
      env.sandbox.addFault({ method: "GET", path: `/v2/shifts/${row.shift_id}`, status: 200, body: JSON.stringify(unpriced), times: 1 })
      env.sandbox.addFault({ method: "GET", path: "/v2/shifts", status: 200, body: JSON.stringify([unpriced]), times: 1 })
      const emitted = jest.spyOn(container.resolve(Modules.EVENT_BUS), "emit")
      const refundedEvents = () =>
        emittedNamed(emitted, "crypto-swap.shift.refunded").filter((message) => message.data.id === row.id)
      await reconcile(container)
      const unjudged = await ledgerRow(container, { id: row.id })
      expect(unjudged.status).toBe("settled")
      // Neither refunded nor short: a missing figure is no zero.
      expect(unjudged.flags?.refunded ?? null).toBeNull()
      expect(unjudged.flags?.refund_short ?? null).toBeNull()
      expect(refundedEvents()).toHaveLength(0)

      // The next read has the figure, with nothing else new: judged and announced, once.
      await ledgerOf(container).updateSwapShifts({ id: row.id, next_sync_at: new Date() })
      await reconcile(container)
      await reconcile(container)
      expect((await ledgerRow(container, { id: row.id })).flags?.refunded).toBe(true)
      expect(refundedEvents()).toHaveLength(1)
      emitted.mockRestore()
    })

    it("keeps a variable-rate refund open while the store's deposits paid the shopper less than their share, until the rest arrives", async () => {
      const container = getContainer()
      const { order, session, row } = await variableRefund("B".repeat(58))
      const paid = await ledgerRow(container, { shift_id: session.data.shift_id })
      expect(row.type).toBe("variable")
      // The store pays the fees: the shopper is owed 20 of the settled amount's share of what they deposited,
      // in their coin, rounded up to its precision: what a fixed quote would have fixed.
      const share = new BigNumber(paid.deposit_amount!).times(20).div(paid.settle_amount!)
      const target = new BigNumber((row.flags?.refund_target as { settle_amount: string }).settle_amount)
      expect(target.gte(share) && target.minus(share).lt("0.000001")).toBe(true)

      // The merchant sends far too little: the service swaps it all the same, and pays the shopper that.
      const first = BigNumber.max(row.deposit_min!, "5").toFixed()
      await env.control.deposit(row.shift_id!, { amount: first })
      await env.control.walk(row.shift_id!, ["processing", "settling", "settled"])
      await reconcile(container)
      const short = await ledgerRow(container, { id: row.id })
      expect(short.status).toBe("settled")
      expect(short.flags?.refund_short).toEqual(target.minus(short.settle_amount!).toFixed())
      // Still read: the shift's address takes the rest until it expires.
      expect(short.next_sync_at).not.toBeNull()
      const { data } = await api.get(`/admin/crypto-swap/orders/${order.id}`, admin)
      const shown = data.shifts.find((shift: any) => shift.id === row.id)
      expect(shown.view.stage).not.toBe("refunded")
      expect(shown.view.headline).toContain("Refund short")
      const { data: status } = await api.get("/admin/crypto-swap/status", admin)
      // The settings page says what is still owed, and in which coin.
      expect(status.refunds.filter((refund: any) => refund.id === row.id)).toEqual([
        expect.objectContaining({ refund_short: short.flags?.refund_short, refund_short_coin: expect.any(String) }),
      ])
      const { data: listed } = await api.get("/admin/crypto-swap/payments?attention=refund_short", admin)
      expect(listed.payments.map((line: any) => line.id)).toEqual([row.id])
      // In the totals the refund is still outstanding in the store's currency; what the merchant sent is sent.
      // Unfiltered, as the payments page first asks (payments add to neither refunded nor outstanding).
      const refundTotals = async () => (await api.get(`/admin/crypto-swap/payments/totals`, admin)).data
      const before = await refundTotals()
      expect(before.by_currency).toEqual([expect.objectContaining({ refunded: "0", outstanding: "20" })])
      expect(before.by_settle_coin).toEqual([expect.objectContaining({ refunded: first, outstanding: "0" })])
      // Marked paid by other means only once the shift takes nothing more: the rest sent to it would pay twice.
      const early = await failing(api.post(`/admin/crypto-swap/shifts/${row.id}/mark-refunded`, {}, admin))
      expect(early.status).toBe(400)
      expect(early.data.message).toContain("takes the rest until")

      // The rest arrives at the same address: on its way (`multiple`), the refund is still open.
      await env.control.deposit(row.shift_id!, { amount: "25" })
      await reconcile(container)
      expect((await ledgerRow(container, { id: row.id })).status).toBe("multiple")
      const { data: moving } = await api.get("/admin/crypto-swap/status", admin)
      expect(moving.refunds.map((refund: any) => refund.id)).toContain(row.id)
      const inFlight = await refundTotals()
      expect(inFlight.by_currency).toEqual([expect.objectContaining({ refunded: "0", outstanding: "20" })])
      expect(inFlight.by_settle_coin).toEqual([expect.objectContaining({ outstanding: "0" })])
      // Settled: the shopper now has their share. An admin who marks it paid before any sync saw that (the shift
      // expired meanwhile, and the hour after it) is refused: the ledger's "short" is judged again from what the service says now.
      for (const next of ["processing", "settling", "settled"]) await env.control.setDepositStatus(row.shift_id!, 1, next)
      const expired = { ...env.sandbox.getShift(row.shift_id!)!, expiresAt: new Date(Date.now() - LATE_HOUR_PASSED_MS).toISOString() }
      env.sandbox.addFault({ method: "GET", path: `/v2/shifts/${row.shift_id}`, status: 200, body: JSON.stringify(expired), times: 1 })
      const stale = await failing(api.post(`/admin/crypto-swap/shifts/${row.id}/mark-refunded`, {}, admin))
      expect(stale.status).toBe(400)
      expect(stale.data.message).toContain("reached the shopper in full")
      // The row sums what the merchant sent and what the shopper got.
      await reconcile(container)
      const done = await ledgerRow(container, { id: row.id })
      expect(done).toMatchObject({ status: "multiple", terminal: true, deposit_amount: new BigNumber(first).plus(25).toFixed() })
      expect(new BigNumber(done.settle_amount!).gte(target)).toBe(true)
      expect(done.flags?.refund_short ?? null).toBeNull()
      const { data: after } = await api.get(`/admin/crypto-swap/orders/${order.id}`, admin)
      expect(after.shifts.find((shift: any) => shift.id === row.id).view.stage).toBe("refunded")
      const totals = await refundTotals()
      expect(totals.by_currency).toEqual([expect.objectContaining({ refunded: "20", outstanding: "0" })])
      expect(totals.by_settle_coin).toEqual([expect.objectContaining({ refunded: done.deposit_amount, outstanding: "0" })])
      const { data: closed } = await api.get("/admin/crypto-swap/status", admin)
      expect(closed.refunds.map((refund: any) => refund.id)).not.toContain(row.id)
    })

    it("closes at the service a refund shift marked paid by other means once it allows, and calls the merchant when it is funded anyway", async () => {
      const container = getContainer()
      const emitted = jest.spyOn(container.resolve(Modules.EVENT_BUS), "emit")
      const { refund: row } = await refundedOrder()
      await api.post(`/admin/crypto-swap/shifts/${row.id}/mark-refunded`, { note: "paid by bank transfer" }, admin)
      // Its first minutes, the service refuses the cancel: the shift still takes a deposit, so the cancel waits and is tried again.
      await reconcile(container)
      expect(env.sandbox.getShift(row.shift_id!)).toMatchObject({ status: "waiting" })
      const waiting = await ledgerRow(container, { id: row.id })
      expect(waiting).toMatchObject({ status: "paid_manually" })
      expect(waiting.next_sync_at).not.toBeNull()
      const [cancel] = await ledgerOf(container).listSwapShiftActions({ swap_shift_id: row.id, kind: "cancel_abandoned" })
      // Waiting on the service is no failed attempt: it says since when, and counts nothing toward an admin's attention.
      expect(cancel).toMatchObject({ state: "pending", attempts: 0, blocked_since: expect.any(Date) })

      // Its backoff over and the service's minutes past, the job cancels it on its own.
      await env.control.advanceClock(6 * 60)
      await ledgerOf(container).updateSwapShiftActions({ id: cancel.id, next_attempt_at: new Date() })
      await ledgerOf(container).updateSwapShifts({ id: row.id, next_sync_at: new Date() })
      await reconcile(container)
      expect(env.sandbox.getShift(row.shift_id!)).toMatchObject({ status: "expired" })
      const [canceled] = await ledgerOf(container).listSwapShiftActions({ swap_shift_id: row.id, kind: "cancel_abandoned" })
      expect(canceled).toMatchObject({ state: "done" })
      expect(await ledgerRow(container, { id: row.id })).toMatchObject({ status: "paid_manually", terminal: true })

      // A transfer already on its way arrives late, and the service releases it from review to the shopper: paid
      // twice (the sandbox sends late deposits back; the real service may settle one, as it reports it here).
      const expired = env.sandbox.getShift(row.shift_id!)!
      const settled = { ...expired, status: "settled", depositHash: "late-deposit", depositAmount: expired.depositAmount, settleHash: "late-settle" }
      env.sandbox.addFault({ method: "GET", path: `/v2/shifts/${row.shift_id}`, status: 200, body: JSON.stringify(settled), times: 2 })
      await api.post(`/admin/crypto-swap/shifts/${row.id}/sync`, {}, admin)
      expect((await ledgerRow(container, { id: row.id })).flags?.paid_twice).toBeTruthy()
      const { data: listed } = await api.get("/admin/crypto-swap/payments?attention=refund_paid_twice", admin)
      expect(listed.payments.map((line: any) => line.id)).toEqual([row.id])
      await api.post(`/admin/crypto-swap/shifts/${row.id}/sync`, {}, admin)
      expect((await ledgerRow(container, { id: row.id })).flags?.paid_twice).toBe("settled")
      const told = emittedNamed(emitted, "crypto-swap.shift.refund_paid_twice")
      expect(told).toEqual([expect.objectContaining({ data: expect.objectContaining({ id: row.id }) })])

      // The merchant got it back from the shopper: resolved, it leaves the list for good, and only once.
      const resolved = await api.post(`/admin/crypto-swap/shifts/${row.id}/resolve-paid-twice`, { note: "the shopper sent it back" }, admin)
      expect(resolved.data.shift.flags).toMatchObject({ paid_twice: "settled", paid_twice_resolved: expect.objectContaining({ note: "the shopper sent it back", deposits_settled: 1 }) })
      expect(resolved.data.shift.events.at(-1)).toMatchObject({ action: "paid_twice_resolved", source: "admin" })
      const { data: cleared } = await api.get("/admin/crypto-swap/payments?attention=true", admin)
      expect(cleared.payments.map((line: any) => line.id)).not.toContain(row.id)
      // Read again as the service says it, still resolved and not told again.
      env.sandbox.addFault({ method: "GET", path: `/v2/shifts/${row.shift_id}`, status: 200, body: JSON.stringify(settled), times: 1 })
      await api.post(`/admin/crypto-swap/shifts/${row.id}/sync`, {}, admin)
      expect((await ledgerRow(container, { id: row.id })).flags?.paid_twice_resolved).toBeTruthy()
      expect(emittedNamed(emitted, "crypto-swap.shift.refund_paid_twice")).toHaveLength(1)
      expect((await failing(api.post(`/admin/crypto-swap/shifts/${row.id}/resolve-paid-twice`, {}, admin))).status).toBe(400)
      const hostile = await failing(api.post(`/admin/crypto-swap/shifts/${row.id}/resolve-paid-twice`, { note: "x".repeat(600) }, admin))
      expect(hostile.status).toBe(400)
      expect((await failing(api.post(`/admin/crypto-swap/shifts/${waiting.id}/resolve-paid-twice`, {}))).status).toBe(401)
    })

    it("shows a variable-rate refund shift that sent the store's deposit back as still open for another, and lets the admin close it meanwhile", async () => {
      const container = getContainer()
      const { order, row } = await variableRefund("E".repeat(58))
      // Below the shift's minimum: the service reviews it and sends it back to the merchant, and the address still takes deposits for its week.
      await env.control.deposit(row.shift_id!, { amount: new BigNumber(row.deposit_min!).div(2).toFixed() })
      await env.control.walk(row.shift_id!, ["refund", "refunding", "refunded"])
      await reconcile(container)
      expect(await ledgerRow(container, { id: row.id })).toMatchObject({ status: "refunded", terminal: true })
      const { data } = await api.get(`/admin/crypto-swap/orders/${order.id}`, admin)
      const { view } = data.shifts.find((shift: any) => shift.id === row.id)
      expect(view.headline).toBe("Refund not sent: the service sent your deposit back")
      expect(view.next_step).toContain(`to the same address before ${new Date(row.expires_at!).toISOString()}`)
      expect(view.payment_uri).toBeTruthy()

      // Renewing it would leave this address open beside a new one, unwatched.
      const renew = await failing(api.post(`/admin/crypto-swap/shifts/${row.id}/renew-refund`, {}, admin))
      expect(renew.status).toBe(400)
      expect(renew.data.message).toContain("can still receive a deposit")
      // Paid by other means meanwhile, it can't be canceled (only a waiting shift can): its address is watched
      // until it expires, and a deposit that reaches the shopper through it is flagged.
      const marked = await api.post(`/admin/crypto-swap/shifts/${row.id}/mark-refunded`, { note: "paid by bank transfer" }, admin)
      expect(marked.data.shift).toMatchObject({ status: "paid_manually" })
      await reconcile(container)
      expect((await ledgerRow(container, { id: row.id })).next_sync_at).not.toBeNull()
      await env.control.deposit(row.shift_id!, { amount: row.deposit_estimate! })
      await api.post(`/admin/crypto-swap/shifts/${row.id}/sync`, {}, admin)
      // On its way, it may yet go back: no payment yet.
      expect((await ledgerRow(container, { id: row.id })).flags?.paid_twice ?? null).toBeNull()
      for (const next of ["processing", "settling", "settled"]) await env.control.setDepositStatus(row.shift_id!, 1, next)
      await api.post(`/admin/crypto-swap/shifts/${row.id}/sync`, {}, admin)
      expect((await ledgerRow(container, { id: row.id })).flags?.paid_twice).toBe("multiple")
    })

    it("lets the admin close a variable-rate refund paid short once its shift expired, and flags a deposit to it after that", async () => {
      const container = getContainer()
      const { row } = await variableRefund("C".repeat(58))
      await env.control.deposit(row.shift_id!, { amount: BigNumber.max(row.deposit_min!, "5").toFixed() })
      await env.control.walk(row.shift_id!, ["processing", "settling", "settled"])
      await reconcile(container)
      expect((await ledgerRow(container, { id: row.id })).flags?.refund_short).toBeTruthy()

      // Its week just over (as the service reports the shift): a deposit already on its way may still reach it, and be
      // released to the shopper, for the hour after.
      const settled = env.sandbox.getShift(row.shift_id!)!
      const expiredAgo = (ms: number) => ({ ...settled, expiresAt: new Date(Date.now() - ms).toISOString() })
      env.sandbox.addFault({ method: "GET", path: `/v2/shifts/${row.shift_id}`, status: 200, body: JSON.stringify(expiredAgo(60_000)), times: 1 })
      const early = await failing(api.post(`/admin/crypto-swap/shifts/${row.id}/mark-refunded`, { note: "sent the rest by bank" }, admin))
      expect({ status: early.status, message: early.data.message }).toEqual({ status: 400, message: expect.stringMatching(/on its way may still reach it until/) })
      // After that hour, the merchant paid the rest another way.
      env.sandbox.addFault({ method: "GET", path: `/v2/shifts/${row.shift_id}`, status: 200, body: JSON.stringify(expiredAgo(LATE_HOUR_PASSED_MS)), times: 1 })
      const marked = await api.post(`/admin/crypto-swap/shifts/${row.id}/mark-refunded`, { note: "sent the rest by bank" }, admin)
      expect(marked.data.shift).toMatchObject({ id: row.id, status: "paid_manually" })
      const closed = await ledgerRow(container, { id: row.id })
      expect(closed.flags?.refund_short ?? null).toBeNull()
      const { data: status } = await api.get("/admin/crypto-swap/status", admin)
      expect(status.refunds.map((refund: any) => refund.id)).not.toContain(row.id)

      // What it held at the mark is no second payment; a deposit after it is.
      await api.post(`/admin/crypto-swap/shifts/${row.id}/sync`, {}, admin)
      expect((await ledgerRow(container, { id: row.id })).flags?.paid_twice ?? null).toBeNull()
      await env.control.deposit(row.shift_id!, { amount: BigNumber.max(row.deposit_min!, "5").toFixed() })
      for (const next of ["processing", "settling", "settled"]) await env.control.setDepositStatus(row.shift_id!, 1, next)
      await api.post(`/admin/crypto-swap/shifts/${row.id}/sync`, {}, admin)
      expect((await ledgerRow(container, { id: row.id })).flags?.paid_twice).toBeTruthy()
    })

    it("renews a refund shift that expired before the store funded it: the same refund, a new shift", async () => {
      const container = getContainer()
      const { order, payment, refund: first } = await refundedOrder()
      const early = await failing(api.post(`/admin/crypto-swap/shifts/${first.id}/renew-refund`, {}, admin))
      expect(early.status).toBe(400)
      // The fixed rate's quote runs out before the merchant sends anything.
      await env.control.advanceClock(16 * 60)
      await reconcile(container)
      const { data } = await api.get(`/admin/crypto-swap/orders/${order.id}`, admin)
      expect(data.shifts.find((shift: any) => shift.id === first.id).view.headline).toBe("Refund not sent: the refund shift expired unfunded")
      // The settings page lists it among the refunds still to reach the shopper, order or not.
      const listed = async () => (await api.get("/admin/crypto-swap/status", admin)).data.refunds.filter((refund: any) => refund.id === first.id)
      expect(await listed()).toEqual([expect.objectContaining({ status: "expired", amount_due: "20", order_id: order.id })])

      // A transfer the merchant sent at the deadline may still arrive for an hour: the refund follows the expired
      // shift until then, and a second shift beside it could pay the shopper twice.
      const tooSoon = await failing(api.post(`/admin/crypto-swap/shifts/${first.id}/renew-refund`, {}, admin))
      expect(tooSoon.status).toBe(400)
      expect(tooSoon.data.message).toContain("can still receive a deposit already on its way until")
      expect(await ledgerRow(container, { id: first.id })).toMatchObject({ status: "expired", shift_id: first.shift_id })
      expect((await ledgerRow(container, { id: first.id })).next_sync_at).not.toBeNull()

      passDeadline(first.shift_id!, LATE_HOUR_PASSED_MS)
      const renewed = await api.post(`/admin/crypto-swap/shifts/${first.id}/renew-refund`, {}, admin)
      expect(renewed.data.sync_error).toBeNull()
      expect(renewed.data.shift).toMatchObject({ id: first.id, status: "waiting", refund_id: first.refund_id, terminal: false })
      expect(renewed.data.shift.shift_id).not.toBe(first.shift_id)
      expect(env.sandbox.getShift(renewed.data.shift.shift_id)).toMatchObject({ type: "fixed", externalId: first.id, status: "waiting" })
      expect(await refundRows(container, payment.id)).toHaveLength(1)
      expect(await listed()).toEqual([expect.objectContaining({ status: "waiting", deposit_address: renewed.data.shift.deposit_address })])
      expect((await ledgerRow(container, { id: first.id })).events.map((event) => event.action ?? `${event.from_status} -> ${event.to_status}`)).toEqual([
        "null -> creating",
        "refund_shift_created",
        "waiting -> expired",
        "refund_shift_renewed",
        "refund_shift_created",
      ])
    })

    it("renews a refund shift again when the first renewal stopped halfway, rather than leaving the refund without a shift", async () => {
      const container = getContainer()
      const { refund: first } = await refundedOrder()
      await env.control.advanceClock(16 * 60)
      await reconcile(container)
      passDeadline(first.shift_id!, LATE_HOUR_PASSED_MS)
      // The renewal's reopening of the make-the-shift action fails, as a process stopped there would leave it.
      const lost = jest.spyOn(ledgerOf(container), "updateSwapShiftActions").mockRejectedValueOnce(new Error(LOST_CONNECTION))
      try {
        expect((await failing(api.post(`/admin/crypto-swap/shifts/${first.id}/renew-refund`, {}, admin))).status).toBeGreaterThanOrEqual(400)
      } finally {
        lost.mockRestore()
      }

      passDeadline(first.shift_id!, LATE_HOUR_PASSED_MS)
      const renewed = await api.post(`/admin/crypto-swap/shifts/${first.id}/renew-refund`, {}, admin)
      expect(renewed.data.shift).toMatchObject({ id: first.id, status: "waiting" })
      expect(renewed.data.shift.shift_id).not.toBe(first.shift_id)
    })

    it("lets the admin correct or close a refund whose shift the service keeps refusing, and never close one the merchant funded", async () => {
      const container = getContainer()
      const { payment } = await settledOrder()
      // The service refuses every refund shift (here: every quote) for this refund.
      env.sandbox.addFault({ method: "POST", path: "/v2/quotes", status: 500, body: JSON.stringify({ error: { message: "Amount too low" } }), times: 100 })
      await api.post(`/admin/payments/${payment.id}/refund`, { amount: 20 }, admin)
      await reconcile(container)
      const [refused] = await refundRows(container, payment.id)
      expect(refused).toMatchObject({ status: "creating", shift_id: null })
      // Another destination restarts the attempts; closing it by hand settles the action too.
      const corrected = await api.post(`/admin/crypto-swap/shifts/${refused.id}/refund-address`, { address: "bc1qxy2kgdygjrsqtzq2n0yrf2493p83kkfjhx0wlh" }, admin)
      expect(corrected.data.shift).toMatchObject({ status: "creating", refund_address: "bc1qxy2kgdygjrsqtzq2n0yrf2493p83kkfjhx0wlh" })
      const closed = await api.post(`/admin/crypto-swap/shifts/${refused.id}/mark-refunded`, { note: "paid by bank transfer" }, admin)
      expect(closed.data.shift).toMatchObject({ status: "paid_manually", terminal: true })
      expect(closed.data.shift.actions).toEqual([expect.objectContaining({ kind: "create_refund_shift", state: "done", outcome: "paid_manually" })])
      await env.control.clearFaults()

      // A refund shift the merchant funded pays the shopper: it can't also be marked paid by other means.
      await api.post(`/admin/payments/${payment.id}/refund`, { amount: 10 }, admin)
      await reconcile(container)
      const funded = (await refundRows(container, payment.id)).find((row) => row.status === "waiting")!
      await env.control.deposit(funded.shift_id!)
      const twice = await failing(api.post(`/admin/crypto-swap/shifts/${funded.id}/mark-refunded`, {}, admin))
      expect(twice.status).toBe(400)
      expect(twice.data.message).toContain("has received a deposit")
      expect((await ledgerRow(container, { id: funded.id })).status).toBe("waiting")
    })

    it("lists a Medusa refund of a crypto payment the ledger never knew for the merchant to pay back, instead of only logging it", async () => {
      const container = getContainer()
      const { order, payment, shiftId } = await settledOrder()
      // The ledger has no row for the payment (removed by hand, or a restore that lost it): nothing can make its refund shift.
      await ledgerOf(container).softDeleteSwapShifts((await ledgerRow(container, { shift_id: shiftId })).id)
      await api.post(`/admin/payments/${payment.id}/refund`, { amount: 20 }, admin)
      // Left to the tick, which first looks for payments the ledger missed.
      expect(await refundRows(container, payment.id)).toEqual([])
      await reconcile(container)
      await reconcile(container)
      const rows = await refundRows(container, payment.id)
      expect(rows).toEqual([expect.objectContaining({ status: "payment_unknown", amount_due: "20", currency_code: "usd", order_id: order.id, shift_id: null, next_sync_at: null })])
      // Among the settings page's refunds still to reach the shopper.
      const { data: status } = await api.get("/admin/crypto-swap/status", admin)
      expect(status.refunds.map((refund: any) => refund.id)).toContain(rows[0].id)
      const { data: listed } = await api.get("/admin/crypto-swap/payments?attention=refund_payment_unknown", admin)
      expect(listed.payments.map((line: any) => line.id)).toEqual([rows[0].id])
      const { data: totals } = await api.get(`/admin/crypto-swap/payments/totals`, admin)
      expect(totals.by_currency).toEqual([expect.objectContaining({ currency_code: "usd", outstanding: "20" })])
      const { data: shown } = await api.post(`/admin/crypto-swap/shifts/${rows[0].id}/sync`, {}, admin)
      expect(shown.sync_error).toBeNull()
      expect(shown.shift.view.headline).toBe("Refund not sent: no crypto payment to refund from")
      // Nothing at the service to follow: a sync leaves it unread after.
      expect((await ledgerRow(container, { id: rows[0].id })).next_sync_at).toBeNull()

      // Paid back by other means, it is closed.
      const marked = await api.post(`/admin/crypto-swap/shifts/${rows[0].id}/mark-refunded`, { note: "paid by bank transfer" }, admin)
      expect(marked.data.shift).toMatchObject({ status: "paid_manually", terminal: true })
      const { data: after } = await api.get("/admin/crypto-swap/payments?attention=true", admin)
      expect(after.payments.map((line: any) => line.id)).not.toContain(rows[0].id)
    })

    it("refunds money no order holds through a refund shift, once", async () => {
      const container = getContainer()
      // The shopper paid a coin's shift after switching to another: the first shift's money has no order.
      const cart = await shop.createCart()
      const { session: first } = await shop.createPaymentSession(cart.id, PROVIDERS.default, BTC)
      await shop.createPaymentSession(cart.id, PROVIDERS.default, { deposit_coin: "ETH", deposit_network: "ethereum" })
      const orphan = first.data.shift_id as string
      await env.control.deposit(orphan)
      await env.control.walk(orphan, ["processing", "settling", "settled"])
      await reconcile(container)
      const row = await ledgerRow(container, { shift_id: orphan })
      expect(row.flags).toMatchObject({ paid_without_session: expect.any(String) })

      const refused = await failing(api.post(`/admin/crypto-swap/shifts/${row.id}/refund`, { address: "not an address!" }, admin))
      expect(refused.status).toBe(400)
      const answered = await api.post(`/admin/crypto-swap/shifts/${row.id}/refund`, {}, admin)
      expect({ error: answered.data.sync_error, actions: answered.data.refund.actions }).toMatchObject({ error: null, actions: [expect.objectContaining({ state: "done" })] })
      expect(answered.data.refund).toMatchObject({ kind: "refund", refund_of_shift_id: orphan, amount_due: row.settle_amount, settle_address: BTC_REFUND })
      expect(answered.data.refund.shift_id).toEqual(expect.any(String))
      const again = await failing(api.post(`/admin/crypto-swap/shifts/${row.id}/refund`, {}, admin))
      expect(again.status).toBe(400)
      expect(await ledgerOf(container).listSwapShifts({ kind: "refund", refund_of_shift_id: orphan })).toHaveLength(1)
    })
  },
})
