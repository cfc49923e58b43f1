import { medusaIntegrationTestRunner } from "@medusajs/test-utils"
import { useSandbox } from "../helpers/sandbox"
import { createStoreFixture, PROVIDERS, type StoreFixture } from "../helpers/store-fixtures"
import { failing, storefront } from "../helpers/storefront"
import { adminHeaders } from "../helpers/admin"
import { ledgerOf, ledgerRow, LOST_CONNECTION, orderWithPayments, reconcile } from "../helpers/ledger"
import { waitFor } from "../helpers/wait-for"

jest.setTimeout(180_000)

const env = useSandbox()
const BTC_REFUND = "bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq"

medusaIntegrationTestRunner({
  testSuite: ({ api, getContainer }) => {
    let store: StoreFixture
    let shop: ReturnType<typeof storefront>
    let admin: { headers: Record<string, string> }

    beforeEach(async () => {
      store = await createStoreFixture(getContainer())
      shop = storefront(api, store)
      admin = await adminHeaders(getContainer())
    })

    async function settledOrder(data: Record<string, unknown> = { deposit_coin: "BTC", deposit_network: "bitcoin" }) {
      const container = getContainer()
      const cart = await shop.createCart()
      const { session } = await shop.createPaymentSession(cart.id, PROVIDERS.default, data)
      const shiftId = session.data.shift_id as string
      await env.control.deposit(shiftId)
      await env.control.walk(shiftId, ["processing", "settling", "settled"])
      await reconcile(container)
      const order = await orderWithPayments(container, cart.id)
      return { cart, session, shiftId, order: order!, payment: order!.payments[0] }
    }

    async function waitingShift() {
      const cart = await shop.createCart()
      const { session } = await shop.createPaymentSession(cart.id, PROVIDERS.default, { deposit_coin: "LTC", deposit_network: "litecoin" })
      // Recorded by the creation's subscriber, which the bus runs after the answer: the tick must not find it first.
      await waitFor("the ledger to record the new shift", () => ledgerOf(getContainer()).listSwapShifts({ shift_id: session.data.shift_id }), (rows) => rows.length === 1)
      await reconcile(getContainer())
      return ledgerRow(getContainer(), { shift_id: session.data.shift_id })
    }

    it("shows every shift of an order with its history and the payment page's view", async () => {
      const { order, shiftId } = await settledOrder()
      const { data } = await api.get(`/admin/crypto-swap/orders/${order.id}`, admin)
      expect(data.shifts).toHaveLength(1)
      const [shift] = data.shifts
      expect(shift).toMatchObject({ shift_id: shiftId, kind: "payment", status: "settled", order_id: order.id })
      expect(shift.events.map((e: any) => e.to_status)).toContain("settled")
      expect(shift.view.transactions.deposit.url).toMatch(/^https:\/\/mempool\.space\/tx\//)
      expect(shift.view.transactions.settle.url).toMatch(/^https:\/\/etherscan\.io\/tx\//)
      expect(shift.snapshot).toBeUndefined()
      expect(JSON.stringify(data)).not.toContain(env.sandbox.account.secret)
    })

    it("syncs and cancels a shift on request, once the service allows the cancel", async () => {
      const row = await waitingShift()
      const synced = await api.post(`/admin/crypto-swap/shifts/${row.id}/sync`, {}, admin)
      expect(synced.data.shift.events.some((e: any) => e.source === "create")).toBe(true)

      const early = await failing(api.post(`/admin/crypto-swap/shifts/${row.id}/cancel`, {}, admin))
      expect(early.status).toBe(400)
      expect((await ledgerRow(getContainer(), { id: row.id })).status).toBe("waiting")

      await env.control.advanceClock(6 * 60)
      const canceled = await api.post(`/admin/crypto-swap/shifts/${row.id}/cancel`, {}, admin)
      expect(canceled.data.shift).toMatchObject({ status: "expired", terminal: true })
      const changes = canceled.data.shift.events.filter((e: any) => !e.action)
      expect(changes.at(-1)).toMatchObject({ from_status: "waiting", to_status: "expired", source: "admin" })
      expect(canceled.data.shift.events.at(-1)).toMatchObject({ action: "canceled", source: "admin" })
      expect((await failing(api.post(`/admin/crypto-swap/shifts/${row.id}/cancel`, {}, admin))).status).toBe(400)
    })

    it("passes an admin's refund address to a shift waiting for one", async () => {
      const row = await waitingShift()
      await env.control.deposit(row.shift_id!, { amount: "0.0001" })
      const refused = await failing(api.post(`/admin/crypto-swap/shifts/${row.id}/refund-address`, { address: "x y" }, admin))
      expect(refused.status).toBe(400)
      const { data } = await api.post(`/admin/crypto-swap/shifts/${row.id}/refund-address`, { address: "ltc1qg82x0c9zjl9k0h5n0u7d5z0m9f6q3l2s7w8e4r" }, admin)
      expect(data.shift).toMatchObject({ status: "refund", refund_address: "ltc1qg82x0c9zjl9k0h5n0u7d5z0m9f6q3l2s7w8e4r" })
      const shift = await (await fetch(`${env.sandbox.baseUrl}/v2/shifts/${row.shift_id}`)).json()
      expect(shift.refundAddress).toBe("ltc1qg82x0c9zjl9k0h5n0u7d5z0m9f6q3l2s7w8e4r")
      const again = await failing(api.post(`/admin/crypto-swap/shifts/${row.id}/refund-address`, { address: BTC_REFUND }, admin))
      expect(again.status).toBe(400)
    })

    it("refuses hostile or unauthenticated admin requests without a change", async () => {
      const row = await waitingShift()
      expect((await failing(api.post(`/admin/crypto-swap/shifts/${row.id}/sync`, {}))).status).toBe(401)
      expect((await failing(api.post(`/admin/crypto-swap/shifts/csshift_nope/sync`, {}, admin))).status).toBe(404)
      const unknown = await failing(api.post(`/admin/crypto-swap/shifts/${row.id}/sync`, { force: true }, admin))
      expect(unknown.status).toBe(400)
      expect(unknown.data.message).toMatch(/unknown field/)
      const huge = await failing(api.post(`/admin/crypto-swap/shifts/${row.id}/refund-address`, { address: "a".repeat(5000) }, admin))
      expect(huge.status).toBe(400)
      expect(await ledgerRow(getContainer(), { id: row.id })).toMatchObject({ status: "waiting", refund_address: null })
    })

    it("reports the plugin's health", async () => {
      await waitingShift()
      const { data } = await api.get("/admin/crypto-swap/status", admin)
      const main = data.providers.find((p: any) => p.provider_id === PROVIDERS.default)
      expect(main.credentials).toMatchObject({ valid: true })
      expect(main.permissions.create_shift).toBe(true)
      expect(main.catalogue_age_seconds).toEqual(expect.any(Number))
      // The shift was recorded when it was made: discovery, the fallback, found nothing to add.
      expect(data.reconciliation.last_run).toMatchObject({ discovered: 0, due: expect.any(Number) })
      // The test app is one process: Medusa's in-memory locking (Redis locking when the test points it at a Redis).
      expect(data.reconciliation.locking).toEqual(
        process.env.CRYPTO_SWAP_TEST_REDIS_URL
          ? { provider: "locking-redis", across_processes: true, warning: null }
          : { provider: "in-memory", across_processes: false, warning: null }
      )
      expect(data.open_shifts.by_status.waiting).toBeGreaterThanOrEqual(1)
      expect(data.upstream.count).toBeGreaterThan(0)
      expect(JSON.stringify(data)).not.toContain(env.sandbox.account.secret)
    })

    it("refunds a settled payment through a refund shift the merchant funds, done only when the service settles it", async () => {
      const container = getContainer()
      const { order, payment, shiftId } = await settledOrder({ deposit_coin: "BTC", deposit_network: "bitcoin", refund_address: BTC_REFUND })
      await api.post(`/admin/payments/${payment.id}/refund`, { amount: 20 }, admin)

      const refund = await waitFor(
        "the refund shift to be made",
        () => ledgerOf(container).listSwapShifts({ kind: "refund", refund_of_shift_id: shiftId }),
        (rows) => Boolean(rows[0]?.shift_id)
      )
      expect(refund[0]).toMatchObject({
        status: "waiting",
        type: "fixed",
        deposit_coin: "USDC",
        settle_coin: "BTC",
        settle_address: BTC_REFUND,
        amount_due: "20",
        terminal: false,
      })
      const { data } = await api.get(`/admin/crypto-swap/orders/${order.id}`, admin)
      const shown = data.shifts.find((s: any) => s.kind === "refund")
      expect(shown.deposit_address).toMatch(/^0x[0-9a-fA-F]{40}$/)
      expect(shown.view.qr_svg).toMatch(/^<svg/)

      // The merchant funds it; the shopper is paid only when the service says settled.
      await env.control.deposit(refund[0].shift_id!)
      await env.control.walk(refund[0].shift_id!, ["processing", "settling"])
      await reconcile(container)
      expect((await ledgerRow(container, { id: refund[0].id })).status).toBe("settling")
      await env.control.setStatus(refund[0].shift_id!, "settled")
      await reconcile(container)
      expect(await ledgerRow(container, { id: refund[0].id })).toMatchObject({ status: "settled", terminal: true })
    })

    it("keeps a refund paid by other means closed whatever its shift does since, and watches a deposit to it that then goes back", async () => {
      const container = getContainer()
      const { payment, shiftId } = await settledOrder({ deposit_coin: "BTC", deposit_network: "bitcoin", refund_address: BTC_REFUND })
      await api.post(`/admin/payments/${payment.id}/refund`, { amount: 20 }, admin)
      const [refund] = await waitFor(
        "the refund shift to be made",
        () => ledgerOf(container).listSwapShifts({ kind: "refund", refund_of_shift_id: shiftId }),
        (rows) => Boolean(rows[0]?.shift_id)
      )
      // Too young for the service to cancel it: the shift stays open there.
      await api.post(`/admin/crypto-swap/shifts/${refund.id}/mark-refunded`, { note: "paid by bank transfer" }, admin)
      const synced = await api.post(`/admin/crypto-swap/shifts/${refund.id}/sync`, {}, admin)
      expect(synced.data.shift).toMatchObject({ status: "paid_manually", terminal: true })
      expect((await failing(api.post(`/admin/crypto-swap/shifts/${refund.id}/renew-refund`, {}, admin))).status).toBe(400)

      // Another admin funds it anyway (a transfer already on its way): the job, still watching the open
      // shift, sees the deposit, which pays the shopper twice only once it settles: on its way, it may yet go back.
      const watched = await ledgerRow(container, { id: refund.id })
      expect(watched.next_sync_at).not.toBeNull()
      await env.control.deposit(refund.shift_id!)
      await ledgerOf(container).updateSwapShifts({ id: refund.id, next_sync_at: new Date() })
      await reconcile(container)
      const seen = await ledgerRow(container, { id: refund.id })
      expect(seen).toMatchObject({ status: "paid_manually", snapshot: expect.objectContaining({ status: "pending" }) })
      expect(seen.flags?.paid_twice ?? null).toBeNull()

      // The service sends that deposit back to the merchant (its shift was too late): nobody was paid twice after all.
      await env.control.walk(refund.shift_id!, ["refund", "refunding", "refunded"])
      await api.post(`/admin/crypto-swap/shifts/${refund.id}/sync`, {}, admin)
      const sentBack = await ledgerRow(container, { id: refund.id })
      expect(sentBack.status).toBe("paid_manually")
      expect(sentBack.flags?.paid_twice ?? null).toBeNull()
    })

    it("waits for a refund address before making the refund shift, or records a manual refund", async () => {
      const container = getContainer()
      const first = await settledOrder()
      await api.post(`/admin/payments/${first.payment.id}/refund`, { amount: 10 }, admin)
      const [waiting] = await waitFor(
        "the first refund to be recorded",
        () => ledgerOf(container).listSwapShifts({ kind: "refund", refund_of_shift_id: first.shiftId }),
        (rows) => rows.length === 1
      )
      expect(waiting).toMatchObject({ status: "address_needed", shift_id: null, flags: { address_needed: true } })
      const given = await api.post(`/admin/crypto-swap/shifts/${waiting.id}/refund-address`, { address: BTC_REFUND }, admin)
      expect(given.data.shift).toMatchObject({ status: "waiting", settle_address: BTC_REFUND })
      expect(given.data.shift.shift_id).toEqual(expect.any(String))

      // The shopper can give it too, on their payment page.
      const third = await settledOrder()
      await api.post(`/admin/payments/${third.payment.id}/refund`, { amount: 7 }, admin)
      await waitFor(
        "the third refund to be recorded",
        () => ledgerOf(container).listSwapShifts({ kind: "refund", refund_of_shift_id: third.shiftId }),
        (rows) => rows.length === 1
      )
      await api.post(
        `/store/crypto-swap/payment-sessions/${third.session.id}/refund-address`,
        { cart_id: third.cart.id, address: BTC_REFUND },
        shop.headers
      )
      const [fromShopper] = await ledgerOf(container).listSwapShifts({ kind: "refund", refund_of_shift_id: third.shiftId })
      expect(fromShopper).toMatchObject({ status: "waiting", settle_address: BTC_REFUND, amount_due: "7" })

      const second = await settledOrder()
      await api.post(`/admin/payments/${second.payment.id}/refund`, { amount: 5 }, admin)
      const [manual] = await waitFor(
        "the second refund to be recorded",
        () => ledgerOf(container).listSwapShifts({ kind: "refund", refund_of_shift_id: second.shiftId }),
        (rows) => rows.length === 1
      )
      const marked = await api.post(`/admin/crypto-swap/shifts/${manual.id}/mark-refunded`, { note: "paid by bank transfer" }, admin)
      expect(marked.data.shift).toMatchObject({ status: "paid_manually", terminal: true })
      expect(marked.data.shift.events.at(-1)).toMatchObject({ action: "marked_refunded", source: "admin" })
      expect((await failing(api.post(`/admin/crypto-swap/shifts/${manual.id}/mark-refunded`, {}, admin))).status).toBe(400)
    })

    it("leaves a refund whose mark as paid by other means stopped partway to be made or marked, never waiting on nothing", async () => {
      const container = getContainer()
      const { payment } = await settledOrder({ deposit_coin: "BTC", deposit_network: "bitcoin", refund_address: BTC_REFUND })
      // The service refuses the refund shift for now: the refund waits, its make-the-shift action open.
      env.sandbox.addFault({ method: "POST", path: "/v2/shifts/fixed", status: 400, body: JSON.stringify({ error: { message: "Invalid address" } }), times: 100 })
      await api.post(`/admin/payments/${payment.id}/refund`, { amount: 10 }, admin)
      const [refund] = await waitFor(
        "the refund to be recorded",
        () => ledgerOf(container).listSwapShifts({ kind: "refund", payment_id: payment.id }),
        (rows) => rows.length === 1
      )
      await reconcile(container)
      const making = async () => (await ledgerOf(container).listSwapShiftActions({ swap_shift_id: refund.id, kind: "create_refund_shift" }))[0]
      expect(await making()).toMatchObject({ state: "pending", last_error: expect.stringContaining("Invalid address") })

      // The mark's write of the refund's status fails after its first write, as a process stopped there would leave it.
      const ledger = ledgerOf(container)
      const update = ledger.updateSwapShifts.bind(ledger)
      const lost = jest.spyOn(ledger, "updateSwapShifts").mockImplementation(((data: { status?: string }, ...rest: unknown[]) =>
        data?.status === "paid_manually" ? Promise.reject(new Error(LOST_CONNECTION)) : (update as Function)(data, ...rest)) as never)
      try {
        expect((await failing(api.post(`/admin/crypto-swap/shifts/${refund.id}/mark-refunded`, {}, admin))).status).toBeGreaterThanOrEqual(400)
      } finally {
        lost.mockRestore()
      }

      // Still a refund to make: once the service takes it, its shift is made.
      expect(await making()).toMatchObject({ state: "pending", outcome: null })
      await env.control.clearFaults()
      const retried = await api.post(`/admin/crypto-swap/shifts/${refund.id}/retry`, {}, admin)
      expect(retried.data.shift).toMatchObject({ status: "waiting", shift_id: expect.any(String) })
    })
  },
})
