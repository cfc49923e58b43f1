import type { MedusaContainer } from "@medusajs/framework/types"
import { ContainerRegistrationKeys } from "@medusajs/framework/utils"

/**
 * The order a payment collection belongs to: a cart's once the cart became the order, or the order's own (what
 * an edited order still owes is asked for with a collection of the order, no cart's).
 */
export async function orderOfCollection(container: MedusaContainer, paymentCollectionId: string): Promise<string | null> {
  const {
    data: [link],
  } = await container.resolve(ContainerRegistrationKeys.QUERY).graph({
    entity: "order_payment_collection",
    fields: ["order_id"],
    filters: { payment_collection_id: paymentCollectionId },
  })
  return (link?.order_id as string | undefined) ?? null
}

/** What a payment collection pays: a cart, or an order (what an edited order still owes has no cart). */
export type CollectionPayer = { cart_id: string | null; order_id: string | null }

/**
 * What a new payment pays, its collection's cart (if any) known: the cart, whose order its payment places and
 * then links (sessionPayment), else the order whose own collection it is.
 */
export async function collectionPayer(container: MedusaContainer, paymentCollectionId: string, cartId: string | null): Promise<CollectionPayer> {
  return { cart_id: cartId, order_id: cartId ? null : await orderOfCollection(container, paymentCollectionId) }
}
