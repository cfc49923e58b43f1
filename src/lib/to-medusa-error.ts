import { MedusaError } from "@medusajs/framework/utils"
import { inSeconds, rateLimitedError, waitSeconds } from "./rate-limited"
import { SwapServiceError } from "./swap-service"

/**
 * Turns a failure of the swap service into a MedusaError a shopper or admin can act on: their own
 * mistakes (amount too low, invalid address, region not allowed, rate limited) are told apart from
 * outages and from a misconfigured store. Messages never carry credentials.
 */
export function toMedusaError(error: unknown, doing: string): MedusaError {
  if (error instanceof MedusaError) return error
  if (!(error instanceof SwapServiceError)) {
    return new MedusaError(MedusaError.Types.UNEXPECTED_STATE, `Crypto payment failed while ${doing}.`)
  }
  if (error.status === 429) {
    // Answered with HTTP 429 and Retry-After (rate-limited.ts); the message says how long to wait too.
    const seconds = waitSeconds(error.retryAfterMs)
    const wait = error.retryAfterMs === undefined ? "in a minute" : inSeconds(seconds)
    return rateLimitedError(`The crypto payment service is busy; please try again ${wait}.`, seconds)
  }
  if (error.status === 403) {
    return new MedusaError(
      MedusaError.Types.NOT_ALLOWED,
      /too many open orders/i.test(error.message)
        ? "Too many crypto payments are open right now; please try again shortly."
        : "Crypto payments are not available in your region."
    )
  }
  if (error.userError) {
    const range =
      error.depositRangeMin || error.depositRangeMax
        ? ` (accepted deposit: ${error.depositRangeMin ?? "?"} to ${error.depositRangeMax ?? "?"})`
        : ""
    return new MedusaError(MedusaError.Types.INVALID_DATA, `${error.message}${range}`)
  }
  if (error.status === 404 && !/account/i.test(error.message)) {
    return new MedusaError(MedusaError.Types.NOT_FOUND, `The crypto payment service does not know this payment (while ${doing}).`)
  }
  if (error.status === 401 || error.status === 404) {
    return new MedusaError(
      MedusaError.Types.UNEXPECTED_STATE,
      `Crypto payments are misconfigured: the service rejected the store's credentials while ${doing}.`
    )
  }
  return new MedusaError(
    MedusaError.Types.UNEXPECTED_STATE,
    `The crypto payment service is unavailable right now (while ${doing}); please try again in a moment.`
  )
}
