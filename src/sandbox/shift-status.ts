import type { DepositStatus, Shift } from "./state"

// The service's status model (service-behaviour.md, "Shift statuses"). A shift without a deposit is
// `waiting` or `expired`; with one deposit it shows that deposit's status; with several, `multiple`.

export const ALL_STATUSES = [
  "waiting",
  "pending",
  "processing",
  "review",
  "settling",
  "settled",
  "refund",
  "refunding",
  "refunded",
  "expired",
  "multiple",
] as const satisfies readonly (DepositStatus | "waiting" | "expired" | "multiple")[]

export type ShiftStatus = (typeof ALL_STATUSES)[number]

/** Where each deposit status can go next: the happy path and the review / refund branches. */
export const DEPOSIT_TRANSITIONS: Record<DepositStatus, readonly DepositStatus[]> = {
  pending: ["processing", "review", "refund"],
  processing: ["settling", "review", "refund"],
  review: ["settled", "refund"],
  settling: ["settled"],
  settled: [],
  refund: ["refunding"],
  refunding: ["refunded"],
  refunded: [],
}

/** From `waiting` a deposit arrives (pending) or the validity ends (expired). */
export const WAITING_TRANSITIONS: readonly ShiftStatus[] = ["pending", "expired"]

export const ISSUES = [
  "amount over max",
  "amount under min",
  "refund required",
  "incorrect amount",
  "order expired",
  "max 1 deposit",
  "too many deposits",
  "review",
  "coin unavailable",
  "rate drift",
  "duplicate",
  "low effective rate",
] as const

const isFinalDeposit = (status: DepositStatus) => DEPOSIT_TRANSITIONS[status].length === 0

/** The validity has ended: the clock passed expiresAt, or the order was cancelled. */
export function isPastValidity(shift: Shift, now: Date): boolean {
  return shift.cancelledAt !== undefined || now.getTime() >= shift.expiresAt.getTime()
}

/** Evaluated on every read against the sandbox clock, so a read always reflects the current time. */
export function shiftStatus(shift: Shift, now: Date): ShiftStatus {
  if (shift.deposits.length > 1) {
    return "multiple"
  }
  if (shift.deposits.length === 1) {
    return shift.deposits[0].status
  }
  return isPastValidity(shift, now) ? "expired" : "waiting"
}

/** Still in progress: counts towards the open-order limit. */
export function isOpen(shift: Shift, now: Date): boolean {
  if (shift.deposits.length === 0) {
    return !isPastValidity(shift, now)
  }
  return shift.deposits.some((deposit) => !isFinalDeposit(deposit.status))
}

/** When the shift last changed, including the moment the clock made it expire. */
export function lastUpdated(shift: Shift, now: Date): Date {
  const times = [shift.updatedAt, ...shift.deposits.map((deposit) => deposit.updatedAt)]
  if (shift.deposits.length === 0 && shiftStatus(shift, now) === "expired" && !shift.cancelledAt) {
    times.push(shift.expiresAt)
  }
  return new Date(Math.max(...times.map((time) => time.getTime())))
}
