import { createWorkflow, WorkflowResponse } from "@medusajs/framework/workflows-sdk"
import { discoverRefundsStep } from "./steps/discover-refunds"

export const recordRefundsWorkflowId = "crypto-swap-record-refunds"

/** Records in the ledger the refunds Medusa made of one crypto payment (right after an admin refund). */
export const recordRefundsWorkflow = createWorkflow(recordRefundsWorkflowId, (input: { payment_id: string }) => {
  return new WorkflowResponse(discoverRefundsStep(input))
})
