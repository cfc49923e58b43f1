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
  // No refund shift can pay it (the ledger never knew its payment): paid by other means.
  "payment_unknown",
]

/**
 * A refund reached the shopper: a sync judged its shift paid them in full (`flags.refunded`, whatever the
 * service's status: a `multiple` one may be on its way or sent back), or the merchant paid by other means.
 */
export const refundReachedShopper = (row: { status: string; flags: Record<string, unknown> | null }) =>
  row.status === "paid_manually" || (Boolean(row.flags?.refunded) && !row.flags?.refund_short)

type RefundPaid = { flags: Record<string, unknown> | null; settle_hash: string | null; settle_network: string | null; deposits?: unknown }

/**
 * The transaction that paid the shopper, of refunds that all reached them: the latest settlement of a refund shift
 * judged paid in full (a `multiple` one's last settled deposit's); none from one paid by other means, whose shift's
 * hash, if any, is the store's deposit sent back.
 */
export function refundReceipt(refunds: RefundPaid[]): { settle_hash: string | null; settle_network: string | null } {
  for (const refund of [...refunds].reverse()) {
    if (!refund.flags?.refunded) continue
    const deposits = Array.isArray(refund.deposits) ? (refund.deposits as Array<{ status?: string; settleHash?: string | null }>) : []
    const hash = refund.settle_hash ?? deposits.filter((deposit) => deposit.status === "settled" && deposit.settleHash).at(-1)?.settleHash
    if (hash) return { settle_hash: hash, settle_network: refund.settle_network }
  }
  return { settle_hash: null, settle_network: null }
}

/** The service sent the store's deposit to a refund shift back (every deposit of a `multiple` one: `sent_back`). */
export const refundSentBack = (row: { status: string; flags?: Record<string, unknown> | null }) =>
  row.status === "refunded" || row.flags?.sent_back === "refunded"
