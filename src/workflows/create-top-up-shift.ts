import { createTopUpShiftStep } from "./steps/create-top-up-shift"
import { underShiftLock } from "./under-shift-lock"

export const createTopUpShiftWorkflow = underShiftLock("crypto-swap-create-top-up-shift", createTopUpShiftStep)
