import { processPaymentWorkflow } from "@medusajs/core-flows"
import type { ShiftAction } from "./shift-action"
import { sessionPayment } from "./session-payment"

/** The deposit is far enough along: authorize, which completes the cart into an order (or pays the order placed before). */
export const authorizePayment: ShiftAction = async (container, row, recorded) => {
  await processPaymentWorkflow(container).run({ input: { action: "authorized", data: recorded.payment! } })
  const { payment, orderId, links } = await sessionPayment(container, row)
  if (!payment?.id && !orderId) throw new Error("The cart was not completed: no order and no payment")
  return { ledger: { ...links, authorized_at: new Date() }, history: "authorized" }
}
