import { passRefundAddressStep } from "./steps/pass-refund-address"
import { underShiftLock } from "./under-shift-lock"

export const passRefundAddressWorkflow = underShiftLock("crypto-swap-pass-refund-address", passRefundAddressStep)
