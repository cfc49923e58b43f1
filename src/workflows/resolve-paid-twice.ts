import { resolvePaidTwiceStep } from "./steps/resolve-paid-twice"
import { underShiftLock } from "./under-shift-lock"

export const resolvePaidTwiceWorkflow = underShiftLock("crypto-swap-resolve-paid-twice", resolvePaidTwiceStep)
