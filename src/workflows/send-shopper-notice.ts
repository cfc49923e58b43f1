import { createWorkflow, WorkflowResponse } from "@medusajs/framework/workflows-sdk"
import { sendShopperNoticeStep } from "./steps/send-shopper-notice"

export const sendShopperNoticeWorkflow = createWorkflow("crypto-swap-send-shopper-notice", (input: { ledger_id: string; event: string }) => {
  return new WorkflowResponse(sendShopperNoticeStep(input))
})
