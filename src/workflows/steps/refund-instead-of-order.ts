import { createStep, StepResponse } from "@medusajs/framework/workflows-sdk"
import { MedusaError, Modules } from "@medusajs/framework/utils"
import { CRYPTO_SWAP_MODULE, type CryptoSwapModuleService } from "../../modules/crypto-swap"
import type { MedusaContainer } from "@medusajs/framework/types"
import { refuseIfCapturedByMedusa, sessionPayment } from "../actions/session-payment"
import { markSessionGivenBack } from "./payment-credit"
import type { LedgerShift } from "../actions/shift-action"

/**
 * An admin gives up placing the order of a paid shift: the authorize stops for good, a payment Medusa
 * authorized without an order is canceled, and the settled amount is recorded as owed to the shopper
 * (by the capture, once the shift settles).
 */
export async function refundInsteadOfOrder(container: MedusaContainer, row: LedgerShift, actorId: string): Promise<void> {
  // Under the cart's lock, which Medusa's completion holds from its checks to the authorization: a completion
  // under way ends first (its order is then refunded from the order), or starts after the mark and is refused.
  if (!row.cart_id) return giveUpOrder(container, row, actorId)
  return container.resolve(Modules.LOCKING).execute(row.cart_id, () => giveUpOrder(container, row, actorId), { timeout: 30 })
}

async function giveUpOrder(container: MedusaContainer, row: LedgerShift, actorId: string): Promise<void> {
  const ledger = container.resolve<CryptoSwapModuleService>(CRYPTO_SWAP_MODULE)
  const { payment, orderId } = await sessionPayment(container, row)
  if (!orderId) refuseIfCapturedByMedusa(payment)
  if (row.kind !== "payment" || !row.paid_no_order_since || orderId) {
    throw new MedusaError(
      MedusaError.Types.NOT_ALLOWED,
      orderId
        ? `This payment belongs to order ${orderId}: refund it from the order.`
        : "Only a paid crypto payment whose order could not be placed can be refunded instead of placing its order."
    )
  }
  // The session marked before the payment is canceled: stopped between the two, a cart completion (refused by the
  // mark) could otherwise place the order on the canceled payment. Either stop leaves it paid with no order: retryable.
  await markSessionGivenBack(container, row)
  if (payment?.id && !payment.canceled_at) await container.resolve(Modules.PAYMENT).cancelPayment(payment.id)

  const now = new Date()
  // Only a failed authorize marks a payment paid with no order: it stops for good.
  await ledger.endOpenActions(row.id, ["authorize"], "refund_instead")
  await ledger.updateSwapShifts({
    id: row.id,
    paid_no_order_since: null,
    flags: { ...(row.flags ?? {}), refund_instead: { by: actorId, at: now.toISOString() } },
    next_sync_at: now,
  })
  await ledger.createSwapShiftEvents({
    swap_shift_id: row.id,
    from_status: row.status,
    to_status: row.status,
    source: "admin",
    action: "refund_instead",
    detail: { by: actorId },
    occurred_at: now,
  })
}

export const refundInsteadOfOrderStep = createStep(
  "crypto-swap-refund-instead-of-order",
  async (input: { ledger_id: string; actor_id: string }, { container }) => {
    const ledger = container.resolve<CryptoSwapModuleService>(CRYPTO_SWAP_MODULE)
    await refundInsteadOfOrder(container, await ledger.retrieveSwapShift(input.ledger_id), input.actor_id)
    return new StepResponse(input.ledger_id)
  }
)
