import type { Shift } from "../../../lib/types"
import { DetailRow } from "../detail-row"

/** Where a refund shift stands, in the merchant's words: the store funds it, the shopper receives it. */
const REFUND_SHIFT_STATE: Record<string, string> = {
  address_needed: "Waiting for the shopper's refund address: set it below, or the shopper gives it on the payment page.",
  waiting: "Waiting for the store's deposit to the address below.",
  pending: "The store's deposit was detected; the refund is being confirmed.",
  processing: "The refund is being processed.",
  settling: "The refund is being sent to the shopper.",
  settled: "The refund was sent to the shopper.",
  refund: "The service is returning the store's deposit to its settlement address.",
  refunding: "The service is returning the store's deposit to its settlement address.",
  refunded: "The store's deposit was returned to its settlement address; the shopper was not paid.",
  expired: "Expired before the store's deposit arrived: renew the refund shift to try again, from an hour after it expired (a deposit already on its way may still reach it until then).",
  paid_manually: "Marked as refunded by other means.",
}

/** Settled is not yet paid in full: the sync judges what the shopper got (`flags.refunded`, `refund_short`). */
function refundShiftState(shift: Shift): string | null {
  if (shift.flags?.refund_short) return "The store's deposit paid the shopper only part of the refund: the rest is still owed."
  if (["settled", "multiple"].includes(shift.status) && !shift.flags?.refunded) return "The refund shift settled: what it paid the shopper is being confirmed."
  return REFUND_SHIFT_STATE[shift.status] ?? null
}

/** A payment shift goes into refund when the service returns the shopper's deposit by itself. */
function paymentRefundState(shift: Shift): string | null {
  const addressNeeded = Boolean(shift.flags?.address_needed || shift.view.refund?.address_needed)
  switch (shift.status) {
    case "refund":
      return addressNeeded
        ? "The service will return the deposit once it has a refund address."
        : "The service is about to return the deposit to the refund address."
    case "refunding":
      return "The service is returning the deposit to the refund address."
    case "refunded":
      return "The deposit was returned to the refund address."
    default:
      return addressNeeded ? "A refund address is needed." : null
  }
}

export function RefundState({ shift }: { shift: Shift }) {
  const refundShift = shift.kind === "refund"
  const state = refundShift ? refundShiftState(shift) : paymentRefundState(shift)
  if (!state && !shift.refund_address) return null
  return (
    <div data-testid="crypto-swap-refund-state">
      {state ? <DetailRow label="Refund">{state}</DetailRow> : null}
      {shift.refund_address ? (
        <DetailRow label={refundShift ? "Pays the shopper at" : "Refund address"} copy={shift.refund_address}>
          {shift.refund_address}
          {shift.refund_memo ? ` (memo ${shift.refund_memo})` : ""}
        </DetailRow>
      ) : null}
    </div>
  )
}
