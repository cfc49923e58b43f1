import type { ShiftAction } from "./shift-action"
import { capturedAny, sessionPayment } from "./session-payment"
import { processSyncedPayment } from "./process-payment"
import { Modules } from "@medusajs/framework/utils"
import { markSessionGivenBack, mirrorCredit } from "../steps/payment-credit"
import { refundCanceledCaptures } from "../refund-canceled-captures"

/**
 * The shift settled: capture. A payment Medusa canceled meanwhile, or whose order was canceled (while the
 * deposit was on its way), or a shift an admin chose to refund rather than place its order, is never
 * captured: the settled amount is recorded as owed to the shopper.
 */
export const capturePayment: ShiftAction = async (container, row, recorded) => {
  const before = await sessionPayment(container, row)
  const canceled = Boolean(before.payment?.canceled_at || before.orderCanceled || row.order_canceled_at || row.flags?.refund_instead)
  if (canceled && !before.payment?.captured_at && capturedAny(before.payment)) {
    // Medusa refunds the part it holds, from the order; recorded owed in full, that part would be paid back twice,
    // and what the rest is worth in the settle coin is the merchant's call. Retried, then waits for an admin.
    throw new Error(
      `Part of payment ${before.payment!.id} was captured by hand before it was given back: Medusa refunds that part from the order; ` +
        "pay the shopper back the rest of what settled by other means"
    )
  }
  if (canceled && !before.payment?.captured_at) {
    // Owed back, it pays nothing any more, not even through Medusa's own payment webhook route: a payment Medusa
    // left open (its order canceled) is canceled, a session without one refuses to be authorized.
    if (before.payment && !before.payment.canceled_at) await container.resolve(Modules.PAYMENT).cancelPayment(before.payment.id)
    await markSessionGivenBack(container, row)
    return {
      // Owed, no longer waiting for an order: the admin refunds it through a refund shift.
      ledger: { ...before.links, refund_owed: recorded.decision?.settledAmount ?? row.settle_amount, paid_no_order_since: null },
      history: "refund_owed",
      outcome: "refund_owed",
      event: "crypto-swap.shift.refund_owed",
    }
  }
  if (!before.payment?.captured_at) {
    // The provider decides from the payment's data: its copy of the credit (an accepted shortfall of an
    // order placed before it settled short) must be the ledger's, even after a lost copy.
    if (row.credit) await mirrorCredit(container, row)
    await processSyncedPayment(container, row, recorded, "captured")
  }
  const { payment, links, orderId, orderCanceled } = await sessionPayment(container, row)
  if (!payment?.captured_at) throw new Error("The payment was not captured")
  // Captured for an order canceled meanwhile (Medusa's own payment webhook route, or a capture racing the
  // cancel): nothing ships, so Medusa refunds it; retried until it has.
  if (orderCanceled) await refundCanceledCaptures(container, orderId!)
  const now = new Date()
  return { ledger: { ...links, captured_at: now, authorized_at: row.authorized_at ?? now }, history: "captured" }
}
