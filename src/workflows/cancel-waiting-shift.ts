import { cancelWaitingShiftStep } from "./steps/cancel-waiting-shift"
import { underShiftLock } from "./under-shift-lock"

export const cancelWaitingShiftWorkflow = underShiftLock("crypto-swap-cancel-waiting-shift", cancelWaitingShiftStep)
