import { latestShiftId, type Checkout, type Shift } from "../swap-service"
import { depositsKept } from "./shift-actions"

export type FollowedShift = {
  /** The shift whose status is the payment's, as just read; null until the payer picks a coin. */
  shift: Shift | null
  /** Other shifts of the checkout the service has seen a deposit for (paid as well, or refunded since): for the merchant to check. */
  otherPaidShiftIds: string[]
}

/**
 * Reads the checkout's shift the payment follows. On the pay page the payer may pick a coin, then
 * another (or pay again after a refund), and each pick is a shift. A shift holding the payer's money
 * governs: the one followed so far (`followingId`) while it does, so a later deposit elsewhere (paid
 * twice, or a wrong amount sent to a second address, in review for hours or sent back) never takes over
 * a paid payment nor cancels its order; otherwise the latest one holding money. With every paid shift
 * given back, the latest paid one governs (the payment is refunded); with none paid, the latest shift.
 * The checkout's `orders` list each shift's deposits, so only shifts with deposits are read, the
 * followed one first: usually one read.
 */
export async function followedShift(
  checkout: Pick<Checkout, "orders">,
  readShift: (shiftId: string) => Promise<Shift>,
  followingId?: string | null
): Promise<FollowedShift> {
  const paidIds = (checkout.orders ?? []).filter((order) => order.deposits.length > 0).map((order) => order.id)
  if (paidIds.length === 0) {
    const latest = latestShiftId(checkout)
    return { shift: latest ? await readShift(latest) : null, otherPaidShiftIds: [] }
  }
  const followed = (shift: Shift) => ({ shift, otherPaidShiftIds: paidIds.filter((id) => id !== shift.id) })
  const candidates = followingId && paidIds.includes(followingId) ? [followingId, ...paidIds.filter((id) => id !== followingId)] : paidIds
  const read = new Map<string, Shift>()
  for (const shiftId of candidates) {
    const shift = await readShift(shiftId)
    if (depositsKept(shift) > 0) return followed(shift)
    read.set(shiftId, shift)
  }
  return followed(read.get(paidIds[0])!)
}
