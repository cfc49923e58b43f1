import type { MedusaContainer } from "@medusajs/framework/types"
import { createWorkflow, transform, when, WorkflowResponse } from "@medusajs/framework/workflows-sdk"
import { acquireLockStep, releaseLockStep } from "@medusajs/core-flows"
import { observeShiftStep } from "./steps/observe-shift"
import { recordShiftObservationStep, type SyncSource } from "./steps/record-shift-observation"
import { scheduleShiftActionsStep } from "./steps/schedule-shift-actions"
import { runShiftActionStep } from "./steps/run-shift-action"
import { finishShiftSyncStep } from "./steps/finish-shift-sync"
import { SHIFT_ACTIONS } from "./actions"
import { emitShiftEventsStep } from "./steps/emit-shift-events"
import type { ObservedShift } from "../lib/shift/sync-observation"
import { shiftLockKey, SYNC_LOCK_TTL_SECONDS } from "./shift-lock"

export type SyncShiftInput = {
  ledger_id: string
  source: SyncSource
  /** Seconds to wait for another sync of the same shift; 0 gives up at once (a storefront poll). */
  lock_timeout?: number
  /**
   * When the sync was asked for (ISO time): if another sync has read the shift since, this one has
   * nothing new to learn and skips the read. Bounds reads per shift under floods of requests.
   */
  fresh_since?: string
  /** An admin asked to try the pending actions now: those waiting in `attention` start a fresh count. */
  retry_actions?: boolean
  /**
   * What the reconciliation tick just read of the shift: taken instead of reading it again when still
   * fresh and no other sync has recorded anything since (see observeShiftStep).
   */
  observed?: ObservedShift
}

export const syncShiftWorkflowId = "crypto-swap-sync-shift"

/**
 * Reads one shift, records what changed and acts once per transition: authorize (completing the cart
 * into an order), capture on settlement, cancel on expiry, pass on a refund address, cancel a shift
 * whose session is gone. Pollers, webhooks, the storefront and admins all sync through here, under a
 * lock per shift.
 */
export const syncShiftWorkflow = createWorkflow(syncShiftWorkflowId, (input: SyncShiftInput) => {
  const lockKey = transform({ input }, ({ input }) => shiftLockKey(input.ledger_id))
  const lockTimeout = transform({ input }, ({ input }) => input.lock_timeout ?? 30)
  acquireLockStep({ key: lockKey, timeout: lockTimeout, ttl: SYNC_LOCK_TTL_SECONDS })

  const observation = observeShiftStep({ ledger_id: input.ledger_id, fresh_since: input.fresh_since, observed: input.observed })
  const recorded = recordShiftObservationStep({ observation, source: input.source })

  const due = scheduleShiftActionsStep({ recorded, retry_actions: input.retry_actions })
  // One step per kind, so each has its own name in the workflow's history; each records its own failure.
  const outcomes = SHIFT_ACTIONS.map(({ kind }) =>
    when(`crypto-swap-${kind}`, { due }, ({ due }) => due.includes(kind)).then(() =>
      runShiftActionStep({ kind, recorded, source: input.source }).config({ name: `crypto-swap-action-${kind}` })
    )
  )
  // Told before the row is scheduled by its cadence: until then the record keeps a row with events unsent due.
  emitShiftEventsStep({ recorded, outcomes })
  const next_sync_at = finishShiftSyncStep({ recorded, outcomes })
  releaseLockStep({ key: lockKey })
  return new WorkflowResponse({ recorded, outcomes, next_sync_at })
})

/**
 * Syncs one shift and says why it fell short, if it did: the workflow's error, or a failed read (which ends the
 * sync without an error of the workflow's, yet leaves the same gap).
 */
export async function syncShiftFailure(container: MedusaContainer, ledgerId: string, source: SyncSource): Promise<string | undefined> {
  const { result, errors } = await syncShiftWorkflow(container).run({ input: { ledger_id: ledgerId, source }, throwOnError: false })
  return errors?.[0]?.error?.message ?? result?.recorded?.error
}
