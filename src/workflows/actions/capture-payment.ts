import { ContainerRegistrationKeys } from "@medusajs/framework/utils"
import { CRYPTO_SWAP_MODULE, type CryptoSwapModuleService } from "../../modules/crypto-swap"
import { providerById } from "../../lib/provider-registry"
import { excessRefundId } from "../../lib/shift/refund-ids"
import { recordRefund } from "../steps/record-refund"
import type { RecordedShift } from "../steps/record-shift-observation"
import type { LedgerShift, ShiftAction } from "./shift-action"
import { sessionPayment } from "./session-payment"
import { processSyncedPayment } from "./process-payment"
import { mirrorCredit } from "../steps/payment-credit"

/**
 * The shift settled: capture. A payment Medusa canceled meanwhile (the order was canceled while the
 * deposit was on its way), or a shift an admin chose to refund rather than place its order, is never
 * captured: the settled amount is recorded as owed to the shopper.
 */
export const capturePayment: ShiftAction = async (container, row, recorded) => {
  const before = await sessionPayment(container, row)
  if ((before.payment?.canceled_at && !before.payment.captured_at) || (row.flags?.refund_instead && !before.payment?.captured_at)) {
    return {
      ledger: { ...before.links, refund_owed: recorded.decision?.settledAmount ?? row.settle_amount },
      history: "refund_owed",
      outcome: "refund_owed",
      event: "crypto-swap.shift.refund_owed",
    }
  }
  if (!before.payment?.captured_at) {
    // The provider decides from the payment's data: its copy of the credit (an accepted shortfall of an
    // order placed before it settled short) must be the ledger's, even after a lost copy.
    if (row.credit) await mirrorCredit(container, row)
    await processSyncedPayment(container, row, recorded, "captured")
  }
  const { payment, links } = await sessionPayment(container, row)
  if (!payment?.captured_at) throw new Error("The payment was not captured")
  await refundExcess(container, { ...row, ...links }, recorded)
  const now = new Date()
  return { ledger: { ...links, captured_at: now, authorized_at: row.authorized_at ?? now }, history: "captured" }
}

/**
 * Paid too much, and the store gives the excess back (`overpayment: "refund"`): a refund the ledger owes,
 * once per shift, made into a refund shift by the sync like any other.
 */
async function refundExcess(container: Parameters<ShiftAction>[0], row: LedgerShift, recorded: RecordedShift) {
  const excess = recorded.decision?.excessAmount
  if (!excess) return
  const { options } = providerById(container.resolve(ContainerRegistrationKeys.CONFIG_MODULE), row.provider_id!)
  if (options.overpayment !== "refund") return
  await recordRefund(container.resolve<CryptoSwapModuleService>(CRYPTO_SWAP_MODULE), {
    refund_id: excessRefundId(row.id),
    amount: excess,
    payment_id: row.payment_id,
    of: row,
  })
}
