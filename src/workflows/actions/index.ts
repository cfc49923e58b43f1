import type { ShiftActionKind } from "../../modules/crypto-swap/models/swap-shift-action"
import type { ShiftActionPlan } from "../../lib/shift/shift-actions"
import { heldAmount } from "../../lib/shift/refund-ids"
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
import { refundExcess } from "./refund-excess"
import { refundCanceledCapture } from "./refund-canceled-capture"
import type { LedgerShift } from "./shift-action"

/**
 * Each action kind, in the order a sync runs them, with the plan's flag that calls for it and what a
 * failed attempt records besides the failure. `ready`: what it waits on (an action before it in the same
 * sync) is done, `waitsFor` says what in the merchant's words; until then it is not tried. `repeats`: done, it runs again whenever the plan calls for it
 * (its plan asks only while there is more to do).
 */
export const SHIFT_ACTIONS: ReadonlyArray<{
  kind: ShiftActionKind
  planned: keyof ShiftActionPlan
  run: ShiftAction
  failed?: ShiftActionFailure
  ready?: { when: (row: LedgerShift) => boolean; waitsFor: string }
  repeats?: boolean
}> = [
  { kind: "authorize", planned: "authorize", run: authorizePayment, failed: paidNoOrder },
  // An authorize that failed leaves nothing to capture (a refund instead, or money that came after its order
  // was canceled, captures nothing either: the capture records it owed).
  {
    kind: "capture",
    planned: "capture",
    run: capturePayment,
    ready: {
      when: (row) => Boolean(row.authorized_at || row.flags?.refund_instead || row.order_canceled_at),
      waitsFor: "the order to be placed (or the payment refunded instead)",
    },
  },
  {
    kind: "refund_canceled_capture",
    planned: "refundCanceledCapture",
    run: refundCanceledCapture,
    ready: { when: (row) => Boolean(row.captured_at && row.order_id), waitsFor: "the payment's capture" },
  },
  { kind: "cancel_expired", planned: "cancelExpired", run: cancelExpiredPayment },
  { kind: "cancel_refunded", planned: "cancelRefunded", run: cancelRefundedPayment },
  // These two act on the shift followed at the service: done for one, they run again for the next a hosted
  // checkout's payer picks (the plan asks only while that shift waits for them).
  { kind: "cancel_abandoned", planned: "cancelAbandoned", run: cancelAbandonedShift, repeats: true },
  { kind: "set_refund_address", planned: "setRefundAddress", run: setShiftRefundAddress, repeats: true },
  { kind: "create_refund_shift", planned: "createRefundShift", run: createRefundShift },
  { kind: "credit_top_up", planned: "creditTopUp", run: creditTopUp },
  { kind: "settle_underpayment", planned: "settleUnderpayment", run: settleUnderpayment },
  // After the capture, or once the money is counted as given back (owed, its refund recorded, or refunded by Medusa).
  {
    kind: "refund_excess",
    planned: "refundExcess",
    run: refundExcess,
    ready: {
      when: (row) => Boolean(row.captured_at || row.refund_owed || heldAmount(row) || row.flags?.refunded_by_medusa),
      waitsFor: "the payment to be captured or counted as given back",
    },
    repeats: true,
  },
]

export type { ShiftAction, ShiftActionFailure, ShiftActionResult } from "./shift-action"
