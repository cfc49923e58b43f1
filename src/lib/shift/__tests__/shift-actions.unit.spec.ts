import { PaymentSessionStatus } from "@medusajs/framework/utils"
import { decideStatus, type StatusDecision, type StatusPolicy } from "../status-map"
import { awaitsOrderDecision, depositsKept, hasActions, hasPromptActions, isTerminal, planMarkedRefund, planShiftActions, planWithoutShift, type ShiftActionState } from "../shift-actions"
import { checkoutPayableUntil, nextSyncAt, retryAt } from "../sync-cadence"
import { freshPayment } from "./ledger-row-fixture"

const policy: StatusPolicy = { authorizeOn: "confirmed", placeOrder: "after_payment", amountDue: "50", underpaymentTolerancePercent: "0", overpaymentTolerancePercent: "1" }
const fresh = freshPayment
type ShiftSeen = { status: string; type?: string; issue?: string; refundAddress?: string; settleAmount?: string; deposits?: Array<{ status: string }> }
const plan = (row: Partial<ShiftActionState>, shift: ShiftSeen, changed = true) =>
  planShiftActions({ ...fresh, ...row }, shift, decideStatus(shift, policy), changed)

describe("planShiftActions", () => {
  it("authorizes once, when the deposit is confirmed", () => {
    expect(plan({}, { status: "processing" })).toMatchObject({ authorize: true, capture: false, events: ["crypto-swap.shift.deposit_confirmed"] })
    expect(plan({ authorized_at: new Date() }, { status: "processing" }, false)).toMatchObject({ authorize: false, events: [] })
  })

  it("places the order of a shift first seen settled, then captures once", () => {
    expect(plan({}, { status: "settled" })).toMatchObject({ authorize: true, capture: true })
    expect(plan({ authorized_at: new Date() }, { status: "settled" })).toMatchObject({ authorize: false, capture: true })
    expect(hasActions(plan({ authorized_at: new Date(), captured_at: new Date() }, { status: "settled" }, false))).toBe(false)
  })

  it("neither places nor captures once the money is owed back or an admin chose to refund instead", () => {
    expect(plan({ refund_owed: "25.5" }, { status: "settled" })).toMatchObject({ authorize: false, capture: false })
    const instead = plan({ flags: { refund_instead: { by: "user_1" } } }, { status: "settled" })
    // The capture stays planned: it records the settled amount as owed instead of capturing.
    expect(instead).toMatchObject({ authorize: false, capture: true })
    expect(plan({ flags: { refund_instead: { by: "user_1" } } }, { status: "processing" }).authorize).toBe(false)
  })

  it("cancels an expired session once", () => {
    expect(plan({}, { status: "expired" }).cancelExpired).toBe(true)
    expect(plan({ canceled_at: new Date() }, { status: "expired" }).cancelExpired).toBe(false)
  })

  it("ends nothing when a hosted checkout's pick expires while its page still takes another, and tells nobody", () => {
    const checkout = { type: "checkout", created_at: new Date(Date.now() - 60 * 60 * 1000) }
    expect(plan(checkout, { status: "expired" })).toMatchObject({ cancelExpired: false, events: [] })
    // Once the page no longer takes one, the payment ends and its expiry is told once, whenever its pick ran out.
    const closed = { type: "checkout", created_at: new Date(Date.now() - 31 * 24 * 60 * 60 * 1000) }
    expect(plan(closed, { status: "expired" }, false)).toMatchObject({ cancelExpired: true, events: ["crypto-swap.shift.expired"], flags: { expiry_told: true } })
    expect(plan({ ...closed, flags: { expiry_told: true } }, { status: "expired" }, false).events).toEqual([])
    // So does one whose shopper moved on (the session is gone): at once.
    expect(plan({ ...checkout, session_gone: true }, { status: "expired" })).toMatchObject({ cancelExpired: true, events: ["crypto-swap.shift.expired"] })
  })

  it("cancels an authorized payment whose deposit was refunded, and flags it", () => {
    const refunded = plan({ authorized_at: new Date() }, { status: "refunded" })
    expect(refunded).toMatchObject({ cancelRefunded: true, flags: { refunded: true } })
    expect(plan({}, { status: "refunded" }).cancelRefunded).toBe(false)
    // Top-ups it counted pay nothing now: given back by the same action, order or not.
    expect(plan({ flags: { credited_top_ups: ["cs_topup"] } }, { status: "refunded" }).cancelRefunded).toBe(true)
    expect(plan({ flags: { credited_top_ups: ["cs_topup"] }, canceled_at: new Date() }, { status: "refunded" }).cancelRefunded).toBe(false)
  })

  it("asks for a refund address once, and passes on one it knows", () => {
    const asking = plan({}, { status: "refund", issue: "incorrect amount" })
    expect(asking).toMatchObject({ setRefundAddress: false, flags: { address_needed: true } })
    expect(asking.events).toContain("crypto-swap.shift.refund_address_needed")
    expect(plan({ flags: { address_needed: true } }, { status: "refund" }, false).events).toEqual([])
    expect(plan({ refund_address: "bc1q" }, { status: "refund" })).toMatchObject({ setRefundAddress: true, flags: { address_needed: null } })
    expect(plan({ refund_address: "bc1q" }, { status: "refund", refundAddress: "bc1q" }).setRefundAddress).toBe(false)
    // A refund shift's refund address is the shopper's: the merchant's deposit never goes back there.
    expect(plan({ kind: "refund", refund_address: "bc1q" }, { status: "refund" })).toMatchObject({ setRefundAddress: false, flags: { address_needed: true }, events: ["crypto-swap.shift.refund"] })
  })

  it("keeps a refund paid short flagged until a judgement says it reached the shopper, who hears of it then", () => {
    const refundRow = { ...fresh, kind: "refund" as const, payment_session_id: null }
    const decided = (decision: Omit<StatusDecision, "session" | "action">, session = PaymentSessionStatus.ERROR): StatusDecision => ({ ...decision, session, action: "failed" })
    const short = decided({ stage: "underpaid", effectiveStatus: "settled", settledAmount: "0.0002", refundShort: "0.0001" })
    const flagged = planShiftActions(refundRow, { status: "settled" }, short, true)
    expect(flagged).toMatchObject({ flags: { refund_short: "0.0001" }, events: ["crypto-swap.shift.refund_short"] })
    // Never a payment's underpayment: no wait for a top-up, no decision at its end.
    expect(flagged.flags.underpaid ?? null).toBeNull()
    expect(flagged.flags.underpaid_since ?? null).toBeNull()
    const reached = decided({ stage: "refunded", effectiveStatus: "settled", settledAmount: "0.0003" })
    // The rest settled under `multiple` again: no change of status, still news for the shopper.
    const done = planShiftActions({ ...refundRow, flags: flagged.flags }, { status: "multiple" }, reached, false)
    expect(done).toMatchObject({ flags: { refund_short: null, refunded: true }, events: ["crypto-swap.shift.refunded"] })
    // Told once: a later change of status (another deposit to it) is no news for the shopper.
    expect(planShiftActions({ ...refundRow, flags: done.flags }, { status: "multiple" }, reached, true).events).toEqual([])
    // Still moving: neither cleared nor announced.
    const moving = decided({ stage: "deposit_confirmed", effectiveStatus: "processing" }, PaymentSessionStatus.PENDING)
    expect(planShiftActions({ ...refundRow, flags: flagged.flags }, { status: "multiple" }, moving, false)).toMatchObject({ flags: { refund_short: "0.0001" }, events: [] })
  })

  it("flags a refund whose merchant's deposit goes back, however many deposits it came in, and clears it once one holds", () => {
    const refundRow = { ...fresh, kind: "refund" as const, payment_session_id: null }
    const refundPlan = (shift: ShiftSeen) => planShiftActions(refundRow, shift, decideStatus(shift, policy), true).flags.sent_back
    expect(refundPlan({ status: "refund" })).toBe("refund")
    expect(refundPlan({ status: "refunded" })).toBe("refunded")
    expect(refundPlan({ status: "multiple", deposits: [{ status: "refunded" }, { status: "refunded" }] })).toBe("refunded")
    expect(refundPlan({ status: "multiple", deposits: [{ status: "refunded" }, { status: "refunding" }] })).toBe("refund")
    expect(refundPlan({ status: "multiple", deposits: [{ status: "refunded" }, { status: "settled" }] })).toBeNull()
    expect(refundPlan({ status: "waiting" })).toBeNull()
    // A payment's deposit going back is the shopper's matter, told by its stage.
    expect(plan({}, { status: "refunded" }).flags.sent_back).toBeUndefined()
  })

  it("counts the deposits a shift kept: one for a single status past waiting, each not sent back of several", () => {
    expect(depositsKept({ status: "waiting" })).toBe(0)
    expect(depositsKept({ status: "settled" })).toBe(1)
    expect(depositsKept({ status: "refunded" })).toBe(0)
    expect(depositsKept({ status: "multiple", deposits: [{ status: "settled" }, { status: "refund" }, { status: "processing" }] })).toBe(2)
    // An EVM re-sweep of one deposit is that deposit again.
    const swept = [{ status: "settled", depositHash: "0xa" }, { status: "settled", depositHash: "0xa" }, { status: "settled", depositHash: "0xb", issue: "duplicate" }]
    expect(depositsKept({ status: "multiple", deposits: swept })).toBe(1)
  })

  it("asks for a refund address when one deposit of a multiple shift is sent back", () => {
    const deposits = [{ status: "settled" }, { status: "refund" }]
    expect(plan({}, { status: "multiple", deposits }).flags).toMatchObject({ address_needed: true })
    expect(plan({ refund_address: "bc1q" }, { status: "multiple", deposits }).setRefundAddress).toBe(true)
  })

  it("flags review while it lasts, and an overpayment", () => {
    expect(plan({}, { status: "review", issue: "amount over max" }).flags).toMatchObject({ review: "amount over max" })
    expect(plan({ flags: { review: "x" } }, { status: "processing" }).flags).toMatchObject({ review: null })
    // The excess over the amount due (50), once above the tolerance (1 %).
    expect(plan({}, { status: "settled", type: "variable", settleAmount: "60" }).flags).toMatchObject({ overpaid: "10" })
    expect(plan({}, { status: "settled", type: "variable", settleAmount: "50.5" }).flags).toMatchObject({ overpaid: null })
  })

  it("gives back what settles above the amount due once captured, and again whenever more arrives (overpayment: refund)", () => {
    const refunding = { excess_refund_tolerance_percent: "1", authorized_at: new Date() }
    const settled = (amount: string) => ({ status: "settled", type: "variable", settleAmount: amount })
    expect(plan(refunding, settled("60"))).toMatchObject({ capture: true, refundExcess: true })
    expect(plan({ ...refunding, captured_at: new Date(), flags: { excess_refunded: "10" } }, settled("60")).refundExcess).toBe(false)
    // The shopper paid the address again: 15 more settled.
    expect(plan({ ...refunding, captured_at: new Date(), flags: { excess_refunded: "10" } }, settled("75")).refundExcess).toBe(true)
    // Dust above what was given back (within 1 % of the 50 due) is not worth a refund.
    expect(plan({ ...refunding, captured_at: new Date(), flags: { excess_refunded: "10" } }, settled("60.5")).refundExcess).toBe(false)
    expect(plan({ ...refunding, captured_at: new Date() }, { status: "multiple", type: "variable", deposits: [{ status: "settled" }, { status: "processing" }] }).refundExcess).toBe(false)
    // Announced whether given back or kept, once per increase.
    expect(plan({ authorized_at: new Date(), captured_at: new Date(), flags: { overpaid: "10" } }, settled("75"), false).events).toEqual(["crypto-swap.shift.paid_again"])
    expect(plan({ authorized_at: new Date(), captured_at: new Date(), flags: { overpaid: "25" } }, settled("75"), false).events).toEqual([])
    // Kept by default; owed back whole when the order was canceled.
    expect(plan({ authorized_at: new Date() }, settled("60")).refundExcess).toBe(false)
    expect(plan({ ...refunding, refund_owed: "60" }, settled("60")).refundExcess).toBe(false)
  })

  it("gives back whole what arrives after a payment's money was owed back or refunded, whatever the overpayment policy", () => {
    const settled = (amount: string) => ({ status: "settled", type: "variable", settleAmount: amount })
    // 45 owed back after the order was canceled; the shopper sent 3 more, then nothing.
    expect(plan({ refund_owed: "45" }, settled("48"))).toMatchObject({ capture: false, refundExcess: true, flags: { paid_after_given_back: "3" } })
    expect(plan({ refund_owed: "45" }, settled("48")).events).toContain("crypto-swap.shift.paid_again")
    expect(plan({ refund_owed: "45", flags: { paid_after_given_back: "3", excess_refunded: "3" } }, settled("48"), false)).toMatchObject({ refundExcess: false, events: [] })
    expect(plan({ refund_owed: "45" }, settled("45"))).toMatchObject({ refundExcess: false, flags: { paid_after_given_back: null } })
    // A held refund counts what it gave back; above the amount due is no overpayment kept by the merchant.
    const held = { flags: { held_refund: "held_x", held_amount: "25" } }
    expect(plan(held, settled("75"))).toMatchObject({ authorize: false, capture: false, refundExcess: true, flags: { paid_after_given_back: "50" } })
    expect(plan(held, settled("75")).flags.overpaid).toBeUndefined()
    // Medusa refunded the payment it captured (its amount, the amount due) when the cart could not complete:
    // what settled beyond it reached nobody.
    const medusaRefunded = { flags: { refunded_by_medusa: "pay_1" } }
    expect(plan(medusaRefunded, { status: "settled", type: "fixed", settleAmount: "60" })).toMatchObject({ refundExcess: true, flags: { paid_after_given_back: "10" } })
    expect(plan(medusaRefunded, { status: "settled", type: "fixed", settleAmount: "50" })).toMatchObject({ refundExcess: false, flags: { paid_after_given_back: null } })
    // What was paid above it before Medusa refunded is given back, but not announced as a payment made again.
    const overpaidOnce = { flags: { refunded_by_medusa: "pay_1", overpaid: "10", paid_after_given_back: "10" } }
    expect(plan(overpaidOnce, { status: "settled", type: "fixed", settleAmount: "60" }, false)).toMatchObject({ refundExcess: true, events: [] })
    // Captured, then its order canceled: Medusa's cancel refunded the amount due, so all above it goes back (an
    // overpayment kept with the sale too), above the tolerance; only what arrives after the cancel is told as paid again.
    const canceled = { authorized_at: new Date(), captured_at: new Date(), order_canceled_at: new Date(), overpayment_tolerance_percent: "1" }
    expect(plan({ ...canceled, flags: { overpaid: "10" } }, settled("60"), false)).toMatchObject({ refundExcess: true, events: [], flags: { paid_after_cancel: "10" } })
    expect(plan({ ...canceled, flags: { paid_after_cancel: "10" } }, settled("75"), false)).toMatchObject({ refundExcess: true, events: ["crypto-swap.shift.paid_again"] })
    expect(plan(canceled, settled("50.4"), false)).toMatchObject({ refundExcess: false, events: [] })
    // Its top-up's 30 counted toward the 50 due: Medusa gave back 20 of this shift's own 25, so 5 go back.
    expect(plan({ ...canceled, credit: "30" }, settled("25"), false)).toMatchObject({ refundExcess: true, flags: { paid_after_cancel: "5" } })
    expect(plan({ ...canceled, credit: "30" }, settled("20"), false)).toMatchObject({ refundExcess: false, flags: { paid_after_cancel: "0" } })
    // 10 of that credit a shortfall the merchant accepted, never received: Medusa's refund covered this shift's 30 and the 10 sent late.
    expect(plan({ ...canceled, credit: "30", flags: { accepted_short: "10" } }, settled("30"), false)).toMatchObject({ refundExcess: false })
    // Refunded instead before it settled: nothing is counted until the capture records what is owed.
    expect(plan({ flags: { refund_instead: { by: "user_1" } } }, settled("75")).refundExcess).toBe(false)
    // Within the overpayment tolerance of the 50 due (1 %, kept or refunded alike): a final figure a little
    // above the estimate owed is not new money.
    expect(plan({ refund_owed: "45", overpayment_tolerance_percent: "1" }, settled("45.4")).refundExcess).toBe(false)
    expect(plan({ refund_owed: "45", overpayment_tolerance_percent: "1" }, settled("48")).refundExcess).toBe(true)
    // So is what arrives after a held amount: flagged, and given back above the tolerance.
    expect(plan({ ...held, overpayment_tolerance_percent: "1" }, settled("25.4"))).toMatchObject({ refundExcess: false, flags: { paid_after_given_back: "0.4" } })
    expect(plan({ ...held, overpayment_tolerance_percent: "1" }, settled("25.6"))).toMatchObject({ refundExcess: true, flags: { paid_after_given_back: "0.6" } })
    // A deposit still on its way neither clears what was flagged nor announces it again once settled.
    const inFlight = { status: "multiple", type: "variable", deposits: [{ status: "settled" }, { status: "processing" }] }
    expect(plan({ refund_owed: "45", flags: { paid_after_given_back: "3" } }, inFlight, false).flags).toMatchObject({ paid_after_given_back: "3" })
  })

  it("gives back whole what arrives at a top-up's address after it was credited or refunded, and nothing before", () => {
    const settled = (amount: string) => ({ status: "settled", type: "variable", settleAmount: amount })
    const topUp = { kind: "top_up" as const, amount_due: "20", overpayment_tolerance_percent: "1", excess_refund_tolerance_percent: null }
    // Credited 20; the shopper sent 5 more to the same address: all of it goes back, whatever the policy.
    const credited = { ...topUp, captured_at: new Date(), flags: { credited_amount: "20" } }
    expect(plan(credited, settled("25"))).toMatchObject({ refundExcess: true, creditTopUp: false, flags: { paid_after_credit: "5" } })
    expect(plan(credited, settled("25")).events).toContain("crypto-swap.shift.paid_again")
    expect(plan(credited, settled("20"))).toMatchObject({ refundExcess: false, flags: { paid_after_credit: null } })
    // Within the tolerance (1 % of the 20 due): a final figure a little above an estimate credited, kept.
    expect(plan(credited, settled("20.1"))).toMatchObject({ refundExcess: false, flags: { paid_after_credit: "0.1" } })
    // Refunded because its payment took no more: what arrives later goes back apart from the held amount.
    const held = { ...topUp, captured_at: new Date(), flags: { held_refund: "held_x", held_amount: "20" } }
    expect(plan(held, settled("35"))).toMatchObject({ refundExcess: true, flags: { paid_after_given_back: "15" } })
    // Before its credit, a top-up's money is its payment's (credited whole), and one credited before its amount was kept is not judged.
    expect(plan(topUp, settled("25"))).toMatchObject({ creditTopUp: true, refundExcess: false })
    expect(plan({ ...topUp, captured_at: new Date() }, settled("25")).refundExcess).toBe(false)
  })

  it("never places or captures money an admin is already giving back through a refund shift", () => {
    const held = { flags: { held_refund: "csshift_refund" } }
    expect(plan(held, { status: "processing", type: "variable", settleAmount: "50" })).toMatchObject({ authorize: false, capture: false })
    expect(plan(held, { status: "settled", type: "variable", settleAmount: "50" })).toMatchObject({ authorize: false, capture: false })
  })

  it("records the refunds of a payment's held money a crash left unrecorded after its mark, and only those", () => {
    const settled = { status: "settled", type: "fixed", settleAmount: "50" }
    const held = { flags: { refund_instead: { by: "user_1" }, held_refund: "held_x", held_amount: "50" } }
    const pending = { flags: { ...held.flags, held_pending: { address: null, memo: null } } }
    expect(plan(pending, settled, false)).toMatchObject({ capture: false, refundExcess: true })
    expect(hasActions(plan(pending, settled, false))).toBe(true)
    expect(plan(held, settled, false)).toMatchObject({ capture: false, refundExcess: false })
    expect(plan({ kind: "top_up", flags: pending.flags }, settled, false).refundExcess).toBe(false)
  })

  it("keeps a variable deposit's underpayment until a judgement says the money covers the amount due", () => {
    const short = { flags: { underpaid: "3" } }
    expect(plan({}, { status: "processing", type: "variable", settleAmount: "3" })).toMatchObject({ authorize: false, flags: { underpaid: "3" } })
    // A later read without the figure neither clears it nor authorizes.
    expect(plan(short, { status: "processing", type: "variable" })).toMatchObject({ authorize: false, flags: { underpaid: "3" } })
    expect(plan(short, { status: "processing", type: "variable", settleAmount: "50" })).toMatchObject({ authorize: true, flags: { underpaid: null } })
  })

  it("owes back a late deposit to a payment whose order, placed before payment, its expiry canceled, never also as paid without a session", () => {
    const canceled = { session_gone: true, order_canceled_at: new Date() }
    for (const shift of [{ status: "review", issue: "order expired" }, { status: "settled" }]) {
      const judged = plan(canceled, { ...shift, type: "fixed", settleAmount: "50" })
      expect({ flag: judged.flags.paid_without_session ?? null, events: judged.events }).toEqual({ flag: null, events: expect.not.arrayContaining(["crypto-swap.shift.paid_without_session"]) })
    }
    expect(plan(canceled, { status: "settled", type: "fixed", settleAmount: "50" }).capture).toBe(true)
    expect(plan({ session_gone: true }, { status: "settled", type: "fixed", settleAmount: "50" }).flags.paid_without_session).toBe("settled")
  })

  it("starts the wait for a top-up once a short deposit is confirmed, never while it is in review", () => {
    const inReview = plan({ underpayment_wait_minutes: 0 }, { status: "review", type: "variable", issue: "amount under min", settleAmount: "3" })
    expect(inReview).toMatchObject({ authorize: false, settleUnderpayment: false, flags: { underpaid: "3" } })
    expect(inReview.flags.underpaid_since ?? null).toBeNull()
    // Released from review hours later: the shopper may pay the rest from now on.
    const settled = plan({ underpayment_wait_minutes: 60, flags: inReview.flags }, { status: "settled", type: "variable", settleAmount: "3" })
    expect(settled).toMatchObject({ settleUnderpayment: false, flags: { underpaid: "3", underpaid_since: expect.any(String) } })
  })

  it("cancels a waiting shift whose session is gone, at the waiting cadence rather than the prompt one", () => {
    const abandoned = plan({ session_gone: true }, { status: "waiting" }, false)
    expect(abandoned.cancelAbandoned).toBe(true)
    expect(hasActions(abandoned)).toBe(true)
    expect(hasPromptActions(abandoned)).toBe(false)
    expect(plan({ session_gone: false }, { status: "waiting" }, false).cancelAbandoned).toBe(false)
    // Once a deposit is seen the shift is the shopper's money on its way: never cancelled.
    expect(plan({ session_gone: true }, { status: "pending" }).cancelAbandoned).toBe(false)
    expect(plan({ session_gone: true, kind: "refund" }, { status: "waiting" }).cancelAbandoned).toBe(false)
  })

  it("cancels the waiting shift of an order canceled before anything was paid (placed before payment)", () => {
    expect(plan({ order_canceled_at: new Date() }, { status: "waiting" }, false).cancelAbandoned).toBe(true)
    expect(plan({ order_canceled_at: new Date() }, { status: "pending" }).cancelAbandoned).toBe(false)
    expect(plan({ order_canceled_at: new Date(), authorized_at: new Date() }, { status: "waiting" }, false).cancelAbandoned).toBe(false)
  })

  it("refunds through Medusa what a captured payment of a canceled order kept, without reading its shift more often", () => {
    const captured = { authorized_at: new Date(), captured_at: new Date() }
    expect(plan(captured, { status: "settled" }, false).refundCanceledCapture).toBe(false)
    const canceled = plan({ ...captured, order_canceled_at: new Date() }, { status: "settled" }, false)
    expect(canceled).toMatchObject({ refundCanceledCapture: true, capture: false, authorize: false })
    // A tick syncs it in full to run the refund, at the pace of its retries rather than the in-flight cadence.
    expect(hasActions(canceled)).toBe(true)
    expect(hasPromptActions(canceled)).toBe(false)
    // Done: its quiet reads stay quiet.
    const refunded = plan({ ...captured, order_canceled_at: new Date(), flags: { canceled_order_refunded: true } }, { status: "settled" }, false)
    expect(refunded.refundCanceledCapture).toBe(false)
    expect(hasActions(refunded)).toBe(false)
    // Not captured: the capture records it owed instead.
    expect(plan({ authorized_at: new Date(), order_canceled_at: new Date() }, { status: "settled" }).refundCanceledCapture).toBe(false)
    expect(plan({ ...captured, order_canceled_at: new Date(), kind: "top_up" }, { status: "settled" }, false).refundCanceledCapture).toBe(false)
  })

  it("plans only the refund of money kept on a canceled order when the shift can't be read: Medusa refunds it without the service", () => {
    const row: ShiftActionState = { ...fresh, authorized_at: new Date(), captured_at: new Date(), order_canceled_at: new Date() }
    const withoutShift = planWithoutShift(row)!
    expect(withoutShift.refundCanceledCapture).toBe(true)
    expect(Object.entries(withoutShift).filter(([, value]) => value === true).map(([key]) => key)).toEqual(["refundCanceledCapture"])
    expect(withoutShift.flags).toEqual({})
    expect(planWithoutShift({ ...row, order_canceled_at: null })).toBeNull()
    expect(planWithoutShift({ ...row, captured_at: null })).toBeNull()
    expect(planWithoutShift({ ...row, flags: { canceled_order_refunded: true } })).toBeNull()
    expect(planWithoutShift({ ...row, kind: "top_up" })).toBeNull()
  })

  it("never authorizes a deposit that lands after its order, placed before payment, was canceled: the capture records it owed", () => {
    const canceled = { order_canceled_at: new Date() }
    expect(plan(canceled, { status: "processing" })).toMatchObject({ authorize: false, capture: false })
    expect(plan(canceled, { status: "settled" })).toMatchObject({ authorize: false, capture: true })
    // Settled short: owed back whole, never settled as an underpayment of the canceled order.
    const short = plan({ ...canceled, amount_due: "50", underpayment_wait_minutes: 0, flags: { underpaid: "20", underpaid_since: "2026-01-01T00:00:00.000Z" } }, {
      status: "settled",
      type: "variable",
      settleAmount: "20",
    })
    expect(short).toMatchObject({ authorize: false, capture: true, settleUnderpayment: false })
    // Already being refunded through a refund shift (the merchant gave it back before canceling): owed nothing more.
    const heldShort = plan({ ...canceled, amount_due: "50", flags: { underpaid: "20", held_refund: "held_1", held_amount: "20" } }, {
      status: "settled",
      type: "variable",
      settleAmount: "20",
    })
    expect(heldShort).toMatchObject({ authorize: false, capture: false })
    // An order canceled after its payment was authorized keeps that path: Medusa cancels the payment, the capture finds it.
    expect(plan({ ...canceled, authorized_at: new Date() }, { status: "settled" })).toMatchObject({ authorize: false, capture: true })
  })

  it("cancels a waiting variable shift whose page nobody looked at for idleMinutes", () => {
    const seen = (minutesAgo: number) => new Date(Date.now() - minutesAgo * 60_000)
    const idle = { type: "variable", idle_minutes: 60, created_at: seen(120) }
    expect(plan({ ...idle, last_viewed_at: seen(61) }, { status: "waiting" }, false).cancelAbandoned).toBe(true)
    expect(plan({ ...idle, last_viewed_at: seen(5) }, { status: "waiting" }, false).cancelAbandoned).toBe(false)
    // Never looked at since it was made: counted from its creation.
    expect(plan({ ...idle, created_at: seen(30) }, { status: "waiting" }, false).cancelAbandoned).toBe(false)
    // A fixed shift runs out on its own within minutes; a deposit on its way is never cancelled.
    expect(plan({ ...idle, type: "fixed", last_viewed_at: seen(61) }, { status: "waiting" }, false).cancelAbandoned).toBe(false)
    expect(plan({ ...idle, last_viewed_at: seen(61) }, { status: "pending" }, false).cancelAbandoned).toBe(false)
    // An unpaid top-up holds an open variable order too; a refund shift is the merchant's to fund.
    expect(plan({ ...idle, kind: "top_up", last_viewed_at: seen(61) }, { status: "waiting" }, false).cancelAbandoned).toBe(true)
    expect(plan({ ...idle, kind: "refund", last_viewed_at: seen(61) }, { status: "waiting" }, false).cancelAbandoned).toBe(false)
    // An order placed before payment: that shopper is on the order's page, not the payment's.
    expect(plan({ ...idle, last_viewed_at: seen(61), order_id: "order_1" }, { status: "waiting" }, false).cancelAbandoned).toBe(false)
  })

  it("never authorizes or captures money paid into a shift whose session is gone, and flags it once", () => {
    const paid = plan({ session_gone: true }, { status: "settled" })
    expect(paid).toMatchObject({ authorize: false, capture: false, cancelAbandoned: false })
    expect(paid.flags).toMatchObject({ paid_without_session: "settled" })
    expect(paid.events).toContain("crypto-swap.shift.paid_without_session")
    const again = plan({ session_gone: true, flags: paid.flags }, { status: "settled" }, false)
    expect(again.events).toEqual([])
    expect(plan({ session_gone: true }, { status: "expired" }).flags).toMatchObject({ paid_without_session: null })
  })

  it("knows an order placed on money that settled short waits on the merchant, until captured or owed back", () => {
    const short = decideStatus({ status: "settled", type: "variable", settleAmount: "45" }, policy)
    expect(awaitsOrderDecision({ ...fresh, authorized_at: new Date() }, short)).toBe(true)
    expect(awaitsOrderDecision({ ...fresh }, short)).toBe(false)
    expect(awaitsOrderDecision({ ...fresh, authorized_at: new Date(), refund_owed: "45" }, short)).toBe(false)
    expect(awaitsOrderDecision({ ...fresh, authorized_at: new Date() }, decideStatus({ status: "settled", type: "variable", settleAmount: "50" }, policy))).toBe(false)
  })

  it("records what settled short as owed once the order placed on it is canceled, by the capture", () => {
    const short = { status: "settled", type: "variable", settleAmount: "45" }
    expect(plan({ authorized_at: new Date() }, short).capture).toBe(false)
    expect(plan({ authorized_at: new Date(), payment_canceled: true }, short).capture).toBe(true)
    expect(plan({ authorized_at: new Date(), payment_canceled: true, refund_owed: "45" }, short).capture).toBe(false)
    // Not before it settled: nothing is owed yet.
    expect(plan({ authorized_at: new Date(), payment_canceled: true }, { status: "processing", type: "variable", settleAmount: "45" }).capture).toBe(false)
  })

  it("still records money refunded instead as owed once the shopper moved on to a new payment, never as paid without a session", () => {
    const instead = plan({ session_gone: true, flags: { refund_instead: { by: "user_1" } } }, { status: "settled" })
    expect(instead).toMatchObject({ authorize: false, capture: true, flags: { paid_without_session: null } })
    expect(instead.events).not.toContain("crypto-swap.shift.paid_without_session")
  })

  it("lists a hosted checkout's other paid shifts once each, for the merchant", () => {
    const twice = plan({ other_paid_shifts: ["btc"] }, { status: "settled" })
    expect(twice).toMatchObject({ capture: true, flags: { other_paid_shifts: ["btc"] } })
    expect(twice.events).toContain("crypto-swap.shift.checkout_paid_again")
    expect(plan({ other_paid_shifts: ["btc"], flags: twice.flags }, { status: "settled" }, false).events).toEqual([])
    expect(plan({ other_paid_shifts: ["sol", "btc"], flags: twice.flags }, { status: "settled" }, false)).toMatchObject({
      events: ["crypto-swap.shift.checkout_paid_again"],
      flags: { other_paid_shifts: ["sol", "btc"] },
    })
    expect(plan({ other_paid_shifts: [] }, { status: "settled" }).flags.other_paid_shifts).toBeUndefined()
  })

  it("drops what it flagged about a checkout's previous shift's money once the payment follows another", () => {
    const flags = { refunded: true, underpaid: "40", review: "x" }
    expect(plan({ flags, shift_switched: true }, { status: "waiting" }).flags).toMatchObject({ refunded: null, underpaid: null, review: null })
    expect(plan({ flags }, { status: "waiting" }).flags).toMatchObject({ refunded: true, underpaid: "40" })
  })

  it("acts on nothing for a refund shift or a session-less row", () => {
    expect(hasActions(plan({ kind: "refund" }, { status: "settled" }))).toBe(false)
    expect(hasActions(plan({ payment_session_id: null }, { status: "processing" }))).toBe(false)
  })
})

describe("planMarkedRefund", () => {
  const marked = (flags: Record<string, unknown> = {}) => ({ flags: { paid_manually: { by: "user_1", deposits_kept: 0 }, ...flags } })

  it("cancels a refund shift marked paid by other means while it still takes a deposit, and nothing else", () => {
    expect(planMarkedRefund(marked(), { status: "waiting" })).toMatchObject({ cancelAbandoned: true, events: [], flags: { paid_twice: null } })
    const expired = planMarkedRefund(marked(), { status: "expired" })
    expect(hasActions(expired)).toBe(false)
    expect(expired.events).toEqual([])
  })

  it("flags a deposit that settled beyond what it kept at the mark, and tells it once; one still on its way is no payment yet", () => {
    for (const status of ["pending", "processing", "review", "refund", "refunded"]) {
      expect(planMarkedRefund(marked(), { status })).toMatchObject({ flags: { paid_twice: null }, events: [] })
    }
    const funded = planMarkedRefund(marked(), { status: "settled" })
    expect(funded).toMatchObject({ cancelAbandoned: false, flags: { paid_twice: "settled" }, events: ["crypto-swap.shift.refund_paid_twice"] })
    expect(planMarkedRefund(marked({ paid_twice: "settled" }), { status: "settled" }).events).toEqual([])
    // A short refund kept its first deposit at the mark: only a second one that settled paid twice.
    const short = { flags: { paid_manually: { by: "user_1", deposits_kept: 1 } } }
    expect(planMarkedRefund(short, { status: "settled" }).flags.paid_twice).toBeNull()
    expect(planMarkedRefund(short, { status: "multiple", deposits: [{ status: "settled" }, { status: "processing" }] }).flags.paid_twice).toBeNull()
    expect(planMarkedRefund(short, { status: "multiple", deposits: [{ status: "settled" }, { status: "settled", depositHash: "b" }] }).flags.paid_twice).toBe("multiple")
  })

  it("keeps a paid twice the merchant resolved resolved, until another deposit settles, which is told anew", () => {
    const resolution = { by: "user_1", deposits_settled: 1 }
    const resolved = planMarkedRefund(marked({ paid_twice: "settled", paid_twice_resolved: resolution }), { status: "settled" })
    expect(resolved).toMatchObject({ flags: { paid_twice: "settled", paid_twice_resolved: resolution }, events: [] })
    const again = planMarkedRefund(marked({ paid_twice: "multiple", paid_twice_resolved: resolution }), {
      status: "multiple",
      deposits: [{ status: "settled", depositHash: "a" }, { status: "settled", depositHash: "b" }],
    })
    expect(again).toMatchObject({ flags: { paid_twice: "multiple", paid_twice_resolved: null }, events: ["crypto-swap.shift.refund_paid_twice"] })
  })
})

describe("isTerminal", () => {
  it("knows the end states, and multiple only when every deposit ended", () => {
    expect(["settled", "refunded", "expired"].every((status) => isTerminal({ status }))).toBe(true)
    expect(["waiting", "pending", "review", "refund"].some((status) => isTerminal({ status }))).toBe(false)
    expect(isTerminal({ status: "multiple", deposits: [{ status: "settled" }, { status: "refund" }] })).toBe(false)
    expect(isTerminal({ status: "multiple", deposits: [{ status: "settled" }, { status: "refunded" }] })).toBe(true)
  })

  it("reads a variable shift again while a settled deposit has no figure to judge it by", () => {
    const priced = { status: "settled", settleAmount: "50" }
    expect(isTerminal({ status: "multiple", type: "variable", deposits: [priced, { status: "settled" }] })).toBe(false)
    expect(isTerminal({ status: "multiple", type: "variable", deposits: [priced, { status: "settled", depositAmount: "1", rate: "50" }] })).toBe(true)
    expect(isTerminal({ status: "multiple", type: "variable", deposits: [priced, { status: "settled", settleAmount: "10" }] })).toBe(true)
    // A fixed shift settles its first deposit at the fixed amount; the service sends the others back.
    expect(isTerminal({ status: "multiple", type: "fixed", settleAmount: "50", deposits: [{ status: "settled" }, { status: "refunded" }] })).toBe(true)
  })
})

describe("nextSyncAt", () => {
  const cadence = {
    inFlightSeconds: 5,
    waitingSeconds: 30,
    freshWaitingMinutes: 15,
    reviewSeconds: 300,
    openAddressSeconds: 3600,
    refundSeconds: 60,
    maxBackoffSeconds: 600,
    concurrency: 8,
    maxReadsPerMinute: 600,
    bulkRead: false,
    maxActionAttempts: 10,
    cancelUnpaidOrders: true,
  }
  const now = new Date("2026-01-01T00:00:00Z")
  const after = (shift: Parameters<typeof nextSyncAt>[0]) => {
    const at = nextSyncAt(shift, cadence, now)
    return at === null ? null : (at.getTime() - now.getTime()) / 1000
  }
  const base = { terminal: false, actionPending: false, failures: 0 }

  it("follows money in flight closely and waiting shifts loosely", () => {
    expect(after({ ...base, status: "processing" })).toBe(5)
    expect(after({ ...base, status: "waiting" })).toBe(30)
    expect(after({ ...base, status: "review" })).toBe(300)
    expect(after({ ...base, status: "refund" })).toBe(60)
  })

  it("reads a hosted checkout not paid yet while its page takes a pick, whatever its latest shift did", () => {
    const hoursAgo = (hours: number) => new Date(now.getTime() - hours * 3600_000)
    const payableUntil = (made: Date) => checkoutPayableUntil({ type: "checkout", kind: "payment", captured_at: null, created_at: made })
    // No coin picked yet: as a waiting shift at first, hourly after an hour, daily after a week, not at all after 30 days.
    const waiting = (made: Date) => after({ ...base, status: "waiting", createdAt: made, payableUntil: payableUntil(made) })
    expect(waiting(hoursAgo(0.5))).toBe(30)
    expect(waiting(hoursAgo(2))).toBe(3600)
    expect(waiting(hoursAgo(8 * 24))).toBe(86400)
    expect(waiting(hoursAgo(31 * 24))).toBeNull()
    // Its latest shift expired unpaid hours ago: the page may make another.
    const expired = { ...base, status: "expired", terminal: true, kind: "payment", type: "checkout", expiresAt: hoursAgo(2) }
    expect(after({ ...expired, createdAt: hoursAgo(3), payableUntil: payableUntil(hoursAgo(3)) })).toBe(3600)
    // Daily once the page is a week old and its pick's week of watching for a late deposit is over.
    const pickLongExpired = { ...expired, expiresAt: hoursAgo(7 * 24) }
    expect(after({ ...pickLongExpired, createdAt: hoursAgo(8 * 24), payableUntil: payableUntil(hoursAgo(8 * 24)) })).toBe(86400)
    expect(after({ ...expired, createdAt: hoursAgo(8 * 24), payableUntil: payableUntil(hoursAgo(8 * 24)) })).toBe(3600)
    expect(after(pickLongExpired)).toBeNull()
    // Captured, or not a checkout: nothing more to take through a page.
    expect(checkoutPayableUntil({ type: "checkout", kind: "payment", captured_at: now, created_at: now })).toBeNull()
    expect(checkoutPayableUntil({ type: "variable", kind: "payment", captured_at: null, created_at: now })).toBeNull()
  })

  it("reads a shift whose settled deposit still lacks its figure at the review cadence", () => {
    expect(after({ ...base, status: "multiple", deposits: [{ status: "settled" }, { status: "settled" }] })).toBe(300)
  })

  it("reads a shift with several deposits at the cadence of the busiest one still moving", () => {
    const multiple = (...statuses: string[]) => after({ ...base, status: "multiple", deposits: statuses.map((status) => ({ status })) })
    expect(multiple("settled", "processing")).toBe(5)
    expect(multiple("settled", "review")).toBe(300)
    // An extra deposit the service sends back may wait days for the shopper's address: not read every 5 s.
    expect(multiple("settled", "refund")).toBe(60)
    expect(after({ ...base, status: "multiple" })).toBe(5)
  })

  it("reads a waiting shift at the in-flight cadence in its first minutes, when shoppers pay, then loosely", () => {
    const minutesAgo = (minutes: number) => new Date(now.getTime() - minutes * 60_000)
    expect(after({ ...base, status: "waiting", createdAt: minutesAgo(0) })).toBe(5)
    expect(after({ ...base, status: "waiting", createdAt: minutesAgo(14.9) })).toBe(5)
    expect(after({ ...base, status: "waiting", createdAt: minutesAgo(15) })).toBe(30)
    expect(after({ ...base, status: "waiting", createdAt: minutesAgo(600).toISOString() })).toBe(30)
    // Not a refund's shift, which waits for the store's own deposit.
    expect(after({ ...base, status: "waiting", kind: "refund", createdAt: minutesAgo(1) })).toBe(30)
    // Only waiting: a fresh shift in review or refund keeps its own cadence.
    expect(after({ ...base, status: "review", createdAt: minutesAgo(1) })).toBe(300)
    expect(after({ ...base, status: "refund", createdAt: minutesAgo(1) })).toBe(60)
  })

  it("never reads a finished shift again, unless an action is still owed", () => {
    expect(after({ ...base, status: "settled", terminal: true })).toBeNull()
    expect(after({ ...base, status: "settled", terminal: true, actionPending: true })).toBe(5)
  })

  it("wakes a finished short payment when its wait for a top-up ends, once: a wake-up already past is no reason to read it", () => {
    const inMinutes = (minutes: number) => new Date(now.getTime() + minutes * 60_000)
    expect(after({ ...base, status: "settled", terminal: true, wakeAt: inMinutes(30) })).toBe(1800)
    expect(after({ ...base, status: "settled", terminal: true, wakeAt: inMinutes(0) })).toBeNull()
    expect(after({ ...base, status: "refunded", terminal: true, wakeAt: inMinutes(-5) })).toBeNull()
    // A shift still moving keeps its own cadence.
    expect(after({ ...base, status: "processing", wakeAt: inMinutes(30) })).toBe(5)
  })

  it("watches an expired shift for a late deposit at the review cadence for an hour, then hourly for a week, then leaves it", () => {
    const expiredAgo = (minutes: number) => new Date(now.getTime() - minutes * 60_000)
    const expired = { ...base, status: "expired", terminal: true }
    expect(after({ ...expired, expiresAt: expiredAgo(5) })).toBe(300)
    // The service holds a late deposit for review, for hours, before it settles or sends it back.
    expect(after({ ...expired, expiresAt: expiredAgo(61) })).toBe(3600)
    expect(after({ ...expired, kind: "payment", type: "variable", expiresAt: expiredAgo(7 * 24 * 60 - 1) })).toBe(3600)
    expect(after({ ...expired, expiresAt: expiredAgo(7 * 24 * 60) })).toBeNull()
    expect(after(expired)).toBeNull()
    // An action still owed keeps its own cadence, a failed read its backoff.
    expect(after({ ...expired, actionPending: true, expiresAt: expiredAgo(120) })).toBe(5)
    expect(after({ ...expired, failures: 1, expiresAt: expiredAgo(120) })).toBe(10)
  })

  it("watches a finished variable payment's or top-up's address until it expires, for a deposit sent to it again, then hourly for a week", () => {
    const inDays = (days: number) => new Date(now.getTime() + days * 86_400_000)
    const over = { ...base, terminal: true, kind: "payment", type: "variable" }
    expect(after({ ...over, status: "settled", expiresAt: inDays(6) })).toBe(3600)
    expect(after({ ...over, kind: "top_up", status: "settled", expiresAt: inDays(6) })).toBe(3600)
    expect(after({ ...over, status: "multiple", expiresAt: inDays(6) })).toBe(3600)
    // An underpayment's wake-up comes first when sooner.
    expect(after({ ...over, status: "settled", expiresAt: inDays(6), wakeAt: new Date(now.getTime() + 60_000) })).toBe(60)
    // Sent later, the service reviews it, then may settle it to the store: read as an expired shift is.
    expect(after({ ...over, status: "settled", expiresAt: inDays(-1) })).toBe(3600)
    expect(after({ ...over, kind: "top_up", status: "multiple", expiresAt: inDays(-6) })).toBe(3600)
    expect(after({ ...over, status: "settled", expiresAt: inDays(-7) })).toBeNull()
    // A refund's shift is the store's own.
    expect(after({ ...over, kind: "refund", status: "settled", expiresAt: inDays(6) })).toBeNull()
  })

  it("watches a finished fixed payment's address until an hour after it expires, for a deposit sent again that waits for a refund address", () => {
    const inMinutes = (minutes: number) => new Date(now.getTime() + minutes * 60_000)
    const over = { ...base, terminal: true, kind: "payment", type: "fixed" }
    expect(after({ ...over, status: "settled", expiresAt: inMinutes(10) })).toBe(3600)
    expect(after({ ...over, type: "checkout", status: "multiple", expiresAt: inMinutes(-30) })).toBe(3600)
    expect(after({ ...over, status: "settled", expiresAt: inMinutes(-61) })).toBeNull()
  })

  it("watches a variable refund shift that paid short at the refund cadence until it expires, for the rest the store sends, then hourly for a week", () => {
    const inDays = (days: number) => new Date(now.getTime() + days * 86_400_000)
    const short = { ...base, terminal: true, kind: "refund", type: "variable", refundOpen: true, refundToSend: true }
    expect(after({ ...short, status: "settled", expiresAt: inDays(6) })).toBe(60)
    expect(after({ ...short, status: "multiple", expiresAt: inDays(6) })).toBe(60)
    // A deposit sent after its deadline is reviewed, then may be released to the shopper (marked paid meanwhile: paid twice).
    expect(after({ ...short, status: "settled", expiresAt: inDays(-1) })).toBe(3600)
    expect(after({ ...short, status: "paid_manually", expiresAt: inDays(-6) })).toBe(3600)
    expect(after({ ...short, status: "settled", expiresAt: inDays(-7) })).toBeNull()
    expect(after({ ...short, refundOpen: false, status: "settled", expiresAt: inDays(-1) })).toBeNull()
    // Paid in full: nothing more is expected there. Sent back, or not yet judged: read as a stray deposit would be.
    expect(after({ ...short, refundOpen: false, status: "settled", expiresAt: inDays(6) })).toBeNull()
    expect(after({ ...short, refundToSend: false, status: "refunded", expiresAt: inDays(6) })).toBe(3600)
  })

  it("watches a fixed refund shift not paid in full until an hour after its deadline, for a deposit sent to it again", () => {
    const inMinutes = (minutes: number) => new Date(now.getTime() + minutes * 60_000)
    const sentBack = { ...base, terminal: true, kind: "refund", type: "fixed", status: "refunded", refundOpen: true, refundToSend: true }
    expect(after({ ...sentBack, expiresAt: inMinutes(10) })).toBe(60)
    expect(after({ ...sentBack, expiresAt: inMinutes(-50) })).toBe(60)
    expect(after({ ...sentBack, expiresAt: inMinutes(-61) })).toBeNull()
    expect(after({ ...sentBack, refundOpen: false, expiresAt: inMinutes(10) })).toBeNull()
  })

  it("backs off exponentially after failures, up to the cap", () => {
    expect(after({ ...base, status: "waiting", failures: 1 })).toBe(10)
    expect(after({ ...base, status: "waiting", failures: 3 })).toBe(40)
    expect(after({ ...base, status: "waiting", failures: 30 })).toBe(600)
  })

  it("spaces an action's retries the same way, so the default 10 attempts span about 40 minutes", () => {
    // The waits after failed attempts 1 to 9, before the 10th and last.
    const waits = Array.from({ length: 9 }, (_, i) => (retryAt(i + 1, cadence, now).getTime() - now.getTime()) / 1000)
    expect(waits.slice(0, 3)).toEqual([10, 20, 40])
    expect(Math.round(waits.reduce((sum, wait) => sum + wait, 0) / 60)).toBe(41)
  })
})
