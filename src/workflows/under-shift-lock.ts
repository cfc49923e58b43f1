import { createWorkflow, transform, WorkflowResponse, type StepFunction, type WorkflowData } from "@medusajs/framework/workflows-sdk"
import { acquireLockStep, releaseLockStep } from "@medusajs/core-flows"
import { shiftLockKey, SYNC_LOCK_TTL_SECONDS } from "./shift-lock"

/**
 * A workflow of one step that changes a shift's state, run under the shift's lock like every sync, so
 * an admin's or shopper's request never interleaves with a sync of the same shift.
 */
export function underShiftLock<Input extends { ledger_id: string }, Output>(id: string, step: StepFunction<Input, Output>) {
  return createWorkflow(id, (input: WorkflowData<Input>) => {
    const key = transform({ input }, (data) => shiftLockKey((data.input as { ledger_id: string }).ledger_id))
    acquireLockStep({ key, timeout: 30, ttl: SYNC_LOCK_TTL_SECONDS })
    // The SDK's step typing does not carry a generic input through; the step gets the workflow's input as is.
    const output = step(input as never) as unknown as WorkflowData<Output>
    releaseLockStep({ key })
    return new WorkflowResponse(output)
  })
}
