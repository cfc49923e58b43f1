import type { MedusaRequest, MedusaResponse } from "@medusajs/framework/http"
import { ContainerRegistrationKeys, MedusaError } from "@medusajs/framework/utils"
import { providerRegistry, readsFor } from "../../../../lib/provider-registry"
import { toMedusaError } from "../../../../lib/to-medusa-error"
import { shopperError, text } from "../../../../lib/i18n"
import { shopperIp } from "../../../middlewares/attach-customer-ip"
import { parseInput } from "../../../parse-input"
import { emptyQuerySchema } from "../validators"

/** Whether the shopper may use the service from where they are, so a storefront can hide the method. */
export async function GET(req: MedusaRequest, res: MedusaResponse) {
  parseInput(emptyQuerySchema, req.query)
  const [provider] = providerRegistry(req.scope.resolve(ContainerRegistrationKeys.CONFIG_MODULE)).values()
  const ip = shopperIp(req)
  if (!provider || !ip) throw shopperError(MedusaError.Types.NOT_ALLOWED, text("store.unavailable"))
  try {
    // Cached per IP for a while, and shared by requests asking at once (`readsFor`).
    const { createShift } = await readsFor(provider).getPermissions(ip)
    res.json({ permissions: { create_shift: createShift } })
  } catch (error) {
    throw toMedusaError(error, "checking permissions")
  }
}
