import { ContainerRegistrationKeys, Modules, PaymentSessionStatus } from "@medusajs/framework/utils"
import { cancelOrderWorkflow } from "@medusajs/core-flows"
import { providerById } from "../../lib/provider-registry"
import type { ShiftAction } from "./shift-action"

/**
 * A shift that expired unpaid (a hosted checkout once its page no longer takes a pick): its payment session
 * is canceled and, where an order was placed before payment and nothing was paid, the order is canceled so
 * its stock is released (configurable).
 */
export const cancelExpiredPayment: ShiftAction = async (container, row) => {
  const query = container.resolve(ContainerRegistrationKeys.QUERY)
  const paymentModule = container.resolve(Modules.PAYMENT)
  const { options } = providerById(container.resolve(ContainerRegistrationKeys.CONFIG_MODULE), row.provider_id!)

  const {
    data: [session],
  } = await query.graph({
    entity: "payment_session",
    fields: ["id", "status", "amount", "currency_code", "data", "payment.id", "payment.captured_at"],
    filters: { id: row.payment_session_id! },
  })
  if (session && session.status !== PaymentSessionStatus.CANCELED && !session.payment?.captured_at) {
    await paymentModule.updatePaymentSession({
      id: session.id,
      amount: session.amount,
      currency_code: session.currency_code,
      data: session.data ?? {},
      status: PaymentSessionStatus.CANCELED,
    })
  }

  const ledger: Record<string, unknown> = { canceled_at: new Date() }
  // A session Medusa deleted was replaced (the shopper picked another coin): the cart's order, if any,
  // was paid through the new one and is none of this shift's business.
  if (options.reconcile.cancelUnpaidOrders && row.cart_id && session && !session.payment?.captured_at) {
    const { data: links } = await query.graph({ entity: "order_cart", fields: ["order_id"], filters: { cart_id: row.cart_id } })
    const orderId = links[0]?.order_id
    if (orderId) {
      const {
        data: [order],
      } = await query.graph({ entity: "order", fields: ["id", "status"], filters: { id: orderId } })
      if (order && order.status !== "canceled") await cancelOrderWorkflow(container).run({ input: { order_id: orderId } })
      // Canceled now, or by a run that stopped before recording it (the order-canceled subscriber skips a
      // canceled session): a deposit after it is owed back, never paid_without_session.
      if (order) ledger.order_canceled_at = row.order_canceled_at ?? new Date()
      ledger.order_id = orderId
    }
  }
  return { ledger, history: "canceled" }
}
