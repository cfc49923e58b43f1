import type { AdminOrder, AdminPayment } from "@medusajs/framework/types"
import type { Shift } from "./types"

/** Every payment of the order, from whichever payment collections the order was loaded with. */
export function orderPayments(order: Pick<AdminOrder, "payment_collections"> | undefined): AdminPayment[] {
  return (order?.payment_collections ?? []).flatMap((collection) => collection.payments ?? [])
}

/**
 * The Medusa payment a crypto payment shift paid. The ledger keeps `payment_id` once the payment
 * exists; before that (or for an older row) the only payment of the same provider is the one.
 */
export function paymentForShift(payments: AdminPayment[], shift: Shift): AdminPayment | undefined {
  if (shift.payment_id) {
    const linked = payments.find((payment) => payment.id === shift.payment_id)
    if (linked) return linked
  }
  const sameProvider = payments.filter((payment) => payment.provider_id === shift.provider_id && !payment.canceled_at)
  return sameProvider.length === 1 ? sameProvider[0] : undefined
}

/** What can still be refunded, in the store currency's major units (Medusa's amounts are decimals). */
export function refundableAmount(payment: AdminPayment): number {
  const refunded = (payment.refunds ?? []).reduce((sum, refund) => sum + Number(refund.amount), 0)
  const paid = Number(payment.captured_amount ?? payment.amount)
  // Rounded to cents-and-beyond precision so float sums don't leave 0.000000001 refundable.
  return Math.max(0, Math.round((paid - refunded) * 1e8) / 1e8)
}

/** Only a captured crypto payment is refunded through a refund shift; before capture, Cancel applies. */
export function canRefundViaShift(shift: Shift, payment: AdminPayment | undefined): payment is AdminPayment {
  return shift.kind === "payment" && Boolean(shift.captured_at) && Boolean(payment?.captured_at) && refundableAmount(payment!) > 0
}

/** How long after its deadline a deposit already on its way may still reach a shift (the server's LATE_DEPOSIT_WATCH_MS). */
const LATE_DEPOSIT_HOUR_MS = 60 * 60 * 1000

/** The deadline passed, `afterMs` ago at least. */
const pastDeadline = (expiresAt: string | null | undefined, afterMs = 0) => Boolean(expiresAt) && Date.parse(expiresAt!) + afterMs <= Date.now()

/**
 * A refund the merchant may close as paid by other means: not yet funded at the service, its deposit sent
 * back in full (a fixed one once its deadline passed: `type`), or paid short once its shift can take the
 * rest no more, nor a transfer already on its way, an hour after its deadline (`refundShort`, `expiresAt`).
 * The route asks the service again before it records anything.
 */
export function canMarkRefunded(status: string, refundShort?: unknown, expiresAt?: string | null, sentBack?: unknown, type?: string | null): boolean {
  if (refundShort) return pastDeadline(expiresAt, LATE_DEPOSIT_HOUR_MS)
  // A fixed one sent back still takes the right amount until its deadline, and can't be canceled.
  if ((status === "refunded" || sentBack === "refunded") && type === "fixed") return pastDeadline(expiresAt)
  return ["payment_unknown", "address_needed", "creating", "waiting", "expired", "refunded"].includes(status) || sentBack === "refunded"
}

/**
 * A refund shift lives as long as its quote: one that expired unfunded, or whose deposit the service sent
 * back (`refunded`, or every deposit of a `multiple` one: `sentBack`), is renewed when the merchant is ready
 * to send, from an hour after its deadline (the route refuses sooner, saying until when).
 */
export function canRenewRefund(status: string, sentBack?: unknown, expiresAt?: string | null): boolean {
  return pastDeadline(expiresAt, LATE_DEPOSIT_HOUR_MS) && (status === "expired" || status === "refunded" || sentBack === "refunded")
}
