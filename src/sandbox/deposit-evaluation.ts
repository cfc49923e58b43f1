import { compareAmounts, convertDeposit } from "./pricing"
import { isPastValidity } from "./shift-status"
import type { Deposit, Shift } from "./state"

// What the service does with an incoming deposit (service-behaviour.md, statuses and `issue` values).

export type DepositOutcome = Pick<Deposit, "status" | "issue" | "settleAmount" | "rate" | "matchesOrder">

/** A variable shift swaps at most this many deposits; more are refunded. */
export const MAX_VARIABLE_DEPOSITS = 5

const refund = (issue: string): DepositOutcome => ({ status: "refund", issue, matchesOrder: false })

/** Only the exact amount, before expiresAt, and only once: anything else is refunded. */
function evaluateFixedDeposit(shift: Shift, amount: string, now: Date): DepositOutcome {
  if (shift.deposits.some((deposit) => deposit.matchesOrder)) {
    return refund("max 1 deposit")
  }
  if (isPastValidity(shift, now)) {
    return refund("order expired")
  }
  if (compareAmounts(amount, shift.depositAmount as string) !== 0) {
    return refund("incorrect amount")
  }
  return { status: "pending", settleAmount: shift.settleAmount, rate: shift.rate, matchesOrder: true }
}

/** Why a variable deposit is held for a human: the spec is silent, service-behaviour.md says review ("amount out of range, late deposit"). */
function variableReviewIssue(shift: Shift, amount: string, now: Date): string | undefined {
  if (isPastValidity(shift, now)) return "order expired"
  if (compareAmounts(amount, shift.depositMin) < 0) return "amount under min"
  if (compareAmounts(amount, shift.depositMax) > 0) return "amount over max"
  return undefined
}

/**
 * Each deposit is swapped on its own at the rate of its time. A late one, or one out of range, goes to
 * review with what it would settle now; the reviewer settles it (at the rate of the release) or refunds it.
 */
function evaluateVariableDeposit(shift: Shift, amount: string, now: Date): DepositOutcome {
  if (shift.deposits.length >= MAX_VARIABLE_DEPOSITS) {
    return refund("too many deposits")
  }
  const { settleAmount, rate } = convertDeposit(amount, shift.deposit, shift.settle)
  const issue = variableReviewIssue(shift, amount, now)
  return { status: issue ? "review" : "pending", issue, settleAmount, rate, matchesOrder: true }
}

export function evaluateDeposit(shift: Shift, amount: string, now: Date): DepositOutcome {
  return shift.type === "fixed" ? evaluateFixedDeposit(shift, amount, now) : evaluateVariableDeposit(shift, amount, now)
}
