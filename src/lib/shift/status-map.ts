import { PaymentSessionStatus } from "@medusajs/framework/utils"
import type { PaymentActions } from "@medusajs/framework/types"
import { addDecimals, compareDecimals, lessPercent, morePercent, multiplyDecimals, subtractDecimals } from "../money"
import type { CryptoSwapOptions } from "../options"

/** What the shopper's payment has reached, whatever the service calls it. */
export type PaymentStage =
  | "awaiting_deposit"
  | "deposit_detected"
  | "deposit_confirmed"
  | "settled"
  | "underpaid"
  | "review"
  | "refund"
  | "refunded"
  | "expired"
  | "unknown"

/** The one table from service status to stage (service-behaviour.md, "Shift statuses"). */
export const STAGE_OF_STATUS: Record<string, PaymentStage> = {
  waiting: "awaiting_deposit",
  pending: "deposit_detected",
  processing: "deposit_confirmed",
  settling: "deposit_confirmed",
  settled: "settled",
  review: "review",
  refund: "refund",
  refunding: "refund",
  refunded: "refunded",
  expired: "expired",
}

export type ShiftDepositLike = {
  status: string
  depositHash?: string | null
  settleHash?: string | null
  depositAmount?: string | null
  settleAmount?: string | null
  issue?: string | null
  rate?: string | null
}

/** What a variable shift's deposit (or one of a `multiple` one's) settles: the service's figure, else the deposit at its rate. */
export function settlementFigure(deposit: Pick<ShiftDepositLike, "settleAmount" | "depositAmount" | "rate">): string | undefined {
  if (deposit.settleAmount) return deposit.settleAmount
  return deposit.depositAmount && deposit.rate ? multiplyDecimals(deposit.depositAmount, deposit.rate) : undefined
}

export type ShiftLike = {
  status: string
  type?: string | null
  /** On a variable shift, known once its deposit is: what it will settle, before it has. */
  settleAmount?: string | null
  /** On a variable shift, with `rate`: what it will settle when the service does not say it yet. */
  depositAmount?: string | null
  rate?: string | null
  deposits?: ShiftDepositLike[] | null
}

export type StatusPolicy = {
  authorizeOn: "detected" | "confirmed" | "settled"
  placeOrder: "after_payment" | "before_payment"
  /** Amount due in the settle coin (equal to the store amount: the settle coin is pegged). */
  amountDue: string
  underpaymentTolerancePercent: string
  overpaymentTolerancePercent: string
  /** What already counts toward the amount due besides this shift: settled top-ups, an accepted shortfall. */
  credit?: string | null
  /** The part of the credit that is a shortfall the merchant accepted: no money, so never paid too much. */
  forgiven?: string | null
}

export function statusPolicy(options: CryptoSwapOptions, amountDue: string, credit?: string | null, forgiven?: string | null): StatusPolicy {
  return {
    authorizeOn: options.authorizeOn,
    placeOrder: options.placeOrder,
    amountDue,
    underpaymentTolerancePercent: options.underpaymentTolerancePercent,
    overpaymentTolerancePercent: options.overpaymentTolerancePercent,
    credit,
    forgiven,
  }
}

export type StatusDecision = {
  stage: PaymentStage
  session: PaymentSessionStatus
  action: PaymentActions
  /** The status the decision was made from: the shift's, or for `multiple` the one its deposits add up to. */
  effectiveStatus: string
  settledAmount?: string
  /** A variable shift's deposit on its way: what the service says it will settle. Both are the shift's own, without the credit. */
  expectedAmount?: string
  /** Settled above the amount due by more than the tolerance: what was paid too much. */
  excessAmount?: string
  /** A variable-rate refund shift that settled short of its target: what the shopper is still owed, in the target's coin. */
  refundShort?: string
}

const IN_FLIGHT_ORDER = ["pending", "review", "processing", "settling"]
/** A deposit going, or gone, back to its sender. */
export const REFUND_STATUSES: ReadonlySet<string> = new Set(["refund", "refunding", "refunded"])

/** The items whose key is unknown or not seen before in the list. */
function firstOfEach<T>(items: T[], key: (item: T) => string | null | undefined): T[] {
  const seen = new Set<string>()
  return items.filter((item) => {
    const value = key(item)
    if (!value) return true
    if (seen.has(value)) return false
    seen.add(value)
    return true
  })
}

/** A `multiple` shift's deposits, each once: a re-sweep of an EVM deposit address repeats one (same hash, or flagged "duplicate"). */
export function distinctDeposits(shift: Pick<ShiftLike, "deposits">): ShiftDepositLike[] {
  return firstOfEach(
    (shift.deposits ?? []).filter((deposit) => deposit.issue !== "duplicate"),
    (deposit) => deposit.depositHash
  )
}

/**
 * The deposits of a `multiple` variable shift that settled, each payout once (a re-sweep under a new hash
 * may list the same settlement twice): what the shopper paid and what it settled to, deposit by deposit.
 */
export function settledDeposits(shift: Pick<ShiftLike, "deposits">): ShiftDepositLike[] {
  return firstOfEach(distinctDeposits(shift).filter((deposit) => deposit.status === "settled"), (deposit) => deposit.settleHash)
}

/**
 * Reads `deposits[]` of a `multiple` shift. A re-sweep of an EVM deposit address repeats a deposit
 * (same hash, flagged "duplicate", or the same settlement): it is one payment, not two.
 */
function resolveMultiple(shift: ShiftLike): { status: string; settledAmount?: string; expectedAmount?: string; figureMissing?: boolean } {
  const deposits = distinctDeposits(shift)
  const valid = deposits.filter((deposit) => !REFUND_STATUSES.has(deposit.status))
  if (valid.length === 0) {
    const refunds = deposits.map((deposit) => deposit.status)
    return { status: refunds.includes("refunded") && refunds.every((s) => s === "refunded") ? "refunded" : refunds.length ? "refund" : "waiting" }
  }
  if (shift.type === "fixed") {
    // Only the first valid deposit of a fixed shift settles; later ones are refunded by the service.
    const first = valid[0]
    return { status: first.status, settledAmount: first.status === "settled" ? first.settleAmount ?? undefined : undefined }
  }
  const inFlight = valid.filter((deposit) => deposit.status !== "settled")
  if (inFlight.length > 0) {
    const earliest = inFlight
      .map((deposit) => deposit.status)
      .sort((a, b) => IN_FLIGHT_ORDER.indexOf(a) - IN_FLIGHT_ORDER.indexOf(b))[0]
    // Judged only once the service says what every deposit will settle.
    const expected = figuresOf(valid)
    return { status: earliest, expectedAmount: expected.missing ? undefined : expected.known }
  }
  // A deposit settled without a figure yet: what the others settled is the least the shift holds.
  const settled = figuresOf(settledDeposits(shift))
  return { status: "settled", settledAmount: settled.known, figureMissing: settled.missing }
}

/** What the deposits with a figure settle together (none counted as nothing), and whether any has none yet. */
function figuresOf(deposits: ShiftDepositLike[]): { known?: string; missing: boolean } {
  const known = deposits.map(settlementFigure).filter((figure): figure is string => figure !== undefined)
  return { known: known.length ? addDecimals(...known) : undefined, missing: known.length < deposits.length }
}

/** A variable shift settled (all of it, or a deposit of a `multiple` one) without a figure to judge it by: read it again. */
export function settledWithoutFigure(shift: ShiftLike): boolean {
  if (shift.type !== "variable") return false
  if (shift.status === "multiple") return settledDeposits(shift).some((deposit) => !settlementFigure(deposit))
  return shift.status === "settled" && !settlementFigure(shift)
}

function stageBeforePayment(policy: StatusPolicy): PaymentSessionStatus {
  return policy.placeOrder === "before_payment"
    ? PaymentSessionStatus.PENDING_AUTHORIZATION
    : PaymentSessionStatus.PENDING
}

const AUTHORIZING_STAGES: Record<StatusPolicy["authorizeOn"], PaymentStage[]> = {
  detected: ["deposit_detected", "deposit_confirmed"],
  confirmed: ["deposit_confirmed"],
  settled: [],
}

const ACTION_OF_SESSION: Record<PaymentSessionStatus, PaymentActions> = {
  [PaymentSessionStatus.AUTHORIZED]: "authorized",
  [PaymentSessionStatus.CAPTURED]: "captured",
  [PaymentSessionStatus.PENDING]: "pending",
  [PaymentSessionStatus.PENDING_AUTHORIZATION]: "pending",
  [PaymentSessionStatus.REQUIRES_MORE]: "requires_more",
  [PaymentSessionStatus.ERROR]: "failed",
  [PaymentSessionStatus.CANCELED]: "canceled",
}

/** Every deposit the shift took went back to its sender (for `multiple`, each of its deposits): it holds nothing. */
export function sentBackInFull(shift: ShiftLike): boolean {
  return (shift.status === "multiple" ? resolveMultiple(shift).status : shift.status) === "refunded"
}

/** Maps a shift as the service reports it to a Medusa payment session status. */
export function decideStatus(shift: ShiftLike, policy: StatusPolicy): StatusDecision {
  const multiple = shift.status === "multiple" ? resolveMultiple(shift) : undefined
  const status = multiple?.status ?? shift.status
  let stage: PaymentStage = STAGE_OF_STATUS[status] ?? "unknown"
  const variable = shift.type === "variable"
  // A variable shift settled without its amount is judged by its deposit at its rate, as on its way; a
  // variable `multiple` one by its deposits only (the shift's own figure may be its first deposit's).
  const settledAmount =
    stage !== "settled" ? undefined : variable ? (multiple ? multiple.settledAmount : settlementFigure(shift)) : multiple?.settledAmount ?? shift.settleAmount ?? undefined

  // A variable deposit may be any amount in the range: it is judged as soon as the service says what it
  // will settle (or its deposit and rate), before anything is authorized or any order placed, and again
  // once it has settled. Until it can be judged, it is not authorized.
  const inFlight = stage === "deposit_detected" || stage === "deposit_confirmed" || stage === "review"
  const expectedAmount = variable && inFlight ? (multiple ? multiple.expectedAmount : settlementFigure(shift)) : undefined
  const judged = settledAmount ?? expectedAmount
  // With the credit (settled top-ups, a shortfall the merchant accepted) the payment's money as a whole is judged.
  const covered = judged && policy.credit ? addDecimals(judged, policy.credit) : judged
  // Settled without any figure to judge it by: nothing is captured on it until the service says (read again, see isTerminal).
  if (stage === "settled" && variable && !judged) stage = "unknown"
  // A fixed shift is judged once settled too: the service settles its quote, which never falls short of the
  // amount due the plugin asked for, unless the service honoured it short.
  if (covered && (stage === "settled" || (inFlight && variable))) {
    const floor = lessPercent(policy.amountDue, policy.underpaymentTolerancePercent)
    // Short on the figures known so far, with one still to come: nothing can be said yet (read again, see isTerminal).
    if (compareDecimals(covered, floor) < 0) stage = multiple?.figureMissing ? "unknown" : "underpaid"
  }
  const unjudged = variable && inFlight && !judged

  let session: PaymentSessionStatus
  if (stage === "settled") session = PaymentSessionStatus.CAPTURED
  else if (AUTHORIZING_STAGES[policy.authorizeOn].includes(stage) && !unjudged) session = PaymentSessionStatus.AUTHORIZED
  else if (stage === "refund" || stage === "refunded" || stage === "underpaid") session = PaymentSessionStatus.ERROR
  else if (stage === "expired") session = PaymentSessionStatus.CANCELED
  else session = stageBeforePayment(policy)

  // Money received: an accepted shortfall covers the amount due but was never paid.
  const received = stage === "settled" && covered ? (policy.forgiven ? subtractDecimals(covered, policy.forgiven) : covered) : undefined
  const excessAmount =
    received && compareDecimals(received, morePercent(policy.amountDue, policy.overpaymentTolerancePercent)) > 0
      ? subtractDecimals(received, policy.amountDue)
      : undefined
  return {
    stage,
    session,
    action: ACTION_OF_SESSION[session],
    effectiveStatus: status,
    // Short on a part of the figures: no amount to act on (credit, clear a shortfall) until the rest is known.
    settledAmount: stage === "unknown" ? undefined : settledAmount,
    ...(expectedAmount ? { expectedAmount } : {}),
    ...(excessAmount ? { excessAmount } : {}),
  }
}
