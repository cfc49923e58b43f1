import { createWorkflow, transform, WorkflowResponse } from "@medusajs/framework/workflows-sdk"
import { discoverShiftsStep } from "./steps/discover-shifts"
import { discoverRefundsStep } from "./steps/discover-refunds"
import { syncDueShiftsStep } from "./steps/sync-due-shifts"
import { recordReconciliationRunStep } from "./steps/record-reconciliation-run"

export const reconcileShiftsWorkflowId = "crypto-swap-reconcile-shifts"

/** One reconciliation tick: learn of shifts the ledger missed and of Medusa's refunds, sync the ones that are due, and record the run. */
export const reconcileShiftsWorkflow = createWorkflow(reconcileShiftsWorkflowId, () => {
  const startedAt = transform({}, () => new Date().toISOString())
  const discovery = discoverShiftsStep()
  const refunds = discoverRefundsStep({})
  const stats = syncDueShiftsStep()
  recordReconciliationRunStep({ started_at: startedAt, discovery, refunds, stats })
  const discovered = transform({ discovery }, ({ discovery }) => discovery.discovered)
  // Discovery's cost per tick (rows read) is returned with what it found.
  return new WorkflowResponse({ discovered, discovery, refunds, stats })
})
