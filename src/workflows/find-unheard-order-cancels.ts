import { createWorkflow, WorkflowResponse } from "@medusajs/framework/workflows-sdk"
import { markUnheardOrderCancelsStep } from "./steps/mark-unheard-order-cancels"

/**
 * Finds captured crypto payments of orders canceled without the plugin hearing of it, and has their next sync
 * refund what a capture racing the cancel kept. Returns the ledger rows it marked.
 */
export const findUnheardOrderCancelsWorkflow = createWorkflow("crypto-swap-find-unheard-order-cancels", (input: { captured_since: string | null }) => {
  return new WorkflowResponse(markUnheardOrderCancelsStep(input))
})
