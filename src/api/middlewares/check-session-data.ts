import type { MedusaNextFunction, MedusaRequest, MedusaResponse } from "@medusajs/framework/http"
import { ContainerRegistrationKeys, MedusaError } from "@medusajs/framework/utils"
import { providerRegistry } from "../../lib/provider-registry"
import { toMedusaError } from "../../lib/to-medusa-error"
import { parseStorefrontInput, storefrontChoiceSchema } from "../../lib/shift/storefront-input"
import { assertRoomForNewPayment } from "../../workflows/steps/variable-pool"
import { requestedCollection } from "./requested-collection"
import { depositSeenWithoutAsking } from "../../lib/shift/shift-actions"
import { shopperError, text } from "../../lib/i18n"
import { shopperIp } from "./attach-customer-ip"

/**
 * Refuses payment session `data` the provider would refuse, a new payment on a collection whose crypto
 * deposit is already on its way, and a variable-rate payment the account has no room for (`variablePool`),
 * before Medusa's workflow runs. That
 * workflow stores the data before the provider sees it (a NUL byte is then a database error, a 500)
 * and deletes the collection's current session alongside: when the new one is refused, the old one
 * cannot be recreated from its stored data, so a shopper's waiting payment would be lost to a bad request.
 */
export async function checkSessionData(req: MedusaRequest, _res: MedusaResponse, next: MedusaNextFunction) {
  const body = req.body as { provider_id?: unknown; data?: unknown } | undefined
  const registry = providerRegistry(req.scope.resolve(ContainerRegistrationKeys.CONFIG_MODULE))
  const provider = typeof body?.provider_id === "string" ? registry.get(body.provider_id) : undefined
  if (!provider) return next()
  try {
    const input = parseStorefrontInput(storefrontChoiceSchema, body!.data)
    const collection = await requestedCollection(req)
    // Medusa would make the new session (and its shift at the service), then fail to delete the paid one,
    // which the provider refuses while its deposit is on its way: a wasted shift and a 500.
    if (collection?.payment_sessions?.some((session) => registry.has(session.provider_id) && depositSeenWithoutAsking(session.data))) {
      throw shopperError(MedusaError.Types.NOT_ALLOWED, text("store.deposit_on_its_way"))
    }
    await assertRoomForNewPayment(req.scope, provider, collection, input, shopperIp(req))
    next()
  } catch (error) {
    next(toMedusaError(error, "loading the coin list"))
  }
}
