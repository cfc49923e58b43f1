import { errorHandler, type MedusaNextFunction, type MedusaRequest, type MedusaResponse } from "@medusajs/framework/http"
import { ContainerRegistrationKeys, MedusaError } from "@medusajs/framework/utils"
import { asRateLimited, RATE_LIMITED, type RateLimited } from "../../lib/rate-limited"
import { shopperMessage } from "../shopper-language"

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
 * `not_allowed`, and that an error carrying a shopper text is answered in the shopper's language where one
 * was chosen (shopper-language.ts), while the log keeps the English message. Registered as the middlewares'
 * `errorHandler`; a store that sets its own handler replaces it, and its shoppers get the English message
 * (a rate refusal with a 400).
 */
export function tooManyRequestsErrorHandler(error: unknown, req: MedusaRequest, res: MedusaResponse, next: MedusaNextFunction) {
  const translated = shopperMessage(error, req)
  const limited = asRateLimited(error)
  if (!limited || res.headersSent) {
    if (translated && !res.headersSent) {
      // Medusa's handler logs the error's message and answers with it: only the answer takes the shopper's language.
      const json = res.json.bind(res)
      res.json = (body: unknown) => json(body && typeof body === "object" ? { ...body, message: translated } : body)
    }
    return medusaErrorHandler(error, req, res, next)
  }
  req.scope?.resolve(ContainerRegistrationKeys.LOGGER).info(limited.message)
  answerTooManyRequests(res, { ...limited, message: translated ?? limited.message })
}
