// A refund row's `refund_id` is unique: Medusa's refund id for refunds Medusa made, and one of these for
// money no Medusa refund covers, so each is refunded once however many times it is asked for.

/** Money a payment shift received that no order holds (an admin's "Refund via shift"). */
export const heldRefundId = (ledgerId: string) => `held_${ledgerId}`

/** What a row marked held gives back through its refund (`held_amount`, kept with the mark). */
export function heldAmount(row: { id: string; flags: Record<string, unknown> | null }): string | null {
  const amount = row.flags?.held_amount
  return row.flags?.held_refund === heldRefundId(row.id) && typeof amount === "string" ? amount : null
}

/** What a payment shift received above the amount due (`overpayment: "refund"`). */
export const excessRefundId = (ledgerId: string) => `excess_${ledgerId}`

/** Medusa's refund of an order (its own refund id), not one the ledger owes of its own (held or excess money). */
export const isOrderRefund = (refundId: string) => !refundId.startsWith(heldRefundId("")) && !refundId.startsWith(excessRefundId(""))

/**
 * A refund in one of these still needs the merchant: a destination, funds, or a renewal after its shift
 * expired or the service sent the merchant's deposit back (`refund` to `refunded`).
 */
export const OPEN_REFUND_STATUSES = [
  "address_needed", "creating", "waiting", "pending", "processing", "settling", "review", "expired", "refund", "refunding", "refunded",
]

/**
 * A refund in one of these reached the shopper: the service paid it (once, or over several deposits), or the
 * merchant did by other means; unless its variable-rate shift paid less than owed (`refund_short`), which
 * keeps it open whatever its status.
 */
export const SENT_REFUND_STATUSES = ["settled", "multiple", "paid_manually"]

export const refundReachedShopper = (row: { status: string; flags: Record<string, unknown> | null }) =>
  SENT_REFUND_STATUSES.includes(row.status) && !row.flags?.refund_short
