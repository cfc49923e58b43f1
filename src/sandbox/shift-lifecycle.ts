import BigNumber from "bignumber.js"
import { newTransactionHash } from "./chain-formats"
import type { SandboxClock } from "./clock"
import { evaluateDeposit } from "./deposit-evaluation"
import { compareAmounts, hasAtMostDecimals, midRange } from "./pricing"
import { badUserInput, conflict } from "./service-error"
import { DEPOSIT_TRANSITIONS, WAITING_TRANSITIONS, shiftStatus, type ShiftStatus } from "./shift-status"
import type { Deposit, DepositStatus, Shift } from "./state"

export type DepositChangeListener = (shift: Shift, deposit: Deposit) => void
export type IncomingDeposit = { amount?: string; txid?: string }
/** `settleAmount`: a variable deposit released from review settles at the rate of its release, not of its arrival. */
export type StatusChange = { status: ShiftStatus; issue?: string; depositIndex?: number; settleAmount?: string }

/** The `issue` a deposit gets when it is held or refunded without a more specific reason. */
const DEFAULT_ISSUES: Partial<Record<DepositStatus, string>> = { review: "review", refund: "refund required" }

/** A fixed shift expects its exact amount; a variable one gets something comfortably inside its range. */
function defaultDepositAmount(shift: Shift): string {
  return shift.type === "fixed" ? (shift.depositAmount as string) : midRange({ min: shift.depositMin, max: shift.depositMax }, shift.deposit)
}

/**
 * The only place deposits arrive and statuses change after a shift's creation. Listeners (auto mode,
 * checkout notifications) hear about every change.
 */
export class ShiftLifecycle {
  private readonly listeners: DepositChangeListener[] = []

  constructor(private readonly clock: SandboxClock) {}

  onDepositChange(listener: DepositChangeListener): void {
    this.listeners.push(listener)
  }

  /** Tells listeners a deposit may have something new to do (a status change, a refund address). */
  announce(shift: Shift, deposit: Deposit): void {
    for (const listener of this.listeners) {
      listener(shift, deposit)
    }
  }

  receiveDeposit(shift: Shift, incoming: IncomingDeposit): Deposit {
    const amount = new BigNumber(incoming.amount ?? defaultDepositAmount(shift)).toFixed()
    if (!hasAtMostDecimals(amount, shift.deposit)) {
      throw badUserInput(`amount has more than ${shift.deposit.precision} decimals`)
    }
    const now = this.clock.now()
    const deposit: Deposit = {
      ...evaluateDeposit(shift, amount, now),
      depositHash: incoming.txid ?? newTransactionHash(shift.deposit.network),
      depositAmount: amount,
      depositReceivedAt: now,
      updatedAt: now,
    }
    shift.deposits.push(deposit)
    shift.updatedAt = now
    this.announce(shift, deposit)
    return deposit
  }

  moveDeposit(shift: Shift, deposit: Deposit, to: DepositStatus, issue?: string): void {
    const allowed = DEPOSIT_TRANSITIONS[deposit.status]
    if (!allowed.includes(to)) {
      throw conflict(`Cannot change status from ${deposit.status} to ${to}`, { allowed })
    }
    if (to === "refunding" && !shift.refundAddress) {
      throw conflict("A refund address must be set before the refund is sent", { allowed })
    }
    const now = this.clock.now()
    deposit.status = to
    deposit.updatedAt = now
    deposit.issue = issue ?? deposit.issue ?? DEFAULT_ISSUES[to]
    if (to === "settling" || to === "settled") {
      deposit.settleHash ??= newTransactionHash(shift.settle.network)
    }
    if (to === "refunding" || to === "refunded") {
      deposit.settleHash ??= newTransactionHash(shift.deposit.network)
    }
    shift.updatedAt = now
    this.announce(shift, deposit)
  }

  /** A status change asked for through the control interface, applied to the deposit it concerns. */
  changeStatus(shift: Shift, change: StatusChange): void {
    if (shift.deposits.length === 0) {
      this.changeWaitingShift(shift, change.status)
      return
    }
    const deposit = this.depositFor(shift, change.depositIndex)
    if (change.settleAmount !== undefined) this.releaseAtNewRate(shift, deposit, change)
    // A deposit held in review that converts to nothing (dust under the fee) has nothing a reviewer could settle.
    else if (deposit.status === "review" && change.status === "settled" && compareAmounts(deposit.settleAmount ?? "0", "0") <= 0) {
      throw badUserInput("Nothing to settle: refund it, or release it with a settleAmount")
    }
    this.moveDeposit(shift, deposit, change.status as DepositStatus, change.issue)
  }

  private releaseAtNewRate(shift: Shift, deposit: Deposit, change: StatusChange): void {
    if (shift.type !== "variable" || deposit.status !== "review" || change.status !== "settled") {
      throw badUserInput("Only a variable deposit in review settles at another amount")
    }
    deposit.settleAmount = change.settleAmount
    deposit.rate = new BigNumber(change.settleAmount!).div(deposit.depositAmount).toFixed()
  }

  /** Ends the validity of a waiting shift (cancel-order, or the control interface): it expires now. */
  expire(shift: Shift): void {
    const now = this.clock.now()
    shift.cancelledAt = now
    shift.expiresAt = now
    shift.updatedAt = now
  }

  private changeWaitingShift(shift: Shift, to: ShiftStatus): void {
    const from = shiftStatus(shift, this.clock.now())
    const allowed = from === "waiting" ? WAITING_TRANSITIONS : []
    if (!allowed.includes(to)) {
      throw conflict(`Cannot change status from ${from} to ${to}`, { allowed })
    }
    if (to === "expired") {
      this.expire(shift)
    } else {
      this.receiveDeposit(shift, {})
    }
  }

  /** The named deposit; by default the only one, or the first still in progress. */
  private depositFor(shift: Shift, index: number | undefined): Deposit {
    if (index !== undefined) {
      const deposit = shift.deposits[index]
      if (!deposit) {
        throw badUserInput(`The shift has no deposit ${index}`)
      }
      return deposit
    }
    const inProgress = shift.deposits.find((deposit) => DEPOSIT_TRANSITIONS[deposit.status].length > 0)
    return inProgress ?? shift.deposits[shift.deposits.length - 1]
  }
}
