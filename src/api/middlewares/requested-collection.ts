import type { MedusaRequest } from "@medusajs/framework/http"
import type { BigNumberInput } from "@medusajs/framework/types"
import { ContainerRegistrationKeys } from "@medusajs/framework/utils"

export type RequestedCollection = {
  id: string
  amount: BigNumberInput
  currency_code: string
  payment_sessions?: Array<{ id: string; provider_id: string; status: string; data: Record<string, unknown> | null }>
}

/** One read per request, shared by the middlewares in front of Medusa's session route. */
const reads = new WeakMap<MedusaRequest, Promise<RequestedCollection | undefined>>()

/**
 * The payment collection `POST /store/payment-collections/:id/payment-sessions` names, with its
 * sessions: the reuse check and the data check both need it, and each read of it costs the shopper a
 * database round trip before Medusa's own work begins.
 */
export function requestedCollection(req: MedusaRequest): Promise<RequestedCollection | undefined> {
  let read = reads.get(req)
  if (!read) {
    read = req.scope
      .resolve(ContainerRegistrationKeys.QUERY)
      .graph({
        entity: "payment_collection",
        fields: ["id", "amount", "currency_code", "payment_sessions.id", "payment_sessions.provider_id", "payment_sessions.status", "payment_sessions.data"],
        filters: { id: req.params.id },
      })
      .then(({ data: [collection] }) => collection as RequestedCollection | undefined)
    reads.set(req, read)
  }
  return read
}
