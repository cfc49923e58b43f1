import { renewRefundShiftStep } from "./steps/renew-refund-shift"
import { underShiftLock } from "./under-shift-lock"

export const renewRefundShiftWorkflow = underShiftLock("crypto-swap-renew-refund-shift", renewRefundShiftStep)
