import type { ShiftActionState } from "../shift-actions"

/** A payment's ledger row before anything happened to it, as the plan reads it. */
export const freshPayment: ShiftActionState = {
  kind: "payment",
  payment_session_id: "payses_1",
  authorized_at: null,
  captured_at: null,
  canceled_at: null,
  refund_address: null,
  flags: null,
  amount_due: "50",
}
