import { MedusaError } from "@medusajs/framework/utils"
import type { Shift, SwapServiceClient } from "../../lib/swap-service"
import { toMedusaError } from "../../lib/to-medusa-error"
import { isTerminal } from "../../lib/shift/shift-actions"
import { sentBackInFull } from "../../lib/shift/status-map"
import { LATE_DEPOSIT_WATCH_MS } from "../../lib/shift/sync-cadence"

/**
 * What the service says of a refund shift now, never the ledger's last sync: refuses when the merchant's
 * deposit reached it (it pays the shopper, or is on its way back) or the service can't say. One the service
 * sent back in full holds nothing.
 */
export async function assertRefundShiftUnfunded(client: SwapServiceClient, shiftId: string, doing: string) {
  const shift = await client.getShift(shiftId).catch((error) => {
    throw toMedusaError(error, doing)
  })
  const funded = Boolean(shift.depositHash) || (shift.deposits?.length ?? 0) > 0 || !["waiting", "expired"].includes(shift.status)
  if (funded && !sentBackInFull(shift)) {
    throw new MedusaError(
      MedusaError.Types.NOT_ALLOWED,
      `The refund shift has received a deposit ("${shift.status}"): it pays the shopper. Wait for it to settle, or for the service to send it back.`
    )
  }
  return shift
}

/**
 * A fixed refund shift the service sent the merchant's deposit back from still takes the right amount until
 * its deadline, and can't be canceled (only a waiting shift can): marked paid before then, a deposit sent to
 * it again would pay the shopper twice. A variable one takes deposits for its week: it may be marked paid
 * meanwhile, its address watched for a deposit until it expires.
 */
export function assertNotRefundableAgain(shift: Shift) {
  if (!sentBackInFull(shift) || shift.type === "variable") return
  if (shift.expiresAt && Date.parse(shift.expiresAt) <= Date.now()) return
  throw new MedusaError(
    MedusaError.Types.NOT_ALLOWED,
    `The service sent the deposit back, but the refund shift takes a deposit until ${shift.expiresAt ?? "its deadline"}: ` +
      "mark it paid after that, so that a deposit sent to it again can't pay the shopper twice."
  )
}

/** When no deposit already on its way can reach a shift any more: an hour after its deadline (null without one). */
const lateDepositsCloseAt = (shift: Shift) => (shift.expiresAt ? Date.parse(shift.expiresAt) + LATE_DEPOSIT_WATCH_MS : null)

/**
 * A refund shift no deposit can reach any more: past its deadline, and past the hour after it in which one
 * already on its way may still arrive (the service may release it to the shopper from review). Until then a
 * second shift beside it could pay the shopper twice, so the refund follows this one.
 */
export function assertRefundShiftClosed(shift: Shift) {
  const closesAt = lateDepositsCloseAt(shift)
  if (closesAt !== null && closesAt <= Date.now()) return
  const open = shift.expiresAt && Date.parse(shift.expiresAt) > Date.now() ? ` It takes deposits until ${shift.expiresAt}: send the right amount to it instead.` : ""
  throw new MedusaError(
    MedusaError.Types.NOT_ALLOWED,
    `The refund shift can still receive a deposit already on its way until ${closesAt === null ? "its deadline has passed" : new Date(closesAt).toISOString()}, ` +
      `which would pay the shopper: renew it after that, so that the shopper can't be paid twice.${open}`
  )
}

/**
 * A variable-rate refund shift that paid the shopper short, as the service says of it now: refuses while it
 * still takes the rest (the merchant may send it there), for the hour after its deadline in which a deposit
 * already on its way may still reach it and be released to the shopper (marked paid, the shopper would be paid
 * twice), or while money on it still moves.
 */
export async function assertShortRefundShiftClosed(client: SwapServiceClient, shiftId: string, doing: string) {
  const shift = await client.getShift(shiftId).catch((error) => {
    throw toMedusaError(error, doing)
  })
  const closesAt = lateDepositsCloseAt(shift)
  if (closesAt === null || closesAt > Date.now()) {
    throw new MedusaError(
      MedusaError.Types.NOT_ALLOWED,
      `The refund shift takes the rest until ${shift.expiresAt ?? "its deadline"}, and a deposit already on its way may still reach it until ` +
        `${closesAt === null ? "an hour after that" : new Date(closesAt).toISOString()}: send it there, or mark the refund paid after that.`
    )
  }
  if (!isTerminal(shift)) {
    throw new MedusaError(MedusaError.Types.NOT_ALLOWED, `A deposit to the refund shift is still on its way ("${shift.status}"): wait for it to settle.`)
  }
  return shift
}
