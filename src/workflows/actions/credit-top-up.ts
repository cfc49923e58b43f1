import { Modules } from "@medusajs/framework/utils"
import { CRYPTO_SWAP_MODULE, type CryptoSwapModuleService } from "../../modules/crypto-swap"
import { applyPaymentCredit, mirrorCredit } from "../steps/payment-credit"
import { refundHeldShift } from "../steps/refund-held-money"
import { shiftLockKey } from "../shift-lock"
import { creditedTopUps, paymentClosed } from "../../lib/shift/underpayment"
import type { ShiftAction } from "./shift-action"

/**
 * A top-up settled. While its payment still waits for the rest, it counts toward the payment (which is
 * synced next and places the order once the amounts cover it). A payment that can take no more (paid,
 * given back, accepted short, refunded or expired at the service) gets none: the top-up is refunded to
 * the shopper like any money no order holds. A retry after a crash finds it counted, and counts it once.
 */
export const creditTopUp: ShiftAction = async (container, row, recorded) => {
  const ledger = container.resolve<CryptoSwapModuleService>(CRYPTO_SWAP_MODULE)
  // Under the payment's lock, like every change to it: a sync of it must not write over the credit.
  return container.resolve(Modules.LOCKING).execute(
    shiftLockKey(row.top_up_of!),
    async () => {
      const payment = await ledger.retrieveSwapShift(row.top_up_of!)
      if (creditedTopUps(payment).includes(row.id)) {
        await mirrorCredit(container, payment)
        return { ledger: { captured_at: new Date() }, history: "credited" }
      }
      if (paymentClosed(payment)) {
        await refundHeldShift(ledger, row, recorded.decision?.settledAmount ?? row.settle_amount!)
        return { ledger: { captured_at: new Date() }, history: "refunded_top_up", outcome: "refund" }
      }
      await applyPaymentCredit(container, payment, row.id)
      return { ledger: { captured_at: new Date() }, history: "credited" }
    },
    { timeout: 30 }
  )
}
