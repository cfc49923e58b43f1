import { createStep, StepResponse } from "@medusajs/framework/workflows-sdk"
import { CRYPTO_SWAP_MODULE, type CryptoSwapModuleService } from "../../modules/crypto-swap"
import type { ShiftActionKind } from "../../modules/crypto-swap/models/swap-shift-action"
import { SHIFT_ACTIONS } from "../actions"
import type { RecordedShift } from "./record-shift-observation"

/**
 * Makes sure every action the plan calls for has its ledger record (one per shift and kind, so an
 * action is done once however many syncs plan it) and returns the kinds due now: pending and past
 * their backoff. Done actions are not run again (but a repeatable one the plan calls for again), nor
 * those waiting for an admin unless one asks (but those listed for waiting on another action).
 */
export const scheduleShiftActionsStep = createStep(
  "crypto-swap-schedule-shift-actions",
  async (input: { recorded: RecordedShift; retry_actions?: boolean }, { container }) => {
    const { plan, payment, ledger_id } = input.recorded
    // Authorize and capture act on Medusa's session: nothing to do for a row without one.
    const planned = SHIFT_ACTIONS.filter(
      ({ kind, planned }) => plan?.[planned] === true && (payment || (kind !== "authorize" && kind !== "capture"))
    ).map(({ kind }) => kind)
    if (!planned.length) return new StepResponse([] as ShiftActionKind[])

    const ledger = container.resolve<CryptoSwapModuleService>(CRYPTO_SWAP_MODULE)
    const existing = await ledger.listSwapShiftActions({ swap_shift_id: ledger_id, kind: planned })
    const known = new Set(existing.map((action) => action.kind))
    const missing = planned.filter((kind) => !known.has(kind))
    if (missing.length) {
      await ledger.createSwapShiftActions(missing.map((kind) => ({ swap_shift_id: ledger_id, kind }))).catch(async (error: unknown) => {
        // Recorded first by another sync, in a process whose lock this one's does not see (Medusa's in-memory locking).
        if ((await ledger.listSwapShiftActions({ swap_shift_id: ledger_id, kind: missing })).length < missing.length) throw error
      })
    }

    // A repeatable action done before has more to do now (the plan asks only then): it starts afresh.
    const repeats = new Set(SHIFT_ACTIONS.filter((entry) => entry.repeats).map((entry) => entry.kind))
    const again = existing.filter((action) => action.state === "done" && repeats.has(action.kind))
    if (again.length) {
      await ledger.updateSwapShiftActions(again.map((action) => ({ id: action.id, state: "pending" as const, attempts: 0, next_attempt_at: null, done_at: null })))
      for (const action of again) Object.assign(action, { state: "pending", next_attempt_at: null })
    }
    // An admin's retry: actions waiting for attention start a fresh count, and backed-off ones are due now.
    const retried = input.retry_actions ? existing.filter((action) => action.state !== "done") : []
    if (retried.length) {
      await ledger.updateSwapShiftActions(
        retried.map((action) => ({
          id: action.id,
          state: "pending" as const,
          attempts: action.state === "attention" ? 0 : action.attempts,
          next_attempt_at: null,
          blocked_since: null,
        }))
      )
      for (const action of retried) Object.assign(action, { state: "pending", next_attempt_at: null, blocked_since: null })
    }

    const now = Date.now()
    // One in `attention` only for waiting on another is looked at again: it runs once that is done.
    const waiting = new Set(
      existing
        .filter((action) => (action.state === "attention" && !action.blocked_since) || action.state === "done" || (action.next_attempt_at && new Date(action.next_attempt_at).getTime() > now))
        .map((action) => action.kind)
    )
    return new StepResponse(planned.filter((kind) => !waiting.has(kind)))
  }
)
