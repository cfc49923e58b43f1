import type { MedusaContainer } from "@medusajs/framework/types"
import { createWorkflow, transform, when, WorkflowResponse } from "@medusajs/framework/workflows-sdk"
import { refundPaymentsWorkflow, useQueryGraphStep } from "@medusajs/core-flows"
import { ContainerRegistrationKeys, MathBN } from "@medusajs/framework/utils"
import { registeredProviders } from "../lib/provider-registry"
import { rawTotal } from "../lib/money"
import { bookCanceledOrderRefundsStep } from "./steps/book-canceled-order-refunds"

type CanceledOrder = { canceled_at?: Date | string | null; payment_collections?: Array<{ payments?: any[] } | null> | null }

const ORDER_FIELDS = [
  "canceled_at",
  "payment_collections.payments.id",
  "payment_collections.payments.provider_id",
  "payment_collections.payments.currency_code",
  "payment_collections.payments.captures.raw_amount",
  "payment_collections.payments.refunds.id",
  "payment_collections.payments.refunds.raw_amount",
]

/** The order's payments made by the plugin's providers. */
function pluginPayments(order: CanceledOrder, providerIds: string[]) {
  return (order.payment_collections ?? []).flatMap((collection) => collection?.payments ?? []).filter((payment) => providerIds.includes(payment.provider_id))
}

/**
 * What the plugin's payments of a canceled order kept: captured and not refunded. Canceled is `canceled_at`, not
 * the status, which an archived canceled order no longer says.
 */
function keptOnCanceledOrder(order: CanceledOrder, providerIds: string[]) {
  if (!order.canceled_at) return []
  return pluginPayments(order, providerIds)
    .map((payment) => ({ payment_id: payment.id as string, amount: MathBN.sub(rawTotal(payment.captures), rawTotal(payment.refunds)) }))
    .filter((refund) => MathBN.gt(refund.amount, 0))
}

/**
 * Medusa's order cancel refunds every captured payment, so money captured on a canceled order and not refunded
 * was kept by a capture that came too late: between the cancel's read of the payments and its cancel of them
 * (the job's, as the shift settled), or after it (Medusa's own payment webhook route captures without looking at
 * the order). Refunds what the plugin's payments (`provider_ids`) of the order kept, as the cancel would have;
 * nothing unless the order is canceled. Medusa refunds a payment under its row lock and checks what is left to
 * refund there: run twice, or beside the cancel's own refund, it refunds once. Then books on the order what
 * Medusa's workflow left off it (see bookCanceledOrderRefundsStep).
 */
export const refundCanceledCapturesWorkflow = createWorkflow("crypto-swap-refund-canceled-captures", (input: { order_id: string; provider_ids: string[] }) => {
  const readOrder = (name: string) =>
    useQueryGraphStep({ entity: "order", fields: ORDER_FIELDS, filters: { id: input.order_id }, options: { isList: false, throwIfKeyNotFound: true } }).config({ name })
  const { data: order } = readOrder("crypto-swap-canceled-order-payments")
  const refunds = transform({ order, input }, ({ order, input }) => keptOnCanceledOrder(order, input.provider_ids))
  when({ refunds }, ({ refunds }) => refunds.length > 0).then(() => refundPaymentsWorkflow.runAsStep({ input: refunds }))
  const { data: refunded } = readOrder("crypto-swap-canceled-order-refunds")
  const payments = transform({ refunded, input }, ({ refunded, input }) => pluginPayments(refunded, input.provider_ids))
  bookCanceledOrderRefundsStep({ order_id: input.order_id, payments })
  return new WorkflowResponse(refunds)
})

/**
 * Refunds what the plugin's payments of a canceled order kept (see the workflow) and says which it refunded.
 * Throws unless nothing is kept after: Medusa's refund step only logs a refund that failed, so what is left is
 * read again.
 */
export async function refundCanceledCaptures(container: MedusaContainer, orderId: string): Promise<Array<{ payment_id: string }>> {
  const providerIds = registeredProviders(container.resolve(ContainerRegistrationKeys.CONFIG_MODULE)).map((provider) => provider.providerId)
  const { result: refunded, errors } = await refundCanceledCapturesWorkflow(container).run({
    input: { order_id: orderId, provider_ids: providerIds },
    throwOnError: false,
  })
  const failure = (reason: string) => new Error(`Money captured on canceled order ${orderId} could not be refunded: ${reason}`)
  if (errors.length) throw failure(errors[0].error?.message ?? "unknown error")
  const {
    data: [order],
  } = await container.resolve(ContainerRegistrationKeys.QUERY).graph({ entity: "order", fields: ORDER_FIELDS, filters: { id: orderId } })
  const kept = order ? keptOnCanceledOrder(order as CanceledOrder, providerIds) : []
  if (kept.length) throw failure(`Medusa did not record the refund of ${kept.map((refund) => refund.payment_id).join(", ")}`)
  return refunded
}
