import { createWorkflow, transform, WorkflowResponse } from "@medusajs/framework/workflows-sdk"
import { discoverShiftsStep } from "./steps/discover-shifts"
import { syncDueShiftsStep } from "./steps/sync-due-shifts"
import { recordReconciliationRunStep } from "./steps/record-reconciliation-run"

export const reconcileShiftsWorkflowId = "crypto-swap-reconcile-shifts"

/** One reconciliation tick: learn of new shifts, sync the ones that are due, and record the run. */
export const reconcileShiftsWorkflow = createWorkflow(reconcileShiftsWorkflowId, () => {
  const startedAt = transform({}, () => new Date().toISOString())
  const discovered = discoverShiftsStep()
  const stats = syncDueShiftsStep()
  recordReconciliationRunStep({ started_at: startedAt, discovered, stats })
  return new WorkflowResponse({ discovered, stats })
})
