import type { ShiftAction, ShiftActionFailure } from "./shift-action"
import { cartTotalAboveSession, sessionPayment } from "./session-payment"
import { processSyncedPayment } from "./process-payment"
import { markSessionGivenBack, mirrorCredit } from "../steps/payment-credit"
import { excessToGiveBack } from "../../lib/shift/shift-actions"

/**
 * The deposit is far enough along: authorize, which completes the cart into an order (or pays the order
 * placed before). Done only once an order holds the payment: a payment without one would be captured
 * with nothing to ship.
 */
export const authorizePayment: ShiftAction = async (container, row, recorded) => {
  const before = await sessionPayment(container, row)
  if (before.refundedByMedusa && !before.orderId) {
    // Medusa's own payment webhook route captures a paid checkout before it completes the cart, and refunds it
    // itself when the completion fails (its refund becomes a refund shift): that money never buys an order.
    // Captured and not refunded (that route between its capture and its completion, or a refund that failed),
    // it still does: completing the cart places the order on the captured payment.
    await markSessionGivenBack(container, row)
    const flags = { ...(row.flags ?? {}), refunded_by_medusa: before.payment!.id }
    // What settled above Medusa's refund until now was paid once: given back (refund_excess), never told as paid again.
    const beyond = recorded.decision ? excessToGiveBack({ ...row, flags }, recorded.decision) : null
    return {
      ledger: { ...before.links, paid_no_order_since: null, flags: { ...flags, paid_after_given_back: beyond } },
      history: "refunded_by_medusa",
      outcome: "refunded_by_medusa",
      // Medusa refunded what it captured: the capture planned with the authorize has nothing left to do.
      ends: ["capture"],
    }
  }
  if (before.orderCanceled) {
    // The order (placed before payment) was canceled before this payment started: authorizing would make a
    // payment of the canceled order. Marked as its cancel marks the order's other shifts: the capture owes it
    // back, and no route authorizes it meanwhile.
    await markSessionGivenBack(container, row)
    return { ledger: { ...before.links, paid_no_order_since: null, order_canceled_at: new Date() }, history: "order_canceled", outcome: "order_canceled" }
  }
  // The provider decides from the session's data: its copy of the credit (top-ups) must be the ledger's.
  if (row.credit) await mirrorCredit(container, row)
  await processSyncedPayment(container, row, recorded, "authorized")
  const { payment, orderId, links } = await sessionPayment(container, row)
  if (row.cart_id && !orderId) {
    // Medusa's payment workflow keeps the completion's error to itself: the one reason the plugin refuses is told.
    const short = await cartTotalAboveSession(container, row.cart_id, row.payment_session_id!)
    throw new Error(
      short
        ? `No order was placed for cart ${row.cart_id}: its total rose to ${short.total} after this payment of ${short.paid} started (taxes or a price applied later); refund it instead, or have the shopper pay the rest by other means and place the order`
        : `No order was placed for cart ${row.cart_id}: the cart could not be completed`
    )
  }
  // Medusa's authorize step swallows a provider or database error that is not its own, and an order placed
  // before payment exists anyway: only the payment says the authorization happened.
  if (!payment?.id) throw new Error(`Medusa did not authorize payment session ${row.payment_session_id}`)
  return { ledger: { ...links, authorized_at: new Date(), paid_no_order_since: null }, history: "authorized" }
}

/** The money arrived but no order holds it: a state of its own in the ledger, announced once. */
export const paidNoOrder: ShiftActionFailure = (row, now) =>
  row.paid_no_order_since ? {} : { ledger: { paid_no_order_since: now }, event: "crypto-swap.shift.paid_no_order" }
