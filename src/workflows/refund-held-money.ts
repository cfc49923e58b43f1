import { refundHeldMoneyStep } from "./steps/refund-held-money"
import { underShiftLock } from "./under-shift-lock"

export const refundHeldMoneyWorkflow = underShiftLock("crypto-swap-refund-held-money", refundHeldMoneyStep)
