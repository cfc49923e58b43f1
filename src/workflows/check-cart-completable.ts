import { createWorkflow, transform, WorkflowResponse } from "@medusajs/framework/workflows-sdk"
import { useQueryGraphStep, validateCartItemsStep, validateCartPaymentsStep, validateShippingStep } from "@medusajs/core-flows"

export const checkCartCompletableWorkflowId = "crypto-swap-check-cart-completable"

/**
 * Medusa's own checks of a cart before its completion authorizes the payment (items, payment sessions and
 * their region, shipping), run on their own: a cart that fails them is refused by Medusa's completion with
 * its own reason, which a "waiting for your deposit" answer must not hide. Only the fields those steps read.
 */
export const checkCartCompletableWorkflow = createWorkflow(checkCartCompletableWorkflowId, (input: { cart_id: string }) => {
  const { data: cart } = useQueryGraphStep({
    entity: "cart",
    fields: [
      "id",
      "region_id",
      "total",
      "credit_line_total",
      "items.id",
      "items.requires_shipping",
      "items.variant.product.shipping_profile.id",
      "shipping_methods.shipping_option_id",
      "payment_collection.payment_sessions.id",
      "payment_collection.payment_sessions.provider_id",
      "payment_collection.payment_sessions.status",
    ],
    filters: { id: input.cart_id },
    options: { isList: false, throwIfKeyNotFound: true },
  }).config({ name: "crypto-swap-cart-query" })
  validateCartItemsStep({ cart })
  validateCartPaymentsStep({ cart })
  const optionIds = transform({ cart }, ({ cart }) => (cart.shipping_methods ?? []).map((method: { shipping_option_id: string }) => method.shipping_option_id))
  const { data: shippingOptions } = useQueryGraphStep({
    entity: "shipping_option",
    fields: ["id", "shipping_profile_id"],
    filters: { id: optionIds },
  }).config({ name: "crypto-swap-shipping-options-query" })
  validateShippingStep({ cart, shippingOptions })
  return new WorkflowResponse(true)
})
