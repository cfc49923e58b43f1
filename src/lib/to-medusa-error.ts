import { MedusaError } from "@medusajs/framework/utils"
import { inSeconds, rateLimitedError, waitSeconds } from "./rate-limited"
import { SwapServiceError } from "./swap-service"
import { english, shopperError, text, withShopperText } from "./i18n"

/**
 * Turns a failure of the swap service into a MedusaError a shopper or admin can act on: their own
 * mistakes (amount too low, invalid address, region not allowed, rate limited) are told apart from
 * outages and from a misconfigured store. Messages never carry credentials.
 */
export function toMedusaError(error: unknown, doing: string): MedusaError {
  if (error instanceof MedusaError) return error
  if (!(error instanceof SwapServiceError)) {
    return shopperError(MedusaError.Types.UNEXPECTED_STATE, text("service.failed", { doing }))
  }
  if (error.status === 429) {
    // Answered with HTTP 429 and Retry-After (rate-limited.ts); the message says how long to wait too.
    const seconds = waitSeconds(error.retryAfterMs)
    const busy = text("service.busy", { wait: error.retryAfterMs === undefined ? text("wait.a_minute") : inSeconds(seconds) })
    return withShopperText(rateLimitedError(english(busy), seconds), busy)
  }
  if (error.status === 403) {
    return shopperError(
      MedusaError.Types.NOT_ALLOWED,
      text(/too many open orders/i.test(error.message) ? "service.too_many_open" : "service.region")
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
    return shopperError(MedusaError.Types.NOT_FOUND, text("service.unknown_payment", { doing }))
  }
  if (error.status === 401 || error.status === 404) {
    return shopperError(MedusaError.Types.UNEXPECTED_STATE, text("service.misconfigured", { doing }))
  }
  return shopperError(MedusaError.Types.UNEXPECTED_STATE, text("service.unavailable", { doing }))
}
