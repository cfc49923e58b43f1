import type { MedusaContainer } from "@medusajs/framework/types"
import type { CryptoSwapModuleService } from "../../modules/crypto-swap"
import type { ShiftActionKind } from "../../modules/crypto-swap/models/swap-shift-action"
import type { RecordedShift } from "../steps/record-shift-observation"

export type LedgerShift = Awaited<ReturnType<CryptoSwapModuleService["retrieveSwapShift"]>>

/** What an action that went through asks the sync to record. */
export type ShiftActionResult = {
  /** Ledger columns it settles (authorized_at, captured_at, refund_owed ...). */
  ledger?: Record<string, unknown>
  /** The action's name in the shift's history; none for actions that leave no mark there. */
  history?: string
  /** What it came to when that differs from the plain action (e.g. refund_owed instead of captured). */
  outcome?: string
  /** A plugin event announcing the outcome. */
  event?: string
  /** The shift changed at the service because of it: read it again at once. */
  reread?: boolean
  /** Actions planned beside it that it made pointless: they end done with its outcome instead of waiting forever. */
  ends?: ShiftActionKind[]
}

/**
 * One action of a sync. It throws when it did not take effect, so that the attempt is recorded as
 * failed and retried, never taken for done.
 */
export type ShiftAction = (container: MedusaContainer, row: LedgerShift, recorded: RecordedShift) => Promise<ShiftActionResult>

/** What a failed attempt of an action records besides the failure itself (e.g. paid, no order). */
export type ShiftActionFailure = (row: LedgerShift, now: Date) => Pick<ShiftActionResult, "ledger" | "event">

/**
 * Thrown by an action the service refused for an expected, passing reason (a cancel in a shift's first
 * minutes): counted and retried like any failure, but logged at debug, since nothing is wrong yet.
 */
export class ActionNotYet extends Error {}

/**
 * Why an action waits for the merchant, as event `crypto-swap.shift.attention` says it: its attempts ran out
 * (`failed`), it must not be repeated unattended (`needs_admin`, ActionNeedsAdmin), a refund's cost awaits
 * approval (`refund_cost_asked`), or it has waited hours on another action or on the service (`waiting`).
 */
export type AttentionCause = "failed" | "needs_admin" | "refund_cost_asked" | "waiting"

/**
 * Thrown by an action that must not be tried again unattended (the service may have acted on a request
 * whose answer was lost, and a repeat would act twice): it waits for an admin at once, whatever its attempts.
 */
export class ActionNeedsAdmin extends Error {
  constructor(
    message: string,
    readonly reason: Extract<AttentionCause, "needs_admin" | "refund_cost_asked"> = "needs_admin"
  ) {
    super(message)
  }
}
