import { markRefundPaidManuallyStep } from "./steps/mark-refund-paid-manually"
import { underShiftLock } from "./under-shift-lock"

export const markRefundPaidManuallyWorkflow = underShiftLock("crypto-swap-mark-refund-paid-manually", markRefundPaidManuallyStep)
