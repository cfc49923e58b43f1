import type { Checkout } from "./schemas"

/** A checkout has no status of its own: its latest shift (`orders[0]`) has; none until the payer picks a coin. */
export function latestShiftId(checkout: Pick<Checkout, "orders">): string | undefined {
  return checkout.orders?.[0]?.id
}

export type GoverningShift = {
  /** The shift whose status is the payment's; undefined until the payer picks a coin. */
  shiftId: string | undefined
  /** Other shifts of the checkout the service has seen a deposit for (paid as well, or refunded since): for the merchant to check. */
  otherPaidShiftIds: string[]
}

/**
 * Which of a checkout's shifts the payment follows. On the pay page the payer may pick a coin, then
 * another (or pay again after a refund), and each pick is a shift. A shift the service has seen a
 * deposit for beats one never paid; the latest paid one beats older ones (the pay page offers another
 * coin after a paid shift only once its deposit was refunded); with none paid, the latest governs.
 * Decided from the checkout answer alone, whose `orders` list each shift's deposits: no shift is read
 * to choose, and every caller given the same answer chooses the same shift.
 */
export function governingShift(checkout: Pick<Checkout, "orders">): GoverningShift {
  const paid = (checkout.orders ?? []).filter((order) => order.deposits.length > 0)
  return {
    shiftId: paid[0]?.id ?? latestShiftId(checkout),
    otherPaidShiftIds: paid.slice(1).map((order) => order.id),
  }
}
