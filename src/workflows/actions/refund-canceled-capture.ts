import type { ShiftAction } from "./shift-action"
import { refundCanceledCaptures } from "../refund-canceled-captures"

/**
 * The payment was captured and its order canceled: what the cancel did not refund (a capture raced it, or its
 * refund failed) is refunded through Medusa; nothing when the cancel refunded it. Throws until Medusa recorded
 * the refund, so a failure is retried with backoff and reaches the admin. Done, the row says so and its quiet
 * reads stay quiet.
 */
export const refundCanceledCapture: ShiftAction = async (container, row) => {
  const refunded = await refundCanceledCaptures(container, row.order_id!)
  return {
    ledger: { flags: { ...(row.flags ?? {}), canceled_order_refunded: true } },
    ...(refunded.length ? { history: "canceled_order_refunded" } : {}),
  }
}
