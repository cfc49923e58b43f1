import { createStep, StepResponse } from "@medusajs/framework/workflows-sdk"
import { ContainerRegistrationKeys, Modules } from "@medusajs/framework/utils"
import { CRYPTO_SWAP_MODULE, type CryptoSwapModuleService } from "../../modules/crypto-swap"

/**
 * The service sent the deposit back after the payment was authorized: the payment is canceled and the
 * order is flagged (metadata `crypto_swap_flag`), so an admin sees it was never paid.
 */
export const cancelRefundedPaymentStep = createStep(
  "crypto-swap-cancel-refunded-payment",
  async (input: { ledger_id: string }, { container }) => {
    const ledger = container.resolve<CryptoSwapModuleService>(CRYPTO_SWAP_MODULE)
    const query = container.resolve(ContainerRegistrationKeys.QUERY)
    const row = await ledger.retrieveSwapShift(input.ledger_id)
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
    return new StepResponse(payment?.id ?? null)
  }
)
