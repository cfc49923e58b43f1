import type { ShiftAction } from "./shift-action"
import { capturedAny, capturedInFull, sessionPayment, uncapturedRest } from "./session-payment"
import { bookOrderCaptures, captureSyncedAmount, processSyncedPayment } from "./process-payment"
import { Modules } from "@medusajs/framework/utils"
import { markSessionGivenBack, mirrorCredit } from "../steps/payment-credit"
import { refundCanceledCaptures } from "../refund-canceled-captures"

/**
 * The shift settled: capture. A payment Medusa canceled meanwhile, or whose order was canceled (while the
 * deposit was on its way), or a shift an admin chose to refund rather than place its order, is never
 * captured: the settled amount is recorded as owed to the shopper. One an admin captured in part by hand is
 * captured in full; its order canceled, it is then refunded through Medusa like the cancel's part.
 */
export const capturePayment: ShiftAction = async (container, row, recorded) => {
  const before = await sessionPayment(container, row)
  const canceled = Boolean(before.payment?.canceled_at || before.orderCanceled || row.order_canceled_at || row.flags?.refund_instead)
  const inFull = capturedInFull(before.payment)
  const partlyCaptured = !inFull && capturedAny(before.payment)
  if (canceled && partlyCaptured && !before.orderCanceled) {
    // Given back with no order to refund it from: recorded owed in full, Medusa's part would be paid back twice.
    throw new Error(`Part of payment ${before.payment!.id} was captured by hand: refund it from Medusa's payment, then pay the rest back by other means`)
  }
  // The provider decides from the payment's data: its copy of the credit (an accepted shortfall of an
  // order placed before it settled short) must be the ledger's, even after a lost copy.
  const capturing = partlyCaptured || (!canceled && !inFull)
  if (row.credit && capturing) await mirrorCredit(container, row)
  if (partlyCaptured) {
    // An admin captured part of it by hand: the rest is captured (a capture of the whole would be refused). Its
    // order canceled, the cancel refunded that part and the rest is refunded below as the cancel would have: each
    // Medusa refund becomes a refund shift for its share of what settled, none of it owed twice.
    await captureSyncedAmount(container, row, recorded, before.payment!.id, uncapturedRest(before.payment!))
  } else if (canceled && !inFull) {
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
  } else if (!inFull) {
    await processSyncedPayment(container, row, recorded, "captured")
  }
  const { payment, links, orderId, orderCanceled } = await sessionPayment(container, row)
  if (!capturedInFull(payment)) throw new Error("The payment was not captured")
  // Captured before this action, inside Medusa's authorization, books nothing on the order (Medusa's capture
  // workflows above book their own); booked before a cancel's refund, which Medusa books too, so they net out.
  if (inFull && orderId) await bookOrderCaptures(container, { order_id: orderId, currency_code: payment!.currency_code, captures: payment!.captures ?? [] })
  // Captured for an order canceled meanwhile (Medusa's own payment webhook route, or a capture racing the
  // cancel): nothing ships, so Medusa refunds it; retried until it has.
  if (orderCanceled) await refundCanceledCaptures(container, orderId!)
  const now = new Date()
  return { ledger: { ...links, captured_at: now, authorized_at: row.authorized_at ?? now }, history: "captured" }
}
