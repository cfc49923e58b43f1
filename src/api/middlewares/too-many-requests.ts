import { errorHandler, type MedusaNextFunction, type MedusaRequest, type MedusaResponse } from "@medusajs/framework/http"
import { ContainerRegistrationKeys, MedusaError } from "@medusajs/framework/utils"
import { asRateLimited, RATE_LIMITED, type RateLimited } from "../../lib/rate-limited"

/**
 * A refusal for rate reasons as a storefront can use it: HTTP 429, `Retry-After` in seconds (readable by
 * a storefront on another origin), and Medusa's error body (`type`, `code`, `message`) with the wait.
 */
export function answerTooManyRequests(res: MedusaResponse, { message, retryAfterSeconds }: RateLimited): void {
  res.setHeader("Retry-After", String(retryAfterSeconds))
  res.append("Access-Control-Expose-Headers", "Retry-After")
  res.status(429).json({ type: MedusaError.Types.NOT_ALLOWED, code: RATE_LIMITED, message, retry_after_seconds: retryAfterSeconds })
}

const medusaErrorHandler = errorHandler()

/**
 * Medusa's error handler, except that a `rateLimitedError` (the service's 429, from any route: a payment
 * session, a requote, an estimate) is answered with `answerTooManyRequests` instead of Medusa's 400 for
 * `not_allowed`. Registered as the middlewares' `errorHandler`; a store that sets its own handler replaces
 * it, and its shoppers get the same message with a 400.
 */
export function tooManyRequestsErrorHandler(error: unknown, req: MedusaRequest, res: MedusaResponse, next: MedusaNextFunction) {
  const limited = asRateLimited(error)
  if (!limited || res.headersSent) return medusaErrorHandler(error, req, res, next)
  req.scope?.resolve(ContainerRegistrationKeys.LOGGER).info(limited.message)
  answerTooManyRequests(res, limited)
}
