import type { Checkout, Shift } from "./schemas"

/** A checkout has no status of its own: its latest shift (`orders[0]`) has; none until the payer picks a coin. */
export function latestShiftId(checkout: Pick<Checkout, "orders">): string | undefined {
  return checkout.orders?.[0]?.id
}

export type FollowedShift = {
  /** The shift whose status is the payment's, as just read; null until the payer picks a coin. */
  shift: Shift | null
  /** Other shifts of the checkout the service has seen a deposit for (paid as well, or refunded since): for the merchant to check. */
  otherPaidShiftIds: string[]
}

/** A shift whose deposit goes, or went, back to the payer: it holds no payment. */
const GIVEN_BACK_STATUSES = new Set(["refund", "refunding", "refunded", "expired"])

/**
 * Reads the checkout's shift the payment follows. On the pay page the payer may pick a coin, then
 * another (or pay again after a refund), and each pick is a shift. A shift the service has seen a
 * deposit for beats one never paid; the latest paid one beats older ones, unless its deposit is being
 * given back (a wrong amount sent to a second address after paying the first in full): an older shift
 * still holding a payment keeps governing, so a bounced deposit never cancels a paid order. With none
 * paid, the latest governs. The checkout's `orders` list each shift's deposits, so an older paid shift
 * is read only when a newer one was given back, and every caller given the same answers chooses alike.
 */
export async function followedShift(checkout: Pick<Checkout, "orders">, readShift: (shiftId: string) => Promise<Shift>): Promise<FollowedShift> {
  const paidIds = (checkout.orders ?? []).filter((order) => order.deposits.length > 0).map((order) => order.id)
  if (paidIds.length === 0) {
    const latest = latestShiftId(checkout)
    return { shift: latest ? await readShift(latest) : null, otherPaidShiftIds: [] }
  }
  let newestPaid: Shift | undefined
  for (const shiftId of paidIds) {
    const shift = await readShift(shiftId)
    newestPaid ??= shift
    if (!GIVEN_BACK_STATUSES.has(shift.status)) return { shift, otherPaidShiftIds: paidIds.filter((id) => id !== shiftId) }
  }
  return { shift: newestPaid!, otherPaidShiftIds: paidIds.slice(1) }
}
