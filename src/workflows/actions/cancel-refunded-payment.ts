import { ContainerRegistrationKeys, Modules } from "@medusajs/framework/utils"
import { CRYPTO_SWAP_MODULE, type CryptoSwapModuleService } from "../../modules/crypto-swap"
import { providerById } from "../../lib/provider-registry"
import { topUpAmount } from "../../lib/shift/ledger-fields"
import { creditedTopUps } from "../../lib/shift/underpayment"
import { refundHeldShift } from "../steps/refund-held-money"
import { mirrorCredit } from "../steps/payment-credit"
import type { ShiftAction } from "./shift-action"

/**
 * The service sent the deposit back after the payment was authorized, or counted top-ups: the payment is
 * canceled and the order is flagged (metadata `crypto_swap_flag`), so an admin sees it was never paid. The
 * top-ups it counted are given back through refund shifts (once each, by refund id): they pay no order now,
 * and the payment's credit goes with them.
 */
export const cancelRefundedPayment: ShiftAction = async (container, row) => {
  const ledger = container.resolve<CryptoSwapModuleService>(CRYPTO_SWAP_MODULE)
  const { options } = providerById(container.resolve(ContainerRegistrationKeys.CONFIG_MODULE), row.provider_id!)
  // Given back below, the top-ups count toward nothing: a deposit sent to the payment's address again is judged on
  // its own, by the ledger and by the provider (the session's copy), never on their credit.
  if (row.credit) await mirrorCredit(container, { payment_session_id: row.payment_session_id, credit: null })
  const counted = creditedTopUps(row)
  for (const topUp of counted.length ? await ledger.listSwapShifts({ id: counted, kind: "top_up" }) : []) {
    const amount = topUpAmount(topUp, options)
    if (amount) await refundHeldShift(ledger, topUp, amount)
  }
  const query = container.resolve(ContainerRegistrationKeys.QUERY)
  const {
    data: [session],
  } = await query.graph({
    entity: "payment_session",
    fields: ["payment.id", "payment.canceled_at", "payment.captured_at"],
    filters: { id: row.payment_session_id! },
  })
  const payment = session?.payment
  if (payment?.id && !payment.canceled_at && !payment.captured_at) {
    await container.resolve(Modules.PAYMENT).cancelPayment(payment.id)
  }
  if (row.cart_id) {
    const { data: links } = await query.graph({ entity: "order_cart", fields: ["order_id"], filters: { cart_id: row.cart_id } })
    const orderId = links[0]?.order_id
    if (orderId) {
      await container.resolve(Modules.ORDER).updateOrders(orderId, { metadata: { crypto_swap_flag: "refunded" } })
    }
  }
  return { ledger: { canceled_at: new Date(), credit: null }, history: "canceled" }
}
