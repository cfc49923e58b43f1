import type { ShiftActionKind } from "../../modules/crypto-swap/models/swap-shift-action"
import type { ShiftActionPlan } from "../../lib/shift/shift-actions"
import type { ShiftAction, ShiftActionFailure } from "./shift-action"
import { authorizePayment, paidNoOrder } from "./authorize-payment"
import { capturePayment } from "./capture-payment"
import { cancelExpiredPayment } from "./cancel-expired-payment"
import { cancelRefundedPayment } from "./cancel-refunded-payment"
import { setShiftRefundAddress } from "./set-shift-refund-address"
import { cancelAbandonedShift } from "./cancel-abandoned-shift"
import { createRefundShift } from "./create-refund-shift"
import { creditTopUp } from "./credit-top-up"
import { settleUnderpayment } from "./settle-underpayment"

/**
 * Each action kind, in the order a sync runs them, with the plan's flag that calls for it and what a
 * failed attempt records besides the failure.
 */
export const SHIFT_ACTIONS: ReadonlyArray<{
  kind: ShiftActionKind
  planned: keyof ShiftActionPlan
  run: ShiftAction
  failed?: ShiftActionFailure
}> = [
  { kind: "authorize", planned: "authorize", run: authorizePayment, failed: paidNoOrder },
  { kind: "capture", planned: "capture", run: capturePayment },
  { kind: "cancel_expired", planned: "cancelExpired", run: cancelExpiredPayment },
  { kind: "cancel_refunded", planned: "cancelRefunded", run: cancelRefundedPayment },
  { kind: "cancel_abandoned", planned: "cancelAbandoned", run: cancelAbandonedShift },
  { kind: "set_refund_address", planned: "setRefundAddress", run: setShiftRefundAddress },
  { kind: "create_refund_shift", planned: "createRefundShift", run: createRefundShift },
  { kind: "credit_top_up", planned: "creditTopUp", run: creditTopUp },
  { kind: "settle_underpayment", planned: "settleUnderpayment", run: settleUnderpayment },
]

export type { ShiftAction, ShiftActionFailure, ShiftActionResult } from "./shift-action"
