import { createStep, StepResponse } from "@medusajs/framework/workflows-sdk"
import { ContainerRegistrationKeys } from "@medusajs/framework/utils"
import { CRYPTO_SWAP_MODULE, type CryptoSwapModuleService } from "../../modules/crypto-swap"
import { providerById } from "../../lib/provider-registry"
import { BLOCKED_ACTION_ATTENTION_MS, rowSyncAt } from "../../lib/shift/sync-cadence"
import { SHIFT_ACTIONS } from "../actions"
import type { RecordedShift } from "./record-shift-observation"
import type { ShiftActionOutcome } from "./run-shift-action"

/**
 * Schedules the shift's next read: at its status's cadence (after a failed read, its backoff), sooner when a
 * pending action's retry is due first, at once when an action changed the shift at the service. A terminal shift with nothing
 * pending (actions done or waiting for an admin) is not read again, unless an underpayment's wait ends later.
 */
export const finishShiftSyncStep = createStep(
  "crypto-swap-finish-shift-sync",
  async (input: { recorded: RecordedShift; outcomes: Array<ShiftActionOutcome | undefined> }, { container }) => {
    const { recorded } = input
    if (!recorded.plan) return new StepResponse(null)
    const ledger = container.resolve<CryptoSwapModuleService>(CRYPTO_SWAP_MODULE)
    const row = await ledger.retrieveSwapShift(recorded.ledger_id)
    const { options } = providerById(container.resolve(ContainerRegistrationKeys.CONFIG_MODULE), row.provider_id!)
    const now = new Date()

    // A blocked action is tried again when what it waits on is done, not on a schedule of its own; but the row is
    // read when it has waited long enough to be put on the merchant's list.
    const blocked = new Set(input.outcomes.filter((outcome) => outcome?.blocked).map((outcome) => outcome!.kind))
    const planned = SHIFT_ACTIONS.filter(({ planned }) => recorded.plan![planned] === true).map(({ kind }) => kind)
    const open = await ledger.listSwapShiftActions({ swap_shift_id: row.id, state: ["pending", "attention"] })
    const pending = open.filter((action) => action.state === "pending" && planned.includes(action.kind))
    // Listed for waiting on something that the shift, as read now, no longer calls for (its money is being
    // refunded instead, the top-up it waited on was counted): off the merchant's list, kept should it be called for again.
    const notNeeded = recorded.decision ? open.filter((action) => action.state === "attention" && action.blocked_since && !planned.includes(action.kind)) : []
    if (notNeeded.length) await ledger.updateSwapShiftActions(notNeeded.map((action) => ({ id: action.id, state: "pending" as const, next_attempt_at: null })))
    const dueAt = (action: (typeof pending)[number]) => {
      if (blocked.has(action.kind)) return action.blocked_since && new Date(new Date(action.blocked_since).getTime() + BLOCKED_ACTION_ATTENTION_MS)
      return action.next_attempt_at ? new Date(action.next_attempt_at) : now
    }
    const candidates = [
      // A read that failed keeps the backoff its record set (the shift is read again then, whatever the actions did),
      // and a record that scheduled the row by its shift keeps that.
      recorded.error || recorded.cadence_recorded ? row.next_sync_at && new Date(row.next_sync_at) : rowSyncAt(row, options, now),
      ...pending.map(dueAt),
      ...(input.outcomes.some((outcome) => outcome?.reread) ? [now] : []),
      // Its order's cancel marked meanwhile by a process that takes no lock (the cancel's subscriber, which gives up
      // waiting for the lock after a while, the job looking for unheard cancels): what the row calls for now (money
      // owed back, a capture to refund), this sync did not plan.
      ...(row.order_canceled_at && !recorded.order_canceled_seen ? [now] : []),
    ].filter((at): at is Date => Boolean(at))
    const next = candidates.length ? new Date(Math.min(...candidates.map((at) => at.getTime()))) : null
    await ledger.updateSwapShifts({ id: row.id, next_sync_at: next })
    return new StepResponse(next)
  }
)
