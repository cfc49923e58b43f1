import { ContainerRegistrationKeys, Modules } from "@medusajs/framework/utils"
import type { ShiftAction } from "./shift-action"

/**
 * The service sent the deposit back after the payment was authorized: the payment is canceled and the
 * order is flagged (metadata `crypto_swap_flag`), so an admin sees it was never paid.
 */
export const cancelRefundedPayment: ShiftAction = async (container, row) => {
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
  return { ledger: { canceled_at: new Date() }, history: "canceled" }
}
