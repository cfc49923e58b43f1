import { medusaIntegrationTestRunner } from "@medusajs/test-utils"
import { Modules } from "@medusajs/framework/utils"
import { asksAbout, useSandbox, type LoggedRequest } from "../helpers/sandbox"
import { createStoreFixture, PROVIDERS, type StoreFixture } from "../helpers/store-fixtures"
import { failing, storefront } from "../helpers/storefront"
import { adminHeaders } from "../helpers/admin"
import { ledgerOf, ledgerRow, LOST_CONNECTION, orderWithPayments, placedOnConfirmedDeposit, reconcile, syncLosingActionRecords } from "../helpers/ledger"
import { waitFor } from "../helpers/wait-for"
import { emittedNamed } from "../helpers/events"
import { syncShiftWorkflow } from "../../src/workflows/sync-shift"

jest.setTimeout(240_000)

const env = useSandbox()
const BTC = { deposit_coin: "BTC", deposit_network: "bitcoin" }
const BTC_REFUND = "bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq"
/** The documented default of `reconcile.maxActionAttempts`. */
const MAX_ATTEMPTS = 10

function captureCount(order: Awaited<ReturnType<typeof orderWithPayments>>) {
  return (order?.payments ?? []).reduce((count: number, payment: any) => count + payment.captures.length, 0)
}

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

    async function paySession(data: Record<string, unknown> = BTC) {
      const cart = await shop.createCart()
      const { session } = await shop.createPaymentSession(cart.id, PROVIDERS.default, data)
      return { cart, session, shiftId: session.data.shift_id as string }
    }

    async function placedOnDepositInFlight() {
      const container = getContainer()
      const { cart, shiftId, order } = await placedOnConfirmedDeposit(container, shop, env.control, PROVIDERS.default, BTC)
      return { container, cart, shiftId, placed: order }
    }

    it("keeps the observation when an action fails, backs off visibly, and asks for attention after the configured attempts", async () => {
      const container = getContainer()
      const emitted = jest.spyOn(container.resolve(Modules.EVENT_BUS), "emit")
      const { shiftId } = await paySession()
      await env.control.deposit(shiftId)
      await reconcile(container)
      const row = await ledgerRow(container, { shift_id: shiftId })
      // The shopper gave an address earlier; the service refuses it when the shift asks for one.
      await ledgerOf(container).updateSwapShifts({ id: row.id, refund_address: BTC_REFUND })
      await env.control.addFault({
        method: "POST",
        path: "/v2/shifts/*/set-refund-address",
        status: 400,
        body: JSON.stringify({ error: { message: "Invalid refund address" } }),
      })
      await env.control.setStatus(shiftId, "refund", "refund required")
      await reconcile(container)

      // The observation stands although the action failed.
      const observed = await ledgerRow(container, { id: row.id })
      expect(observed.status).toBe("refund")
      expect(observed.events.map((event) => event.to_status)).toContain("refund")
      const [action] = await ledgerOf(container).listSwapShiftActions({ swap_shift_id: row.id, kind: "set_refund_address" })
      expect(action).toMatchObject({ state: "pending", attempts: 1, last_error: expect.stringContaining("Invalid refund address") })
      expect(action.next_attempt_at).not.toBeNull()

      for (let tick = 1; tick < MAX_ATTEMPTS + 2; tick += 1) await reconcile(container)
      const [given] = await ledgerOf(container).listSwapShiftActions({ swap_shift_id: row.id, kind: "set_refund_address" })
      expect(given).toMatchObject({ state: "attention", attempts: MAX_ATTEMPTS })
      expect(emittedNamed(emitted, "crypto-swap.shift.attention")).toHaveLength(1)
      // Why, for a subscriber that tells the merchant: the attempts ran out, with the last error.
      expect(emittedNamed(emitted, "crypto-swap.shift.attention")[0].data).toMatchObject({
        id: row.id,
        action: "set_refund_address",
        reason: "failed",
        error: expect.stringContaining("Invalid refund address"),
      })

      const { data } = await api.get("/admin/crypto-swap/status", admin)
      expect(data.attention).toEqual([
        expect.objectContaining({
          id: row.id,
          status: "refund",
          action: "set_refund_address",
          attempts: MAX_ATTEMPTS,
          last_error: expect.stringContaining("Invalid refund address"),
        }),
      ])
      expect(JSON.stringify(data)).not.toContain(env.sandbox.account.secret)

      // Waiting for an admin: more ticks try nothing.
      await reconcile(container)
      expect((await ledgerOf(container).listSwapShiftActions({ swap_shift_id: row.id }))[0].attempts).toBe(MAX_ATTEMPTS)

      // The cause is fixed; the admin retries.
      await env.control.clearFaults()
      const retried = await api.post(`/admin/crypto-swap/shifts/${row.id}/retry`, {}, admin)
      expect(retried.data.shift.actions).toEqual([expect.objectContaining({ kind: "set_refund_address", state: "done", attempts: 1, last_error: null })])
      const shift = await (await fetch(`${env.sandbox.baseUrl}/v2/shifts/${shiftId}`)).json()
      expect(shift.refundAddress).toBe(BTC_REFUND)
      expect((await api.get("/admin/crypto-swap/status", admin)).data.attention).toEqual([])
    })

    it("tells a transition a sync recorded once, though the sync stopped before its end: the next one tells it", async () => {
      const container = getContainer()
      const emitted = jest.spyOn(container.resolve(Modules.EVENT_BUS), "emit")
      const { shiftId } = await paySession()
      // Recorded by the subscriber of the shift's creation, beside the request.
      const row = await waitFor("the new shift's ledger row", () => ledgerOf(container).listSwapShifts({ shift_id: shiftId }), (rows) => rows.length === 1).then(([found]) => found)
      await env.control.deposit(shiftId)
      await env.control.setStatus(shiftId, "processing")
      // The sync records the confirmed deposit, then loses its database as it records the authorize it planned (as a
      // process killed there would stop): the transition is recorded, its event not sent.
      expect(await syncLosingActionRecords(container, row.id)).toEqual([LOST_CONNECTION])
      const told = () => emittedNamed(emitted, "crypto-swap.shift.deposit_confirmed").filter((message: { data: { id: string } }) => message.data.id === row.id)
      expect(await ledgerRow(container, { id: row.id })).toMatchObject({ status: "processing" })
      expect(told()).toEqual([])

      await syncShiftWorkflow(container).run({ input: { ledger_id: row.id, source: "poll" } })
      expect(told()).toEqual([expect.objectContaining({ data: { id: row.id, status: "processing", stage: "deposit_confirmed" } })])
      await syncShiftWorkflow(container).run({ input: { ledger_id: row.id, source: "poll" } })
      expect(told()).toHaveLength(1)
      expect((await ledgerRow(container, { id: row.id })).unsent_events).toBeNull()
    })

    it("records a refund owed instead of capturing when the order was canceled while authorized, then the shift settled", async () => {
      const emitted = jest.spyOn(getContainer().resolve(Modules.EVENT_BUS), "emit")
      const { container, cart, shiftId, placed } = await placedOnDepositInFlight()
      expect(placed.payments[0].captured_at).toBeNull()

      await api.post(`/admin/orders/${placed.id}/cancel`, {}, admin)
      const canceled = await orderWithPayments(container, cart.id)
      expect(canceled!.payments[0].canceled_at).not.toBeNull()
      expect(canceled!.payments[0].data.refund_owed).toBeUndefined()

      await env.control.walk(shiftId, ["settling", "settled"])
      await reconcile(container)
      // Nothing left to do: the next tick neither reads the shift nor tries the capture again.
      await env.control.clearRequests()
      await reconcile(container)

      expect(captureCount(await orderWithPayments(container, cart.id))).toBe(0)
      const row = await ledgerRow(container, { shift_id: shiftId })
      expect(row).toMatchObject({ status: "settled", captured_at: null, refund_owed: row.settle_amount })
      expect(row.refund_owed).toMatch(/^\d+(\.\d+)?$/)
      const [capture] = await ledgerOf(container).listSwapShiftActions({ swap_shift_id: row.id, kind: "capture" })
      expect(capture).toMatchObject({ state: "done", attempts: 1 })
      // Read again only for a deposit sent to it again, about an hour on (reconcile.openAddressSeconds).
      expect(new Date(row.next_sync_at!).getTime()).toBeGreaterThan(Date.now() + 30 * 60_000)
      expect((await env.control.requests()).filter((request: LoggedRequest) => asksAbout(request, shiftId))).toEqual([])
      expect(emittedNamed(emitted, "crypto-swap.shift.refund_owed")).toHaveLength(1)

      const { data } = await api.get("/admin/crypto-swap/status", admin)
      expect(data.refund_owed).toEqual([
        expect.objectContaining({ id: row.id, order_id: placed.id, refund_owed: row.settle_amount, settle_coin: "USDC" }),
      ])
    })

    it("takes an action whose record failed after it ran for not done, never for failed: an order placed is never listed as paid with no order", async () => {
      const container = getContainer()
      const emitted = jest.spyOn(container.resolve(Modules.EVENT_BUS), "emit")
      const { cart, shiftId } = await paySession()
      await env.control.deposit(shiftId)
      await env.control.setStatus(shiftId, "processing")
      const ledger = ledgerOf(container)
      const history = ledger.createSwapShiftEvents.bind(ledger) as (data: any, context?: any) => Promise<unknown>
      // The authorize placed the order; its history entry loses the database.
      const lost = jest.spyOn(ledger, "createSwapShiftEvents").mockImplementation((async (data: any, context?: any) => {
        if (!Array.isArray(data) && data.action === "authorized") {
          lost.mockRestore()
          throw new Error(LOST_CONNECTION)
        }
        return history(data, context)
      }) as never)
      await reconcile(container)
      lost.mockRestore()
      await reconcile(container)

      const row = await ledgerRow(container, { shift_id: shiftId })
      expect(await orderWithPayments(container, cart.id)).toBeTruthy()
      const [authorize] = await ledger.listSwapShiftActions({ swap_shift_id: row.id, kind: "authorize" })
      // The lost record counted as an attempt (backed off, on the merchant's list should it go on), nothing more.
      expect({ paid_no_order_since: row.paid_no_order_since, authorize: [authorize.state, authorize.attempts], told: emittedNamed(emitted, "crypto-swap.shift.paid_no_order") }).toEqual({
        paid_no_order_since: null,
        authorize: ["done", 2],
        told: [],
      })
      expect(row.events.filter((event) => event.action === "authorized")).toHaveLength(1)
    })

    it("tells what an action found once, though sending it failed: the next sync tells it", async () => {
      const bus = getContainer().resolve(Modules.EVENT_BUS)
      const emit = bus.emit.bind(bus) as (messages: any, options?: any) => Promise<void>
      let refused = false
      const sent: Array<{ name: string; data: { id: string } }> = []
      jest.spyOn(bus, "emit").mockImplementation((async (messages: any, options?: any) => {
        const list = Array.isArray(messages) ? messages : [messages]
        if (!refused && list.some((message: { name: string }) => message.name === "crypto-swap.shift.refund_owed")) {
          refused = true
          throw new Error("event bus unavailable")
        }
        await emit(messages, options)
        sent.push(...list)
      }) as never)
      const { container, shiftId, placed } = await placedOnDepositInFlight()
      await api.post(`/admin/orders/${placed.id}/cancel`, {}, admin)
      await env.control.walk(shiftId, ["settling", "settled"])
      await reconcile(container)
      const row = await ledgerRow(container, { shift_id: shiftId })
      expect({ refused, owed: row.refund_owed }).toEqual({ refused: true, owed: row.settle_amount })

      await reconcile(container)
      await reconcile(container)
      expect(sent.filter((message) => message.name === "crypto-swap.shift.refund_owed" && message.data.id === row.id)).toHaveLength(1)
      expect((await ledgerRow(container, { id: row.id })).unsent_events).toBeNull()
    })

    it("keeps the session of a canceled order's authorized payment, whose deposit is on its way, so its money is still owed back", async () => {
      const { container, cart, shiftId, placed } = await placedOnDepositInFlight()
      await api.post(`/admin/orders/${placed.id}/cancel`, {}, admin)
      // The shopper's page still knows the order's payment collection: a new session there would delete this one.
      const replaced = await failing(shop.createPaymentSession(cart.id, PROVIDERS.default, { deposit_coin: "ETH", deposit_network: "ethereum" }))
      // Refused before Medusa's workflow would make the new session (and fail to delete this one, a 500).
      expect({ status: replaced.status, message: replaced.data.message }).toEqual({ status: 400, message: expect.stringContaining("already on its way") })

      await env.control.walk(shiftId, ["settling", "settled"])
      await reconcile(container)
      const row = await ledgerRow(container, { shift_id: shiftId })
      expect({ refund_owed: row.refund_owed, captured_at: row.captured_at }).toEqual({ refund_owed: row.settle_amount, captured_at: null })
    })
  },
})
