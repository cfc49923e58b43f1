import { CRYPTO_SWAP_MODULE, type CryptoSwapModuleService } from "../../modules/crypto-swap"
import { addDecimals, compareDecimals, subtractDecimals } from "../../lib/money"
import { excessRefundId } from "../../lib/shift/refund-ids"
import { excessToGiveBack } from "../../lib/shift/shift-actions"
import { recordRefund } from "../steps/record-refund"
import { recordUnrecordedHeldRefunds } from "../steps/refund-held-money"
import type { ShiftAction } from "./shift-action"

/**
 * Gives back what a captured payment settled above the amount due (`overpayment: "refund"`): the
 * overpayment at capture, then each deposit the shopper sends again to the variable address; or, for a
 * payment whose money is owed back or refunded, or a top-up credited or refunded, every deposit sent to it
 * after that. Each part is one
 * refund the ledger owes, made into a refund shift by the sync like any other; what was recorded already
 * is counted from the ledger's refunds, so a repeat after a crash records nothing twice.
 */
export const refundExcess: ShiftAction = async (container, row, recorded) => {
  const excess = (recorded.decision && excessToGiveBack(row, recorded.decision)) ?? "0"
  const ledger = container.resolve<CryptoSwapModuleService>(CRYPTO_SWAP_MODULE)
  // Held money whose refunds a crash left unrecorded (its mark written, nothing planned since): recorded first, once.
  await recordUnrecordedHeldRefunds(container, row)
  const firstId = excessRefundId(row.id)
  // By the row's own refund ids, whichever of a hosted checkout's shifts it followed when each was made
  // (`_` is LIKE's any-character: the exact test follows).
  const given = (await ledger.listSwapShifts({ kind: "refund", refund_id: { $like: `${firstId}%` } }, { select: ["refund_id", "amount_due"] })).filter(
    (refund) => refund.refund_id === firstId || refund.refund_id?.startsWith(`${firstId}_`)
  )
  const givenBack = addDecimals("0", ...given.map((refund) => refund.amount_due ?? "0"))
  const owed = compareDecimals(excess, givenBack) > 0 ? subtractDecimals(excess, givenBack) : null
  if (owed) {
    const refundId = given.length ? `${firstId}_${given.length + 1}` : firstId
    if (!(await recordRefund(ledger, { refund_id: refundId, amount: owed, payment_id: row.payment_id, of: row }))) {
      throw new Error(`Refund ${refundId} was recorded meanwhile: counted again at the next attempt`)
    }
  }
  return {
    // Its pending mark stays cleared: these flags were read before the refunds above cleared it.
    ledger: { flags: { ...(row.flags ?? {}), ...(row.flags?.held_pending ? { held_pending: null } : {}), excess_refunded: owed ? excess : givenBack } },
    ...(owed ? { history: "refund_excess" } : {}),
  }
}
