import { createWorkflow, transform, when, WorkflowResponse } from "@medusajs/framework/workflows-sdk"
import { refundPaymentsWorkflow, useQueryGraphStep } from "@medusajs/core-flows"
import { BigNumber, MathBN } from "@medusajs/framework/utils"
import type { BigNumberRawValue } from "@medusajs/framework/types"

type Amounts = Array<{ raw_amount: BigNumberRawValue }> | undefined

const total = (amounts: Amounts) => MathBN.sum(0, ...(amounts ?? []).map((entry) => new BigNumber(entry.raw_amount)))

/**
 * Medusa's order cancel reads the payments, then refunds the captured ones and cancels the rest: a capture in
 * between (the job's, as the shift settled) leaves a payment captured, canceled and never refunded. Refunds what
 * such payments of the plugin's providers (`provider_ids`) kept on a canceled order, as the cancel would have;
 * nothing when there is none. Medusa refunds a payment under its row lock and checks what is left to refund
 * there: run twice, it refunds once.
 */
export const refundCanceledCapturesWorkflow = createWorkflow("crypto-swap-refund-canceled-captures", (input: { order_id: string; provider_ids: string[] }) => {
  const { data: order } = useQueryGraphStep({
    entity: "order",
    fields: [
      "payment_collections.payments.id",
      "payment_collections.payments.provider_id",
      "payment_collections.payments.canceled_at",
      "payment_collections.payments.captures.raw_amount",
      "payment_collections.payments.refunds.raw_amount",
    ],
    filters: { id: input.order_id },
    options: { isList: false, throwIfKeyNotFound: true },
  }).config({ name: "crypto-swap-canceled-order-payments" })
  const refunds = transform({ order, input }, ({ order, input }) =>
    (order.payment_collections ?? [])
      .flatMap((collection: any) => collection?.payments ?? [])
      .filter((payment: any) => payment.canceled_at && input.provider_ids.includes(payment.provider_id))
      .map((payment: any) => ({ payment_id: payment.id as string, amount: MathBN.sub(total(payment.captures), total(payment.refunds)) }))
      .filter((refund: { amount: BigNumber }) => MathBN.gt(refund.amount, 0))
  )
  when({ refunds }, ({ refunds }) => refunds.length > 0).then(() => refundPaymentsWorkflow.runAsStep({ input: refunds }))
  return new WorkflowResponse(refunds)
})
