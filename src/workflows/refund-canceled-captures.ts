import type { MedusaContainer } from "@medusajs/framework/types"
import { createWorkflow, transform, when, WorkflowResponse } from "@medusajs/framework/workflows-sdk"
import { refundPaymentsWorkflow, useQueryGraphStep } from "@medusajs/core-flows"
import { BigNumber, ContainerRegistrationKeys, MathBN } from "@medusajs/framework/utils"
import type { BigNumberRawValue } from "@medusajs/framework/types"
import { registeredProviders } from "../lib/provider-registry"

type Amounts = Array<{ raw_amount: BigNumberRawValue }> | undefined

const total = (amounts: Amounts) => MathBN.sum(0, ...(amounts ?? []).map((entry) => new BigNumber(entry.raw_amount)))

/**
 * Medusa's order cancel refunds every captured payment, so money captured on a canceled order and not refunded
 * was kept by a capture that came too late: between the cancel's read of the payments and its cancel of them
 * (the job's, as the shift settled), or after it (Medusa's own payment webhook route captures without looking at
 * the order). Refunds what the plugin's payments (`provider_ids`) of the order kept, as the cancel would have;
 * nothing unless the order is canceled. Medusa refunds a payment under its row lock and checks what is left to
 * refund there: run twice, or beside the cancel's own refund, it refunds once.
 */
export const refundCanceledCapturesWorkflow = createWorkflow("crypto-swap-refund-canceled-captures", (input: { order_id: string; provider_ids: string[] }) => {
  const { data: order } = useQueryGraphStep({
    entity: "order",
    fields: [
      "status",
      "payment_collections.payments.id",
      "payment_collections.payments.provider_id",
      "payment_collections.payments.captures.raw_amount",
      "payment_collections.payments.refunds.raw_amount",
    ],
    filters: { id: input.order_id },
    options: { isList: false, throwIfKeyNotFound: true },
  }).config({ name: "crypto-swap-canceled-order-payments" })
  const refunds = transform({ order, input }, ({ order, input }) =>
    order.status !== "canceled"
      ? []
      : (order.payment_collections ?? [])
          .flatMap((collection: any) => collection?.payments ?? [])
          .filter((payment: any) => input.provider_ids.includes(payment.provider_id))
          .map((payment: any) => ({ payment_id: payment.id as string, amount: MathBN.sub(total(payment.captures), total(payment.refunds)) }))
          .filter((refund: { amount: BigNumber }) => MathBN.gt(refund.amount, 0))
  )
  when({ refunds }, ({ refunds }) => refunds.length > 0).then(() => refundPaymentsWorkflow.runAsStep({ input: refunds }))
  return new WorkflowResponse(refunds)
})

/** Refunds what the plugin's payments of a canceled order kept (see the workflow); throws when Medusa could not. */
export async function refundCanceledCaptures(container: MedusaContainer, orderId: string): Promise<void> {
  const providerIds = registeredProviders(container.resolve(ContainerRegistrationKeys.CONFIG_MODULE)).map((provider) => provider.providerId)
  const { errors } = await refundCanceledCapturesWorkflow(container).run({ input: { order_id: orderId, provider_ids: providerIds }, throwOnError: false })
  if (errors.length) throw new Error(`Money captured on canceled order ${orderId} could not be refunded: ${errors[0].error?.message ?? "unknown error"}`)
}
