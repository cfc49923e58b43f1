import { refundInsteadOfOrderStep } from "./steps/refund-instead-of-order"
import { underShiftLock } from "./under-shift-lock"

/** An admin refunds a paid shift instead of placing its order; no sync places it meanwhile. */
export const refundInsteadOfOrderWorkflow = underShiftLock("crypto-swap-refund-instead-of-order", refundInsteadOfOrderStep)
