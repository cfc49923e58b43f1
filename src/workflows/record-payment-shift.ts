import { createWorkflow, WorkflowResponse } from "@medusajs/framework/workflows-sdk"
import { recordPaymentShiftStep, type RecordPaymentShiftInput } from "./steps/record-payment-shift"

export const recordPaymentShiftWorkflowId = "crypto-swap-record-payment-shift"

/** Records a new payment's shift in the ledger the moment the provider has made it. */
export const recordPaymentShiftWorkflow = createWorkflow(recordPaymentShiftWorkflowId, (input: RecordPaymentShiftInput) => {
  return new WorkflowResponse(recordPaymentShiftStep(input))
})
