import type { ShiftActionKind } from "../../modules/crypto-swap/models/swap-shift-action"
import type { ShiftActionPlan } from "../../lib/shift-actions"
import type { ShiftAction } from "./shift-action"
import { authorizePayment } from "./authorize-payment"
import { capturePayment } from "./capture-payment"
import { cancelExpiredPayment } from "./cancel-expired-payment"
import { cancelRefundedPayment } from "./cancel-refunded-payment"
import { setShiftRefundAddress } from "./set-shift-refund-address"
import { cancelAbandonedShift } from "./cancel-abandoned-shift"

/** Each action kind, in the order a sync runs them, with the plan's flag that calls for it. */
export const SHIFT_ACTIONS: ReadonlyArray<{ kind: ShiftActionKind; planned: keyof ShiftActionPlan; run: ShiftAction }> = [
  { kind: "authorize", planned: "authorize", run: authorizePayment },
  { kind: "capture", planned: "capture", run: capturePayment },
  { kind: "cancel_expired", planned: "cancelExpired", run: cancelExpiredPayment },
  { kind: "cancel_refunded", planned: "cancelRefunded", run: cancelRefundedPayment },
  { kind: "cancel_abandoned", planned: "cancelAbandoned", run: cancelAbandonedShift },
  { kind: "set_refund_address", planned: "setRefundAddress", run: setShiftRefundAddress },
]

export type { ShiftAction, ShiftActionResult } from "./shift-action"
