import { acceptUnderpaymentStep } from "./steps/accept-underpayment"
import { underShiftLock } from "./under-shift-lock"

export const acceptUnderpaymentWorkflow = underShiftLock("crypto-swap-accept-underpayment", acceptUnderpaymentStep)
