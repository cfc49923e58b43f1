import { medusaIntegrationTestRunner } from "@medusajs/test-utils"
import type { MedusaContainer } from "@medusajs/framework/types"
import { useSandbox } from "../helpers/sandbox"
import { PROVIDERS } from "../helpers/store-fixtures"
import { failing } from "../helpers/storefront"
import { adminHeaders } from "../helpers/admin"
import { ledgerOf } from "../helpers/ledger"

jest.setTimeout(240_000)

useSandbox()

const HOURS_AGO = (hours: number) => new Date(Date.now() - hours * 3_600_000)

/**
 * More of each kind of row than a page holds: 120 quiet waiting shifts, 25 waiting two hours past their
 * deadline and 5 that keep failing to sync (30 stuck), 200 settled, 30 actions that stopped retrying (and
 * 10 still retrying), and one of each money list: paid after switching coins (and one on an order's own collection), underpaid, owed back (and
 * one of each of these three already being refunded; one owed whose refund a crash left unrecorded), an open
 * refund, paid with no order.
 */
async function seedLedger(container: MedusaContainer) {
  const ledger = ledgerOf(container)
  const base = { provider_id: PROVIDERS.default, kind: "payment" as const, currency_code: "usd", amount_due: "10", deposit_coin: "BTC", deposit_network: "bitcoin" }
  const many = (count: number, prefix: string, row: Record<string, unknown>) =>
    Array.from({ length: count }, (_, i) => ({ ...base, shift_id: `${prefix}-${i}`, ...row }))
  await ledger.createSwapShifts([
    ...many(120, "quiet", { status: "waiting", expires_at: new Date(Date.now() + 3_600_000) }),
    ...many(25, "late", { status: "waiting", expires_at: HOURS_AGO(2) }),
    ...many(5, "failing", { status: "processing", sync_failures: 6 }),
  ])
  const settled = await ledger.createSwapShifts(many(200, "settled", { status: "settled", terminal: true, order_id: "order_x" }))
  await ledger.createSwapShiftActions([
    ...settled.slice(0, 30).map((row, i) => ({ swap_shift_id: row.id, kind: "capture" as const, state: "attention" as const, attempts: 8, last_error: `failure ${i}` })),
    ...settled.slice(30, 40).map((row) => ({ swap_shift_id: row.id, kind: "capture" as const, state: "pending" as const, attempts: 1 })),
  ])
  const deposit = { status: "settled", terminal: true, deposit_amount: "0.0003" }
  const [switched, switchedOnOrder, short, refunding, owed, unplaced, , owedRefunding, switchedRefunding] = await ledger.createSwapShifts([
    { ...base, ...deposit, shift_id: "switched", flags: { paid_without_session: true } },
    // Paid into a replaced session of what an edited order still owes: linked to that order, held by none of it.
    { ...base, ...deposit, shift_id: "switched-on-order", order_id: "order_edited", flags: { paid_without_session: true } },
    { ...base, ...deposit, shift_id: "short", flags: { underpaid: "8.5", underpaid_held: true } },
    { ...base, ...deposit, shift_id: "refunding", flags: { underpaid: "7" } },
    { ...base, ...deposit, shift_id: "owed", order_id: "order_y", refund_owed: "9.9", settle_coin: "USDC", settle_network: "ethereum" },
    { ...base, ...deposit, shift_id: "unplaced", cart_id: "cart_z", paid_no_order_since: HOURS_AGO(1) },
    { ...base, kind: "refund", status: "address_needed", shift_id: null, refund_id: "held_other", order_id: "order_y" },
    // Owed, and already being refunded (Refund via shift): listed among the refunds to fund, not as owed.
    { ...base, ...deposit, shift_id: "owed-refunding", order_id: "order_w", refund_owed: "4" },
    { ...base, ...deposit, shift_id: "switched-refunding", flags: { paid_without_session: true } },
    // Marked for its refund, which a crash kept from being recorded: still owed, for the merchant to ask again.
    { ...base, ...deposit, shift_id: "owed-crashed", order_id: "order_v", refund_owed: "2.5", flags: { held_refund: "held_x", held_amount: "2.5" } },
  ])
  await ledger.updateSwapShifts([owedRefunding, switchedRefunding].map((row) => ({ id: row.id, flags: { ...(row.flags ?? {}), held_refund: `held_${row.id}` } })))
  await ledger.createSwapShifts([
    ...[refunding, owedRefunding, switchedRefunding].map((row) => ({ ...base, kind: "refund" as const, status: "creating", terminal: false, refund_id: `held_${row.id}` })),
    // Two top-ups credited to the owed payment before its order was canceled, and one settled whose credit
    // had not run yet: owed back with it, as Refund via shift gives them back.
    ...["3.5", "1.25"].map((credited, i) => ({ ...base, ...deposit, kind: "top_up" as const, shift_id: `owed-top-up-${i}`, top_up_of: owed.id, settle_amount: "9", settle_coin: "USDC", settle_network: "ethereum", flags: { credited_amount: credited } })),
    { ...base, ...deposit, kind: "top_up" as const, shift_id: "owed-top-up-uncredited", top_up_of: owed.id, type: "fixed", settle_amount: "0.75", settle_coin: "USDC", settle_network: "ethereum" },
  ])
  // A top-up given back on its own already (a deposit sent again to its address): among the refunds, not owed.
  const [apart] = await ledger.createSwapShifts([{ ...base, ...deposit, kind: "top_up" as const, shift_id: "owed-top-up-apart", top_up_of: owed.id, settle_amount: "2", flags: { credited_amount: "2" } }])
  await ledger.createSwapShifts([{ ...base, kind: "refund" as const, status: "creating", terminal: false, refund_id: `held_${apart.id}` }])
  await ledger.createSwapShiftActions([{ swap_shift_id: unplaced.id, kind: "authorize", state: "pending", attempts: 2, last_error: "sold out" }])
  return { switched, switchedOnOrder, short, unplaced }
}

medusaIntegrationTestRunner({
  testSuite: ({ api, getContainer }) => {
    it("counts open shifts by status and pages the stuck and attention lists in SQL, never loading the ledger", async () => {
      const container = getContainer()
      const admin = await adminHeaders(container)
      const { switched, switchedOnOrder, short, unplaced } = await seedLedger(container)
      const ledger = ledgerOf(container)
      const listShifts = jest.spyOn(ledger, "listSwapShifts")
      const listActions = jest.spyOn(ledger, "listSwapShiftActions")
      // The route's one ledger read through the module (the last run) shows the spies watch the route's service.
      const listRuns = jest.spyOn(ledger, "listSwapReconciliationRuns")

      const { data } = await api.get("/admin/crypto-swap/status", admin)
      // Five open refunds (address_needed, and four creating) besides the 150 open payments.
      expect(data.open_shifts).toEqual({ total: 155, by_status: { waiting: 145, processing: 5, address_needed: 1, creating: 4 } })
      expect(data.stuck_shifts).toHaveLength(20)
      expect(data.pages).toEqual({ stuck_shifts: { count: 30, limit: 20, offset: 0 }, attention: { count: 30, limit: 20, offset: 0 } })
      expect(data.attention).toHaveLength(20)
      expect(data.attention[0]).toMatchObject({ status: "settled", order_id: "order_x", action: "capture", attempts: 8, last_error: expect.stringMatching(/^failure/) })
      expect(listRuns).toHaveBeenCalledTimes(1)
      expect(listShifts).not.toHaveBeenCalled()
      expect(listActions).not.toHaveBeenCalled()

      // Pages of 7 cover the 30 stuck shifts once each, oldest deadline first, the failing ones (no deadline) last.
      const stuck: Array<{ id: string; status: string; sync_failures: number }> = []
      for (let offset = 0; offset < 35; offset += 7) {
        const page = (await api.get(`/admin/crypto-swap/status?stuck_limit=7&stuck_offset=${offset}`, admin)).data
        expect(page.pages.stuck_shifts).toEqual({ count: 30, limit: 7, offset })
        stuck.push(...page.stuck_shifts)
      }
      expect(new Set(stuck.map((row) => row.id)).size).toBe(30)
      expect(stuck.slice(25).every((row) => row.status === "processing" && row.sync_failures === 6)).toBe(true)

      const last = (await api.get("/admin/crypto-swap/status?attention_limit=10&attention_offset=25", admin)).data
      expect(last.attention).toHaveLength(5)
      expect(last.pages.attention).toEqual({ count: 30, limit: 10, offset: 25 })

      // The money lists: the underpaid deposit already being refunded is not listed again.
      expect(data.paid_without_session).toHaveLength(2)
      expect(data.paid_without_session).toEqual(
        expect.arrayContaining([expect.objectContaining({ id: switched.id, deposit_amount: "0.0003", deposit_coin: "BTC" }), expect.objectContaining({ id: switchedOnOrder.id })])
      )
      expect(data.underpaid).toEqual([expect.objectContaining({ id: short.id, underpaid: "8.5", held: true, amount_due: "10" })])
      expect(data.refund_owed).toHaveLength(2)
      expect(data.refund_owed).toEqual(
        expect.arrayContaining([
          expect.objectContaining({ refund_owed: "9.9", owed_total: "15.4", settle_coin: "USDC", order_id: "order_y" }),
          expect.objectContaining({ refund_owed: "2.5", owed_total: "2.5", order_id: "order_v" }),
        ])
      )
      expect(data.refunds.map((refund: { status: string }) => refund.status).sort()).toEqual(["address_needed", "creating", "creating", "creating", "creating"])
      expect(data.paid_no_order).toEqual([expect.objectContaining({ id: unplaced.id, cart_id: "cart_z", attempts: 2, last_error: "sold out", next_attempt_at: null })])
    })

    it("lists as stuck a shift that is over but keeps failing to sync, as a status copy into its session that keeps failing does", async () => {
      const container = getContainer()
      const admin = await adminHeaders(container)
      const base = { provider_id: PROVIDERS.default, kind: "payment" as const, currency_code: "usd", amount_due: "10", status: "settled", terminal: true }
      const [failing] = await ledgerOf(container).createSwapShifts([
        { ...base, shift_id: "over-failing", sync_failures: 6, next_sync_at: new Date(), last_error: "could not copy status settled into payment session payses_x: connection lost" },
        // Retried once: not stuck yet.
        { ...base, shift_id: "over-retried", sync_failures: 1, next_sync_at: new Date() },
      ])
      const { data } = await api.get("/admin/crypto-swap/status", admin)
      expect(data.stuck_shifts.map((row: { id: string }) => row.id)).toEqual([failing.id])
    })

    it("answers 400 with the reason for a bad page", async () => {
      const admin = await adminHeaders(getContainer())
      for (const [query, reason] of [
        ["stuck_limit=0", /stuck_limit/],
        ["stuck_limit=201", /stuck_limit/],
        ["attention_offset=-1", /attention_offset/],
        ["attention_limit=ten", /attention_limit/],
        ["stuck_offset=1.5", /stuck_offset/],
        ["page=2", /page/],
      ] as const) {
        const refused = await failing(api.get(`/admin/crypto-swap/status?${query}`, admin))
        expect(refused.status).toBe(400)
        expect(refused.data.message).toMatch(reason)
      }
    })
  },
})
