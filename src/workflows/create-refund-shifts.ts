import { createWorkflow, transform, WorkflowResponse } from "@medusajs/framework/workflows-sdk"
import { acquireLockStep, releaseLockStep } from "@medusajs/core-flows"
import { createRefundShiftsStep } from "./steps/create-refund-shifts"

export const createRefundShiftsWorkflowId = "crypto-swap-create-refund-shifts"

/** Makes the refund shifts a crypto payment owes, once, under a lock per payment. */
export const createRefundShiftsWorkflow = createWorkflow(createRefundShiftsWorkflowId, (input: { payment_id: string }) => {
  const lockKey = transform({ input }, ({ input }) => `crypto-swap:refunds:${input.payment_id}`)
  acquireLockStep({ key: lockKey, timeout: 30, ttl: 120 })
  const made = createRefundShiftsStep({ payment_id: input.payment_id })
  releaseLockStep({ key: lockKey })
  return new WorkflowResponse(made)
})
