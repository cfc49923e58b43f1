/** What the shopper is told, and by which of the plugin's events. */
export type ShopperNotice = "payment_received" | "refund_address_needed" | "refunded" | "payment_expired"

const NOTICE_OF_EVENT: Record<string, ShopperNotice> = {
  "crypto-swap.shift.deposit_detected": "payment_received",
  "crypto-swap.shift.deposit_confirmed": "payment_received",
  "crypto-swap.shift.refund_address_needed": "refund_address_needed",
  "crypto-swap.shift.refunded": "refunded",
  "crypto-swap.shift.expired": "payment_expired",
}

export const SHOPPER_NOTICE_EVENTS = Object.keys(NOTICE_OF_EVENT)

/**
 * The notice an event of a ledger row means for the shopper, if any. A payment's shift tells them it
 * arrived, that an address is needed, that it expired, or that the service sent it back; a refund's
 * shift tells them only that they were refunded (its own expiry is the merchant's business); a top-up's
 * everything but its expiry.
 */
export function shopperNotice(event: string, kind: "payment" | "refund" | "top_up"): ShopperNotice | undefined {
  const notice = NOTICE_OF_EVENT[event]
  if (kind === "refund") return notice === "refunded" ? notice : undefined
  // An unpaid top-up running out leaves the payment as it was: the page offers another.
  if (kind === "top_up" && notice === "payment_expired") return undefined
  return notice
}
