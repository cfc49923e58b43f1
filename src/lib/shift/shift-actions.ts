import { distinctDeposits, REFUND_STATUSES, settledWithoutFigure, type ShiftDepositLike, type StatusDecision } from "./status-map"
import { creditedAmount, creditedTopUps, underpaymentWindowEnd } from "./underpayment"
import { compareDecimals, morePercent, subtractDecimals } from "../money"
import type { CryptoSwapOptions } from "../options"
import { checkoutPickExpired } from "./sync-cadence"

/** The ledger columns that say what the plugin has already done about a shift. */
export type ShiftActionState = {
  kind: "payment" | "refund" | "top_up"
  payment_session_id: string | null
  authorized_at: Date | string | null
  captured_at: Date | string | null
  canceled_at: Date | string | null
  refund_address: string | null
  flags: Record<string, unknown> | null
  amount_due: string | null
  /** What counts toward a payment's amount due besides its own deposit: settled top-ups, an accepted shortfall. */
  credit?: string | null
  /** Settled money owed back instead of captured: nothing is authorized or captured any more. */
  refund_owed?: string | null
  /** Medusa deleted or canceled the payment session: the shopper moved on (another coin, another method). */
  session_gone?: boolean
  /** Medusa canceled the payment of the order placed on this shift: the order was canceled. */
  payment_canceled?: boolean
  /** The order placed on this payment was canceled (before payment, it may be before any deposit). */
  order_canceled_at?: Date | string | null
  /** A hosted checkout's payment now follows another of its shifts (the payer switched coins). */
  shift_switched?: boolean
  /** The checkout's other shifts the service has seen a deposit for (see followedShift). */
  other_paid_shifts?: string[]
  /** The provider's `underpayment.waitMinutes`: how long a short payment waits for a top-up. */
  underpayment_wait_minutes?: number
  type?: string | null
  order_id?: string | null
  created_at?: Date | string | null
  last_viewed_at?: Date | string | null
  /** The provider's `variablePool.idleMinutes`: a waiting variable shift nobody looks at for this long is cancelled. */
  idle_minutes?: number
  /**
   * The provider gives back money paid above the amount due beyond this tolerance (`overpayment: "refund"`
   * and `overpaymentTolerancePercent`); null when it keeps it.
   */
  excess_refund_tolerance_percent?: string | null
  /** The provider's `overpaymentTolerancePercent`, whatever it does with an overpayment. */
  overpayment_tolerance_percent?: string
}

/**
 * An order placed on money that then settled short, neither captured nor given back: it waits on the
 * merchant (accept the shortfall, or cancel the order), which only Medusa's side of the payment shows.
 */
export function awaitsOrderDecision(
  row: Pick<ShiftActionState, "kind" | "authorized_at" | "captured_at" | "refund_owed">,
  decision: Pick<StatusDecision, "stage">
): boolean {
  return row.kind === "payment" && Boolean(row.authorized_at) && !row.captured_at && !row.refund_owed && decision.stage === "underpaid"
}

/** What a provider's options tell the plan of each of its rows. */
export function planSettings(options: Pick<CryptoSwapOptions, "underpayment" | "variablePool" | "overpayment" | "overpaymentTolerancePercent">) {
  return {
    underpayment_wait_minutes: options.underpayment.waitMinutes,
    idle_minutes: options.variablePool.idleMinutes,
    excess_refund_tolerance_percent: options.overpayment === "refund" ? options.overpaymentTolerancePercent : null,
    overpayment_tolerance_percent: options.overpaymentTolerancePercent,
  }
}

export type ShiftActionPlan = {
  authorize: boolean
  capture: boolean
  cancelExpired: boolean
  /** The deposit went back to the shopper after the payment was authorized or counted top-ups: cancel that payment, give those back. */
  cancelRefunded: boolean
  setRefundAddress: boolean
  /** Cancel at the service a waiting shift whose session is gone (the provider's own cancel came too early). */
  cancelAbandoned: boolean
  /** Make the shift of a refund the store owes, once its destination is known. */
  createRefundShift: boolean
  /** A top-up settled: count it toward its payment, which may now cover the amount due. */
  creditTopUp: boolean
  /** A short payment's wait for a top-up ran out: refund it or hold it for the merchant (`underpayment.then`). */
  settleUnderpayment: boolean
  /**
   * More settled above the amount due than was given back yet (`overpayment: "refund"`): an overpayment, or a
   * deposit sent again to a captured payment's variable address. Planned again whenever that grows.
   */
  refundExcess: boolean
  /**
   * Captured for an order canceled since: what Medusa's cancel did not refund (a capture raced it, or its refund
   * failed) is refunded through Medusa, once (`canceled_order_refunded`). Not prompt: it waits on nothing the
   * shift says, only on its own retries; but a tick that finds it planned syncs the shift in full to run it.
   */
  refundCanceledCapture: boolean
  /** Facts worth an admin's attention, kept on the ledger row. */
  flags: Record<string, unknown>
  /** Plugin events to emit, one per transition acted on. */
  events: string[]
}

/** Actions that wait on nothing but the plugin: the shift is read again at the in-flight cadence until done. */
export function hasPromptActions(plan: ShiftActionPlan): boolean {
  return (
    plan.authorize ||
    plan.capture ||
    plan.cancelExpired ||
    plan.cancelRefunded ||
    plan.setRefundAddress ||
    plan.createRefundShift ||
    plan.creditTopUp ||
    plan.settleUnderpayment ||
    plan.refundExcess
  )
}

/**
 * Any action at all; cancelling an abandoned shift waits on the service's minutes, not on the plugin, and a
 * canceled order's refund on its own retries.
 */
export function hasActions(plan: ShiftActionPlan): boolean {
  return hasPromptActions(plan) || plan.cancelAbandoned || plan.refundCanceledCapture
}

/** A plan that calls for nothing, which plans made without the service's word start from. */
const NO_ACTIONS: Omit<ShiftActionPlan, "flags" | "events"> = {
  authorize: false,
  capture: false,
  cancelExpired: false,
  cancelRefunded: false,
  setRefundAddress: false,
  cancelAbandoned: false,
  createRefundShift: false,
  creditTopUp: false,
  settleUnderpayment: false,
  refundExcess: false,
  refundCanceledCapture: false,
}

/**
 * A refund the store owes whose shift is not made yet: the one thing to do is make it, once it has a
 * destination. Without one, the shopper is asked for it, once (`address_asked`).
 */
export function planRefundShift(row: { status: string; refund_address: string | null; flags: Record<string, unknown> | null }): ShiftActionPlan {
  const flags = { ...(row.flags ?? {}) }
  const ask = row.status === "address_needed" && !flags.address_asked
  if (ask) flags.address_asked = true
  return {
    ...NO_ACTIONS,
    createRefundShift: row.status === "creating" && Boolean(row.refund_address),
    flags,
    events: ask ? ["crypto-swap.shift.refund_address_needed"] : [],
  }
}

/**
 * A refund the merchant marked paid by other means. Its shift, while it still takes a deposit, is canceled at
 * the service, so nobody funds it by mistake and a variable one gives back its open order. A deposit to it
 * anyway that settled (beyond what a short one had kept at the mark) paid the shopper twice: flagged
 * `paid_twice` as the service says now, and told once.
 */
export function planMarkedRefund(row: { flags: Record<string, unknown> | null }, shift: { status: string; deposits?: ShiftDepositLike[] | null }): ShiftActionPlan {
  const keptAtMark = Number((row.flags?.paid_manually as { deposits_kept?: number } | undefined)?.deposits_kept ?? 0)
  // Paid only once it settled: a deposit on its way may yet go back to the merchant (late, or a wrong amount).
  const settled = depositsSettled(shift)
  const paidTwice = settled > keptAtMark ? shift.status : null
  // Resolved by the merchant (resolvePaidTwiceStep) until another deposit settles.
  const resolved = row.flags?.paid_twice_resolved as { deposits_settled?: number } | null | undefined
  const stillResolved = resolved && settled <= Number(resolved.deposits_settled ?? 0) ? resolved : null
  const told = Boolean(row.flags?.paid_twice) && (!resolved || Boolean(stillResolved))
  return {
    ...NO_ACTIONS,
    cancelAbandoned: shift.status === "waiting",
    flags: { ...(row.flags ?? {}), paid_twice: paidTwice, paid_twice_resolved: stillResolved },
    events: paidTwice && !told ? ["crypto-swap.shift.refund_paid_twice"] : [],
  }
}

/**
 * A captured payment whose order was canceled since: Medusa's cancel refunds what it captured, so nothing
 * it settled is the merchant's any more, an overpayment kept with the sale nor a deposit sent again later.
 */
const canceledAfterCapture = (row: Pick<ShiftActionState, "kind" | "captured_at" | "order_canceled_at">) =>
  row.kind === "payment" && Boolean(row.captured_at && row.order_canceled_at)

/** Money a capture kept on a canceled order and not yet refunded through Medusa (see `refundCanceledCapture`). */
function keepsCanceledOrdersMoney(row: Pick<ShiftActionState, "kind" | "captured_at" | "order_canceled_at" | "flags">): boolean {
  return canceledAfterCapture(row) && !row.flags?.canceled_order_refunded
}

/**
 * What a sync can do while the shift can't be read (the service down, or an old shift it no longer returns):
 * refund through Medusa money a capture kept on a canceled order, which needs nothing of the service. Null
 * when there is nothing to do.
 */
export function planWithoutShift(row: Pick<ShiftActionState, "kind" | "captured_at" | "order_canceled_at" | "flags">): ShiftActionPlan | null {
  if (!keepsCanceledOrdersMoney(row)) return null
  return { ...NO_ACTIONS, refundCanceledCapture: true, flags: { ...(row.flags ?? {}) }, events: [] }
}

const TERMINAL = new Set(["settled", "refunded", "expired"])

/** Statuses in which the shopper's deposit is confirmed: it can no longer be sent back for what it is. */
export const DEPOSIT_CONFIRMED_STATUSES: ReadonlySet<string> = new Set(["processing", "settling", "settled"])

/** Statuses in which the shopper's deposit has reached the service and has not been sent back. */
export const DEPOSIT_SEEN_STATUSES: ReadonlySet<string> = new Set(["pending", "processing", "review", "settling", "settled", "multiple"])

/**
 * A payment session whose data says a deposit is on its way, which the provider's deletePayment refuses
 * without asking the service: one deposit the ledger saw (several may all be going back since), not money
 * given back to the shopper.
 */
export function depositSeenWithoutAsking(data: Record<string, unknown> | null | undefined): boolean {
  const status = typeof data?.status === "string" ? data.status : ""
  return DEPOSIT_SEEN_STATUSES.has(status) && status !== "multiple" && data?.given_back !== true
}

/** How many deposits reached a shift and were not sent back; a re-sweep of one (EVM) is the same deposit. */
export function depositsKept(shift: { status: string; deposits?: ShiftDepositLike[] | null }): number {
  if (shift.status === "multiple") return distinctDeposits(shift).filter((deposit) => DEPOSIT_SEEN_STATUSES.has(deposit.status)).length
  return DEPOSIT_SEEN_STATUSES.has(shift.status) ? 1 : 0
}

/**
 * A top-up whose deposit arrived and is not counted yet (still moving, or settled with its credit backing off
 * or its figures late): it may pay the rest of its payment.
 */
export function topUpOnItsWay(topUp: { status: string; deposits?: unknown; captured_at?: Date | string | null; flags?: Record<string, unknown> | null }): boolean {
  return !topUp.captured_at && !topUp.flags?.held_refund && depositsKept({ status: topUp.status, deposits: topUp.deposits as ShiftDepositLike[] | null }) > 0
}

/** How many deposits of a shift settled; a re-sweep of one (EVM) is the same deposit. */
export function depositsSettled(shift: { status: string; deposits?: ShiftDepositLike[] | null }): number {
  if (shift.status === "multiple") return distinctDeposits(shift).filter((deposit) => deposit.status === "settled").length
  return shift.status === "settled" ? 1 : 0
}

/** Stages in which the shopper's money reached the service and was not sent back. */
const PAID_STAGES = new Set(["deposit_detected", "deposit_confirmed", "settled", "underpaid", "review"])

export function isTerminal(shift: {
  status: string
  type?: string | null
  settleAmount?: string | null
  depositAmount?: string | null
  rate?: string | null
  deposits?: ShiftDepositLike[] | null
}): boolean {
  // A variable shift settled without a figure to judge it by is read again until the service gives one.
  if (settledWithoutFigure(shift)) return false
  if (shift.status === "multiple") {
    return (shift.deposits ?? []).every((deposit) => TERMINAL.has(deposit.status))
  }
  return TERMINAL.has(shift.status)
}

/**
 * Money the shopper gets back instead of an order: an admin chose to refund it, it is held for a refund,
 * it settled after the order was canceled, or Medusa refunded it itself before any order held it.
 * It never places the order, by the job or by the shopper.
 */
export function givenBackToShopper(row: { refund_owed?: string | null; flags?: Record<string, unknown> | null }): boolean {
  return Boolean(row.refund_owed || row.flags?.refund_instead || row.flags?.held_refund || row.flags?.refunded_by_medusa)
}

/**
 * A top-up whose money was counted: credited to its payment, or refunded because the payment could take no
 * more (both set `captured_at`). A later deposit to its variable address is nobody's order's.
 */
const countedTopUp = (row: Pick<ShiftActionState, "kind" | "captured_at">) => row.kind === "top_up" && Boolean(row.captured_at)

/**
 * What settled on a row beyond the part already counted: owed back, held for a refund, or (a top-up)
 * credited to its payment. A deposit sent again to its variable address: no order will hold it, so it all
 * goes back, whatever the overpayment policy. Null while nothing was counted yet (an admin's refund
 * instead, before its money settled; a top-up credited before its credit was recorded).
 */
function settledBeyondCounted(
  row: Pick<ShiftActionState, "kind" | "refund_owed" | "flags" | "amount_due" | "captured_at" | "order_canceled_at" | "credit">,
  settledAmount: string | undefined
): string | null {
  const held = typeof row.flags?.held_amount === "string" ? row.flags.held_amount : null
  // Medusa refunds the whole payment it captured (or its order's cancel does): the amount due, less what its
  // top-ups brought toward it (a shortfall the merchant accepted, also in the credit, never arrived).
  const acceptedShort = typeof row.flags?.accepted_short === "string" ? row.flags.accepted_short : "0"
  const givenBackThroughMedusa =
    row.flags?.refunded_by_medusa || canceledAfterCapture(row) ? subtractDecimals(row.amount_due ?? "0", subtractDecimals(row.credit ?? "0", acceptedShort)) : null
  const counted = row.refund_owed ?? held ?? givenBackThroughMedusa ?? creditedAmount(row)
  if (!counted || !settledAmount || compareDecimals(settledAmount, counted) <= 0) return null
  return subtractDecimals(settledAmount, counted)
}

/**
 * What the ledger gives back through excess refunds, in all: above the amount due of a captured payment,
 * or all that arrived after a payment's money was being given back or a top-up's was counted.
 */
export function excessToGiveBack(
  row: Pick<ShiftActionState, "kind" | "refund_owed" | "flags" | "captured_at" | "amount_due" | "order_canceled_at" | "credit">,
  decision: Pick<StatusDecision, "settledAmount" | "excessAmount">
): string | null {
  if ((row.kind === "payment" && givenBackToShopper(row)) || countedTopUp(row) || canceledAfterCapture(row)) return settledBeyondCounted(row, decision.settledAmount)
  return decision.excessAmount ?? null
}

/**
 * What a sync must do once per transition. The `*_at` columns make every action happen once, however
 * many processes observe the same transition (they run under a lock per shift).
 */
export function planShiftActions(
  row: ShiftActionState,
  shift: { status: string; issue?: string | null; refundAddress?: string | null; deposits?: Array<{ status: string }> | null },
  decision: StatusDecision,
  changed: boolean,
  now = new Date()
): ShiftActionPlan {
  const flags: Record<string, unknown> = { ...(row.flags ?? {}) }
  // What was flagged about the previous shift's money says nothing about the one followed now.
  if (row.shift_switched) Object.assign(flags, { underpaid: null, overpaid: null, refunded: null })
  // A refund paid short is the merchant's to finish, not a shopper's underpayment.
  const stageEvent = row.kind === "refund" && decision.stage === "underpaid" ? "refund_short" : decision.stage
  // A hosted checkout's page takes another pick until the payment is made: a pick that ran out ends nothing
  // (its session stays open for the next one), unless the shopper moved on (the session is gone).
  const pickExpired = !row.session_gone && checkoutPickExpired({ ...row, status: decision.stage, type: row.type ?? null }, now)
  // Its payment expires when the page no longer takes a pick, often long after its last pick did (no change
  // then): told once, with the flag written in the same update as the event's outbox.
  const checkoutExpiry = decision.stage === "expired" && row.type === "checkout"
  // A payment short while its deposit is unconfirmed (pending, or in review for hours: under the minimum, say) may
  // yet go back, and takes no top-up before: told once confirmed (a later change), never offering the rest too early.
  const shortTooEarly = stageEvent === "underpaid" && !DEPOSIT_CONFIRMED_STATUSES.has(decision.effectiveStatus)
  const events: string[] = changed && !checkoutExpiry && !shortTooEarly ? [`crypto-swap.shift.${stageEvent}`] : []
  if (checkoutExpiry && !pickExpired && !flags.expiry_told) {
    events.push("crypto-swap.shift.expired")
    flags.expiry_told = true
  }
  // Only one shift of a checkout pays its order: a deposit sent to another one (paid twice, or paid
  // and refunded before the payer picked again) is listed for the merchant to check, never ignored.
  const otherPaid = row.other_paid_shifts ?? []
  const listed = Array.isArray(flags.other_paid_shifts) ? (flags.other_paid_shifts as string[]) : []
  if (otherPaid.some((id) => !listed.includes(id))) {
    events.push("crypto-swap.shift.checkout_paid_again")
    flags.other_paid_shifts = otherPaid
  }
  const payment = row.kind === "payment" && Boolean(row.payment_session_id)
  // A session Medusa deleted can't be authorized or captured: money paid into its shift (the shopper
  // switched coins, then paid the old address) is flagged for the merchant to pay back instead.
  const payable = payment && !row.session_gone
  // A deposit that lands after its order, placed before payment, was canceled is owed back by the capture
  // (`refund_owed`), never listed twice.
  const orderCanceledUnpaid = payment && Boolean(row.order_canceled_at) && !row.authorized_at
  // Not money given back to the shopper, who was told to start a new payment.
  const paidWithoutSession = payment && Boolean(row.session_gone) && PAID_STAGES.has(decision.stage) && !givenBackToShopper(row) && !orderCanceledUnpaid
  if (paidWithoutSession && !flags.paid_without_session) events.push("crypto-swap.shift.paid_without_session")
  flags.paid_without_session = paidWithoutSession ? decision.stage : null

  // Cleared flags are set to null: the ledger merges JSON columns on update.
  flags.review = decision.stage === "review" ? shift.issue ?? "review" : null
  // Cleared only by a judgement that the money covers the amount due or went back, never by a read that says nothing.
  // `underpaid_since` starts the wait for a top-up (underpayment.waitMinutes) once the deposit is confirmed:
  // no top-up is taken before (one pending or in review, for hours, may yet be sent back).
  if (decision.stage === "underpaid" && row.kind !== "refund") {
    flags.underpaid = decision.settledAmount ?? decision.expectedAmount
    flags.underpaid_since = flags.underpaid_since ?? (DEPOSIT_CONFIRMED_STATUSES.has(decision.effectiveStatus) ? now.toISOString() : null)
  } else if (decision.settledAmount ?? decision.expectedAmount ?? decision.stage === "refunded") {
    // Judged to cover it, or all of it went back to the shopper: short no more.
    flags.underpaid = null
    flags.underpaid_since = null
  }
  const givenBack = row.kind === "payment" && givenBackToShopper(row)
  const afterCancel = canceledAfterCapture(row) && !givenBack
  // Money no order holds beyond what was counted: everything after a payment was given back, its order canceled, or a top-up counted.
  const beyondCounted = givenBack || countedTopUp(row) || afterCancel
  const excess = excessToGiveBack(row, decision)
  // More money after the capture, after the payment was given back or after a top-up was counted: the
  // shopper paid the variable address again (refunded or kept, the merchant hears of it). Judged only
  // once all of it settled.
  const paidAgain = (flag: "overpaid" | "paid_after_given_back" | "paid_after_credit") => {
    const before = typeof row.flags?.[flag] === "string" ? (row.flags[flag] as string) : "0"
    if ((row.captured_at || givenBack) && excess && compareDecimals(excess, before) > 0) events.push("crypto-swap.shift.paid_again")
    flags[flag] = excess
  }
  if (afterCancel && decision.settledAmount) {
    // What settled above the amount due when the cancel was first seen was told before (overpaid, or kept within
    // the tolerance): the baseline, so only a deposit after it is called a new payment.
    const before = typeof row.flags?.paid_after_cancel === "string" ? row.flags.paid_after_cancel : null
    if (before !== null && excess && compareDecimals(excess, before) > 0) events.push("crypto-swap.shift.paid_again")
    flags.paid_after_cancel = excess ?? "0"
  } else if (beyondCounted && decision.settledAmount) paidAgain(givenBack || row.flags?.held_refund ? "paid_after_given_back" : "paid_after_credit")
  else if (!beyondCounted && decision.stage === "settled") paidAgain("overpaid")
  const refunded = decision.stage === "refunded"
  if (refunded) flags.refunded = true
  // A variable-rate refund short of its target stays owed until what settles on its shift reaches it (the
  // merchant sends the rest to the same address).
  if (decision.refundShort) flags.refund_short = decision.refundShort
  else if (refunded) flags.refund_short = null
  if (row.kind === "refund") {
    // The shopper hears once that they were refunded: when a judgement first says so, whether or not the
    // status moved (the rest settling under `multiple`, a figure the service gave late).
    const announced = events.indexOf("crypto-swap.shift.refunded")
    const firstTime = refunded && !row.flags?.refunded
    if (firstTime && announced < 0) events.push("crypto-swap.shift.refunded")
    if (!firstTime && announced >= 0) events.splice(announced, 1)
    // The merchant's deposit going back, also when it came in several (`multiple`, whose own status says nothing).
    flags.sent_back = REFUND_STATUSES.has(decision.effectiveStatus) ? decision.effectiveStatus : null
  }

  // The service waits for an address in its refund status, or for one deposit of a `multiple` shift.
  const inRefund = shift.status === "refund" || (shift.deposits ?? []).some((deposit) => deposit.status === "refund")
  const needsAddress = inRefund && !shift.refundAddress
  // A refund's own `refund_address` is the shopper's (where it pays): never where the merchant's deposit goes back.
  const setRefundAddress = needsAddress && row.kind !== "refund" && Boolean(row.refund_address)
  if (needsAddress && !setRefundAddress) {
    // The shopper is asked only for their own deposit: a refund's is the merchant's, shown in the admin.
    if (!flags.address_needed && row.kind !== "refund") events.push("crypto-swap.shift.refund_address_needed")
    flags.address_needed = true
  } else {
    flags.address_needed = null
  }

  // The order is placed first, then captured: a shift first seen settled is authorized, then captured.
  // An admin may decide to refund instead of placing the order; settled money is then owed, never captured.
  // Money an admin already refunds through a refund shift (held money) never pays an order, whatever
  // arrives later (a top-up to the same variable address). Nor does a deposit that lands after its order,
  // placed before payment, was canceled: authorizing it would make a payment of the canceled order.
  const placeable = payable && !givenBackToShopper(row) && !orderCanceledUnpaid
  const windowEnd = row.underpayment_wait_minutes === undefined ? null : underpaymentWindowEnd(flags, row.underpayment_wait_minutes)
  // A variable shift holds one of the account's few open variable orders for 7 days: one whose page
  // nobody looked at for a while, with no deposit, gives it back.
  const lastSeen = row.last_viewed_at ?? row.created_at
  // Never one whose order is placed (placeOrder: before_payment): that shopper is on the order's page.
  const idle =
    row.type === "variable" &&
    !row.order_id &&
    !row.authorized_at &&
    row.idle_minutes !== undefined && Boolean(lastSeen) && now.getTime() - new Date(lastSeen!).getTime() >= row.idle_minutes * 60_000
  // Money an admin refunds instead of placing its order, or that no canceled order will hold, is recorded
  // owed when it settles (by the capture), even after the shopper moved on to a new payment.
  const owedInstead = payment && Boolean(row.flags?.refund_instead || orderCanceledUnpaid)
  // Never money Medusa refunded itself: no order holds it, and its payment is refunded already.
  const captures = (placeable || owedInstead) && !row.refund_owed && !row.flags?.held_refund && decision.session === "captured"
  // An order placed on money that then settled short, canceled since, money that settled short after its
  // order (placed before payment) was canceled, or that the merchant refunds instead of placing its order:
  // what settled is owed back, recorded by the capture, which finds the payment or the order canceled.
  const owedAfterCancel =
    payment &&
    Boolean((row.payment_canceled && row.authorized_at) || orderCanceledUnpaid || row.flags?.refund_instead) &&
    !row.refund_owed &&
    !row.flags?.held_refund &&
    decision.stage === "underpaid" &&
    Boolean(decision.settledAmount)
  const excessGivenBack = typeof row.flags?.excess_refunded === "string" ? row.flags.excess_refunded : "0"
  // Each part given back is above the overpayment tolerance: a smaller one costs more than it is worth (a
  // refund shift has the service's minimum), and an amount owed, held or credited may have been counted at
  // an estimate the final settlement differs from that little. Money no order holds goes back whatever the
  // overpayment policy.
  const tolerance = beyondCounted ? row.overpayment_tolerance_percent ?? "0" : row.excess_refund_tolerance_percent ?? null
  const due = row.amount_due ?? "0"
  const dust = tolerance === null ? null : subtractDecimals(morePercent(due, tolerance), due)
  const excessOwed = dust !== null && compareDecimals(subtractDecimals(excess ?? "0", excessGivenBack), dust) > 0
  return {
    authorize: placeable && (decision.session === "authorized" || decision.session === "captured") && !row.authorized_at && !row.captured_at,
    capture: (captures || owedAfterCancel) && !row.captured_at,
    cancelExpired: payment && decision.stage === "expired" && !pickExpired && !row.canceled_at,
    // Top-ups it counted pay nothing now either: given back with it.
    cancelRefunded: payment && refunded && Boolean(row.authorized_at || creditedTopUps(row).length) && !row.captured_at && !row.canceled_at,
    setRefundAddress,
    // An unpaid top-up nobody looks at gives its open variable order back too, and so does the shift of an
    // order canceled before anything was paid for it (placed before payment).
    cancelAbandoned:
      shift.status === "waiting" &&
      ((payment && Boolean(row.session_gone || orderCanceledUnpaid)) || ((payment || row.kind === "top_up") && idle)),
    createRefundShift: false,
    creditTopUp: row.kind === "top_up" && Boolean(decision.settledAmount) && !row.captured_at,
    settleUnderpayment:
      payable &&
      !orderCanceledUnpaid &&
      decision.stage === "underpaid" &&
      Boolean(decision.settledAmount) &&
      !row.authorized_at &&
      Boolean(windowEnd && windowEnd <= now),
    // Also a payment's held money whose refunds a crash left unrecorded after its mark (`held_pending`), which
    // nothing else lists: refund_excess records them first.
    refundExcess: ((captures || beyondCounted) && excessOwed) || (row.kind === "payment" && Boolean(row.flags?.held_pending)),
    refundCanceledCapture: keepsCanceledOrdersMoney(row),
    flags,
    events,
  }
}
