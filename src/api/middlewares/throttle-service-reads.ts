import type { MedusaNextFunction, MedusaRequest, MedusaResponse } from "@medusajs/framework/http"
import { ContainerRegistrationKeys } from "@medusajs/framework/utils"
import { admissionLimiter, readBudgets, refusal } from "../../lib/admission"
import { providerRegistry } from "../../lib/provider-registry"
import { shopperIp } from "./attach-customer-ip"
import { answerTooManyRequests } from "./too-many-requests"
import { sayTo } from "../shopper-language"

/**
 * The estimate and permissions routes read the service (their answers are cached briefly, see
 * `readsFor`); these throttles hold each cart (estimates), each shopper IP and the store to the
 * provider's `admission` read budgets, answering 429 with the wait. A request names its provider
 * (`provider_id`), else the first registered one's budgets apply; the counters are the store's.
 */
async function throttleReads(req: MedusaRequest, res: MedusaResponse, next: MedusaNextFunction, cart: string | undefined) {
  try {
    const registry = providerRegistry(req.scope.resolve(ContainerRegistrationKeys.CONFIG_MODULE))
    const named = req.query.provider_id
    const provider = (typeof named === "string" ? registry.get(named) : undefined) ?? registry.values().next().value
    if (!provider || !provider.options.admission.enabled) return next()
    const verdict = await admissionLimiter(req.scope.resolve(ContainerRegistrationKeys.CONFIG_MODULE), req.scope.resolve(ContainerRegistrationKeys.LOGGER)).admit(
      "reads",
      readBudgets(provider.options.admission, { cart, ip: shopperIp(req) })
    )
    if (verdict.admitted) return next()
    req.scope.resolve(ContainerRegistrationKeys.LOGGER).debug(`crypto-swap: read refused, ${verdict.scope} budget spent`)
    answerTooManyRequests(res, refusal("reads", verdict, sayTo(req)))
  } catch (error) {
    next(error)
  }
}

/** `GET /store/crypto-swap/estimate?cart_id=`: per cart, IP and store. */
export function throttleEstimates(req: MedusaRequest, res: MedusaResponse, next: MedusaNextFunction) {
  const cartId = req.query.cart_id
  return throttleReads(req, res, next, typeof cartId === "string" ? cartId : undefined)
}

/** `GET /store/crypto-swap/permissions`: per IP and store. */
export function throttlePermissions(req: MedusaRequest, res: MedusaResponse, next: MedusaNextFunction) {
  return throttleReads(req, res, next, undefined)
}
