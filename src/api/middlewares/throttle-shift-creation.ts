import type { MedusaNextFunction, MedusaRequest, MedusaResponse } from "@medusajs/framework/http"
import { ContainerRegistrationKeys } from "@medusajs/framework/utils"
import { admissionLimiter, admitSession, refusal, sessionNotMade } from "../../lib/admission"
import { providerRegistry, type RegisteredProvider } from "../../lib/provider-registry"
import { shopperIp } from "./attach-customer-ip"
import { answerTooManyRequests } from "./too-many-requests"
import { sayTo } from "../shopper-language"
import { CRYPTO_SWAP_MODULE, type CryptoSwapModuleService } from "../../modules/crypto-swap"
import { reusableTopUp } from "../../lib/shift/underpayment"
import { sessionIdSchema } from "../store/crypto-swap/validators"

/** Answers of admitted requests that made no shift after all (a top-up handed back): what they took is given back. */
const madeNothing = new WeakSet<MedusaResponse>()
/** Requests let through unthrottled, only for a waiting top-up to be handed back (throttleTopUps). */
const reuseOnly = new WeakSet<MedusaRequest>()

/** The route answered with what existed: the request spent nothing upstream. */
export const spentNothing = (res: MedusaResponse) => void madeNothing.add(res)

/** The request passed no throttle: the route may only hand back what exists. */
export const mayOnlyReuse = (req: MedusaRequest) => reuseOnly.has(req)

/**
 * Every crypto payment session costs a quote and a shift at the service, which allows the store about 5
 * shift creations a minute. These throttles hold each cart, each shopper IP and the store to the
 * provider's `admission` budgets before anything is spent or deleted, answering 429 with the wait.
 */
async function throttle(req: MedusaRequest, res: MedusaResponse, next: MedusaNextFunction, provider: RegisteredProvider, cart: string) {
  const { admission } = provider.options
  if (!admission.enabled) return next()
  const limiter = admissionLimiter(req.scope.resolve(ContainerRegistrationKeys.CONFIG_MODULE), req.scope.resolve(ContainerRegistrationKeys.LOGGER))
  const ip = shopperIp(req)
  const verdict = await admitSession(limiter, admission, { cart, ip })
  if (verdict.admitted) {
    // Refused further on (bad input: 4xx, nothing made; the service's 429) or failed (5xx: the service may have
    // made the shift): no session was started, the shopper is still new. The store's slot goes back only for a
    // refusal that spent nothing at the service: after its 429 the quote was spent, and giving the slot back would
    // let a flood of fresh addresses go on spending the service's quotes while it refuses their shifts; the shopper keeps
    // it for one more try instead.
    res.once("finish", () => {
      if (res.statusCode >= 300 || madeNothing.has(res)) {
        void sessionNotMade(limiter, admission, ip, { refused: res.statusCode < 500 && res.statusCode !== 429, held: verdict.held === true })
      }
    })
    return next()
  }
  req.scope.resolve(ContainerRegistrationKeys.LOGGER).debug(`crypto-swap: payment session refused, ${verdict.scope} budget spent`)
  answerTooManyRequests(res, refusal("sessions", verdict, sayTo(req)))
}

/**
 * `POST /store/payment-collections/:id/payment-sessions` for a crypto-swap provider (others pass):
 * the payment collection stands for the cart.
 */
export async function throttlePaymentSessions(req: MedusaRequest, res: MedusaResponse, next: MedusaNextFunction) {
  try {
    const body = req.body as { provider_id?: unknown } | undefined
    const registry = providerRegistry(req.scope.resolve(ContainerRegistrationKeys.CONFIG_MODULE))
    const provider = typeof body?.provider_id === "string" ? registry.get(body.provider_id) : undefined
    if (!provider) return next()
    await throttle(req, res, next, provider, `collection:${req.params.id}`)
  } catch (error) {
    next(error)
  }
}

/**
 * The plugin's routes that make a new shift for a payment session (`POST /store/crypto-swap/payment-sessions/:id/requote`
 * and `.../top-up`): counted for the cart named in the body (the routes check the session is that cart's),
 * under the first registered provider's budgets.
 */
export async function throttleSessionShifts(req: MedusaRequest, res: MedusaResponse, next: MedusaNextFunction) {
  try {
    const [provider] = providerRegistry(req.scope.resolve(ContainerRegistrationKeys.CONFIG_MODULE)).values()
    if (!provider) return next()
    const cartId = (req.body as { cart_id?: unknown } | undefined)?.cart_id
    await throttle(req, res, next, provider, typeof cartId === "string" ? `cart:${cartId}` : `session:${req.params.id}`)
  } catch (error) {
    next(error)
  }
}

/**
 * `POST /store/crypto-swap/payment-sessions/:id/top-up`: a top-up asked for again while the last one still waits
 * is given again (the route hands it back, or refuses, never making one: mayOnlyReuse): nothing is spent. Else as
 * the other routes, giving back what it took when the route found one waiting after all (spentNothing).
 */
export async function throttleTopUps(req: MedusaRequest, res: MedusaResponse, next: MedusaNextFunction) {
  try {
    const sessionId = sessionIdSchema.safeParse({ id: req.params.id })
    const [latest] = sessionId.success
      ? await req.scope
          .resolve<CryptoSwapModuleService>(CRYPTO_SWAP_MODULE)
          .listSwapShifts({ payment_session_id: sessionId.data.id, kind: "top_up" }, { select: ["status", "captured_at", "expires_at"], order: { created_at: "DESC" }, take: 1 })
      : []
    if (reusableTopUp(latest)) {
      reuseOnly.add(req)
      return next()
    }
    await throttleSessionShifts(req, res, next)
  } catch (error) {
    next(error)
  }
}
