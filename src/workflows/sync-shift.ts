import { createWorkflow, transform, when, WorkflowResponse } from "@medusajs/framework/workflows-sdk"
import { acquireLockStep, processPaymentWorkflow, releaseLockStep } from "@medusajs/core-flows"
import { observeShiftStep } from "./steps/observe-shift"
import { recordShiftObservationStep, type SyncSource } from "./steps/record-shift-observation"
import { completeShiftActionsStep } from "./steps/complete-shift-actions"
import { cancelExpiredPaymentStep } from "./steps/cancel-expired-payment"
import { setShiftRefundAddressStep } from "./steps/set-shift-refund-address"
import { cancelRefundedPaymentStep } from "./steps/cancel-refunded-payment"
import { cancelAbandonedShiftStep } from "./steps/cancel-abandoned-shift"
import { emitShiftEventsStep } from "./steps/emit-shift-events"

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
}

export const syncShiftWorkflowId = "crypto-swap-sync-shift"

/**
 * Reads one shift, records what changed and acts once per transition: authorize (completing the cart
 * into an order), capture on settlement, cancel on expiry, pass on a refund address, cancel a shift
 * whose session is gone. Pollers, webhooks, the storefront and admins all sync through here, under a
 * lock per shift.
 */
export const syncShiftWorkflow = createWorkflow(syncShiftWorkflowId, (input: SyncShiftInput) => {
  const lockKey = transform({ input }, ({ input }) => `crypto-swap:shift:${input.ledger_id}`)
  const lockTimeout = transform({ input }, ({ input }) => input.lock_timeout ?? 30)
  acquireLockStep({ key: lockKey, timeout: lockTimeout, ttl: 120 })

  const observation = observeShiftStep({ ledger_id: input.ledger_id, fresh_since: input.fresh_since })
  const recorded = recordShiftObservationStep({ observation, source: input.source })

  when("crypto-swap-authorize", { recorded }, ({ recorded }) => Boolean(recorded.plan?.authorize && recorded.payment)).then(
    () => {
      processPaymentWorkflow
        .runAsStep({
          input: transform({ recorded }, ({ recorded }) => ({ action: "authorized" as const, data: recorded.payment! })),
        })
        .config({ name: "crypto-swap-process-authorized" })
    }
  )
  when("crypto-swap-capture", { recorded }, ({ recorded }) => Boolean(recorded.plan?.capture && recorded.payment)).then(() => {
    processPaymentWorkflow
      .runAsStep({
        input: transform({ recorded }, ({ recorded }) => ({ action: "captured" as const, data: recorded.payment! })),
      })
      .config({ name: "crypto-swap-process-captured" })
  })
  when("crypto-swap-cancel-expired", { recorded }, ({ recorded }) => Boolean(recorded.plan?.cancelExpired)).then(() => {
    cancelExpiredPaymentStep({ ledger_id: input.ledger_id })
  })
  when("crypto-swap-cancel-refunded", { recorded }, ({ recorded }) => Boolean(recorded.plan?.cancelRefunded)).then(() => {
    cancelRefundedPaymentStep({ ledger_id: input.ledger_id })
  })
  when("crypto-swap-cancel-abandoned", { recorded }, ({ recorded }) => Boolean(recorded.plan?.cancelAbandoned)).then(() => {
    cancelAbandonedShiftStep({ ledger_id: input.ledger_id })
  })
  when("crypto-swap-set-refund-address", { recorded }, ({ recorded }) => Boolean(recorded.plan?.setRefundAddress)).then(() => {
    setShiftRefundAddressStep({ ledger_id: input.ledger_id })
  })

  const done = completeShiftActionsStep({ recorded, source: input.source })
  emitShiftEventsStep({ recorded })
  releaseLockStep({ key: lockKey })
  return new WorkflowResponse({ recorded, done })
})
