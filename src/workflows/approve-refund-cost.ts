import { approveRefundCostStep } from "./steps/approve-refund-cost"
import { underShiftLock } from "./under-shift-lock"

export const approveRefundCostWorkflow = underShiftLock("crypto-swap-approve-refund-cost", approveRefundCostStep)
