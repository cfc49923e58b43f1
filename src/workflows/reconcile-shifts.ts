import { createWorkflow, WorkflowResponse } from "@medusajs/framework/workflows-sdk"
import { discoverShiftsStep } from "./steps/discover-shifts"
import { syncDueShiftsStep } from "./steps/sync-due-shifts"

export const reconcileShiftsWorkflowId = "crypto-swap-reconcile-shifts"

/** One reconciliation tick: learn of new shifts, then sync the ones that are due. */
export const reconcileShiftsWorkflow = createWorkflow(reconcileShiftsWorkflowId, () => {
  const discovered = discoverShiftsStep()
  const stats = syncDueShiftsStep()
  return new WorkflowResponse({ discovered, stats })
})
