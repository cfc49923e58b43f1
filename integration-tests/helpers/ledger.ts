import type { MedusaContainer } from "@medusajs/framework/types"
import { ContainerRegistrationKeys } from "@medusajs/framework/utils"
import { CRYPTO_SWAP_MODULE, type CryptoSwapModuleService } from "../../src/modules/crypto-swap"
import { reconcileShiftsWorkflow } from "../../src/workflows/reconcile-shifts"

export function ledgerOf(container: MedusaContainer) {
  return container.resolve<CryptoSwapModuleService>(CRYPTO_SWAP_MODULE)
}

/** One reconciliation tick, as the scheduled job runs it. */
export async function reconcile(container: MedusaContainer) {
  const { result } = await reconcileShiftsWorkflow(container).run()
  return result
}

export async function ledgerRow(container: MedusaContainer, filter: Record<string, unknown>) {
  const [row] = await ledgerOf(container).listSwapShifts(filter, { relations: ["events"] })
  if (!row) throw new Error(`No ledger row for ${JSON.stringify(filter)}`)
  row.events = [...row.events].sort((a, b) => new Date(a.occurred_at).getTime() - new Date(b.occurred_at).getTime())
  return row
}

export async function orderWithPayments(container: MedusaContainer, cartId: string) {
  const query = container.resolve(ContainerRegistrationKeys.QUERY)
  const { data: links } = await query.graph({ entity: "order_cart", fields: ["order_id"], filters: { cart_id: cartId } })
  if (!links[0]) return undefined
  const {
    data: [order],
  } = await query.graph({
    entity: "order",
    fields: [
      "id",
      "status",
      "payment_status",
      "payment_collections.status",
      "payment_collections.payments.*",
      "payment_collections.payments.captures.*",
    ],
    filters: { id: links[0].order_id },
  })
  return {
    ...order,
    payments: order.payment_collections.flatMap((collection: any) => collection.payments),
  }
}
