import { medusaIntegrationTestRunner } from "@medusajs/test-utils"
import { ContainerRegistrationKeys } from "@medusajs/framework/utils"
import type { MedusaContainer } from "@medusajs/framework/types"
import { asksAbout, useSandbox, type LoggedRequest } from "../helpers/sandbox"
import { createStoreFixture, PROVIDERS, type StoreFixture } from "../helpers/store-fixtures"
import { storefront } from "../helpers/storefront"
import { ledgerOf, ledgerRow, reconcile, sessionMadeAt } from "../helpers/ledger"
import { waitFor } from "../helpers/wait-for"
import { configureReconciliation } from "../helpers/reconcile-options"

jest.setTimeout(240_000)

const env = useSandbox()
const BTC = { deposit_coin: "BTC", deposit_network: "bitcoin" }
const ETH = { deposit_coin: "ETH", deposit_network: "ethereum" }

/** The ledger row of a shift, once it has one (recording follows the session's creation by moments). */
const trackedShift = (container: MedusaContainer, shiftId: string) =>
  waitFor(
    `the ledger to track ${shiftId}`,
    () => ledgerOf(container).listSwapShifts({ shift_id: shiftId }),
    (rows) => rows.length === 1,
    { timeoutMs: 30_000, intervalMs: 100 }
  ).then(([row]) => row)

/** The tick's reads of these shifts: bulk reads naming any of them, and each one's own reads. */
async function readsOf(shifts: string[]) {
  const reads = ((await env.control.requests()) as LoggedRequest[]).filter((request) => request.method === "GET" && request.path.startsWith("/v2/shifts"))
  return {
    bulk: reads.filter((read) => read.path === "/v2/shifts" && shifts.some((id) => asksAbout(read, id))).length,
    single: shifts.map((id) => reads.filter((read) => read.path === `/v2/shifts/${id}`).length),
  }
}

async function upstreamStatus(shiftId: string) {
  return ((await (await fetch(`${env.sandbox.baseUrl}/v2/shifts/${shiftId}`)).json()) as { status: string }).status
}

medusaIntegrationTestRunner({
  testSuite: ({ api, getContainer }) => {
    let store: StoreFixture
    let shop: ReturnType<typeof storefront>

    beforeEach(async () => {
      store = await createStoreFixture(getContainer())
      shop = storefront(api, store)
    })

    it("tracks a shift from its creation, even when the shopper switches coin before any reconciliation, and sees a deposit to it", async () => {
      const container = getContainer()
      const cart = await shop.createCart()
      const { session: first } = await shop.createPaymentSession(cart.id, PROVIDERS.default, BTC)
      const firstShift = first.data.shift_id as string
      // Switched at once: Medusa deletes the first session before any tick could have read it.
      await shop.createPaymentSession(cart.id, PROVIDERS.default, ETH)

      const tracked = await trackedShift(container, firstShift)
      expect(tracked).toMatchObject({ payment_session_id: first.id, cart_id: cart.id, provider_id: PROVIDERS.default })

      await env.control.deposit(firstShift)
      await reconcile(container)
      const row = await ledgerRow(container, { shift_id: firstShift })
      expect(row.status).toBe("pending")
      expect(row.flags).toMatchObject({ paid_without_session: expect.any(String) })
    })

    it("finds a session whose creation went unrecorded after the worker was down for hours, reading only sessions it has not seen", async () => {
      const container = getContainer()
      await reconcile(container)
      const cart = await shop.createCart()
      const { session } = await shop.createPaymentSession(cart.id, PROVIDERS.default, BTC)
      const shiftId = session.data.shift_id as string
      const ledger = ledgerOf(container)
      // Lose what creation recorded, and wind the clock of the session and of the last tick back:
      // the session is two hours old and no tick has run since three hours ago.
      await ledger.deleteSwapShifts((await trackedShift(container, shiftId)).id)
      const sessionId = await sessionMadeAt(container, session.id, Date.now() - 2 * 60 * 60 * 1000)
      const [lastRun] = await ledger.listSwapReconciliationRuns({}, { order: { started_at: "DESC" }, take: 1 })
      expect(lastRun.discovered_through).toBeTruthy()
      await ledger.updateSwapReconciliationRuns({
        id: lastRun.id,
        discovered_through: new Date(Date.now() - 3 * 60 * 60 * 1000),
      })

      const { discovered } = await reconcile(container)
      expect(discovered).toBe(1)
      expect(await ledgerRow(container, { shift_id: shiftId })).toMatchObject({ payment_session_id: sessionId, cart_id: cart.id })
      // The next tick starts where this one stopped: nothing new, nothing found again.
      expect((await reconcile(container)).discovered).toBe(0)
    })

    it("lets the shopper switch to another payment method while the service is down, and cancels the shift once it allows", async () => {
      const container = getContainer()
      const cart = await shop.createCart()
      const { session } = await shop.createPaymentSession(cart.id, PROVIDERS.default, BTC)
      const shiftId = session.data.shift_id as string
      await reconcile(container)
      for (const fault of [
        { path: "/v2/shifts/*" },
        { path: "/v2/shifts/*/*" },
        { path: "/v2/cancel-order" },
        { path: "/v2/checkout/*" },
      ]) {
        await env.control.addFault({ ...fault, status: 503, body: JSON.stringify({ error: { message: "Service unavailable" } }) })
      }

      const { session: card } = await shop.createPaymentSession(cart.id, PROVIDERS.system, {})
      expect(card.provider_id).toBe(PROVIDERS.system)
      await env.control.clearFaults()
      expect(await upstreamStatus(shiftId)).toBe("waiting")

      // Past the service's first minutes, in which it refuses to cancel a shift.
      await env.control.advanceClock(6 * 60)
      const ledger = ledgerOf(container)
      const row = await ledgerRow(container, { shift_id: shiftId })
      await ledger.updateSwapShifts({ id: row.id, next_sync_at: new Date() })
      // The abandoned shift's cancel may have been tried (and backed off) while it was too young.
      const actions = await ledger.listSwapShiftActions({ swap_shift_id: row.id })
      if (actions.length) await ledger.updateSwapShiftActions(actions.map((action) => ({ id: action.id, next_attempt_at: null })))
      await reconcile(container)
      expect(await upstreamStatus(shiftId)).toBe("expired")
      await reconcile(container)
      expect(await ledgerRow(container, { shift_id: shiftId })).toMatchObject({ status: "expired", terminal: true })
    })

    it("still refuses to let a cart change under a shopper whose deposit the store has seen, without asking the service", async () => {
      const container = getContainer()
      const cart = await shop.createCart()
      const { session } = await shop.createPaymentSession(cart.id, PROVIDERS.default, BTC)
      const shiftId = session.data.shift_id as string
      await reconcile(container)
      await env.control.deposit(shiftId)
      await reconcile(container)
      await env.control.addFault({ path: "/v2/shifts/*", status: 503, body: JSON.stringify({ error: { message: "Service unavailable" } }) })
      await env.control.clearRequests()

      const refused = await api
        .post(`/store/payment-collections/${session.payment_collection_id}/payment-sessions`, { provider_id: PROVIDERS.system }, shop.headers)
        .catch((error: { response: { status: number; data: any } }) => error.response)
      // Medusa words a refused delete itself; the provider's reason is in the store's log.
      expect(refused.data.message).toBe("Could not delete all payment sessions")
      const query = container.resolve(ContainerRegistrationKeys.QUERY)
      const { data: sessions } = await query.graph({ entity: "payment_session", fields: ["id", "provider_id"], filters: { payment_collection_id: session.payment_collection_id } })
      expect(sessions.map((kept: { id: string }) => kept.id)).toEqual([session.id])
      expect((await env.control.requests()).filter((request: LoggedRequest) => asksAbout(request, shiftId))).toEqual([])
    })

    it("keeps the read budget when a bulk read fails: the shifts it left out are read one by one within it, the rest wait for the next tick", async () => {
      const container = getContainer()
      // A provider no earlier test of this file ticked: its budget is made at its first tick, from these options.
      configureReconciliation(container, PROVIDERS.refunding, { maxReadsPerMinute: 3 })
      const shifts: string[] = []
      for (let i = 0; i < 3; i++) {
        const { session } = await shop.createPaymentSession((await shop.createCart()).id, PROVIDERS.refunding, BTC)
        shifts.push(await trackedShift(container, session.data.shift_id as string).then((row) => row.shift_id!))
      }
      await env.control.addFault({ method: "GET", path: "/v2/shifts", status: 503, body: JSON.stringify({ error: { message: "Service unavailable" } }) })
      await env.control.clearRequests()
      const { stats } = await reconcile(container)
      await env.control.clearFaults()
      // One of the three reads went to the failed bulk read: two are left for the shifts one by one.
      expect((await readsOf(shifts)).single.sort()).toEqual([0, 1, 1])
      expect(stats.deferred).toBe(1)
    })

    it("reads hosted checkouts within the read budget too: the rest wait for the next tick", async () => {
      const container = getContainer()
      // A provider no earlier test of this file ticked: its budget is made at its first tick, from these options.
      configureReconciliation(container, PROVIDERS.checkout, { maxReadsPerMinute: 3 })
      for (let i = 0; i < 3; i++) {
        const { session } = await shop.createPaymentSession((await shop.createCart()).id, PROVIDERS.checkout, BTC)
        await env.control.payCheckout(session.data.checkout_id as string, "BTC", "bitcoin")
        await waitFor("the checkout's ledger row", () => ledgerOf(container).listSwapShifts({ checkout_id: session.data.checkout_id }), (rows) => rows.length === 1)
      }
      await env.control.clearRequests()
      const { stats } = await reconcile(container)
      // Each checkout costs a read of the checkout and one of its shift: one fits in the three, two wait.
      const reads = ((await env.control.requests()) as LoggedRequest[]).filter((request) => request.method === "GET" && /^\/v2\/(checkout|shifts)/.test(request.path))
      expect(reads.length).toBeLessThanOrEqual(3)
      expect(stats.deferred).toBe(2)
    })

    // Last in this file: the refusal is remembered by the process for an hour.
    it("reads open shifts in bulk, and one by one for an hour once the service refuses the bulk read, missing no deposit", async () => {
      const container = getContainer()
      const shifts: string[] = []
      for (let i = 0; i < 2; i++) {
        const { session } = await shop.createPaymentSession((await shop.createCart()).id, PROVIDERS.default, BTC)
        shifts.push(session.data.shift_id as string)
        await trackedShift(container, session.data.shift_id as string)
      }
      const [first, second] = shifts

      await reconcile(container)
      await env.control.clearRequests()
      await env.control.deposit(first)
      await reconcile(container)
      expect(await readsOf(shifts)).toEqual({ bulk: 1, single: [0, 0] })
      expect(await ledgerRow(container, { shift_id: first })).toMatchObject({ status: "pending" })

      // The bulk read failing for a moment: this tick's shifts are read one by one by their syncs, and the next tick reads in bulk again.
      const warn = jest.spyOn(container.resolve(ContainerRegistrationKeys.LOGGER), "warn")
      await env.control.addFault({ method: "GET", path: "/v2/shifts", status: 503, body: JSON.stringify({ error: { message: "Service unavailable" } }) })
      await env.control.setStatus(first, "processing")
      await env.control.clearRequests()
      await reconcile(container)
      expect(await ledgerRow(container, { shift_id: first })).toMatchObject({ status: "processing" })
      expect((await readsOf(shifts)).single).toEqual([1, 1])
      await env.control.clearFaults()
      await env.control.clearRequests()
      await reconcile(container)
      expect(await readsOf(shifts)).toEqual({ bulk: 1, single: [0, 0] })
      expect(warn).not.toHaveBeenCalledWith(expect.stringMatching(/bulk read/))

      // A service without the bulk read: this tick's shifts are read one by one, and the merchant is told.
      await env.control.addFault({ method: "GET", path: "/v2/shifts", status: 404, body: JSON.stringify({ error: { message: "Not found" } }) })
      await env.control.deposit(second)
      await reconcile(container)
      expect(await ledgerRow(container, { shift_id: second })).toMatchObject({ status: "pending" })
      expect(warn.mock.calls.map(([message]) => String(message))).toContainEqual(expect.stringMatching(/refused the bulk read.*one by one/))
      warn.mockRestore()

      // The next ticks do not ask for it again.
      await env.control.clearFaults()
      await env.control.clearRequests()
      await env.control.setStatus(first, "settling")
      await reconcile(container)
      expect(await readsOf(shifts)).toEqual({ bulk: 0, single: [1, 1] })
      expect(await ledgerRow(container, { shift_id: first })).toMatchObject({ status: "settling" })
    })
  },
})
