import { MedusaError } from "@medusajs/framework/utils"
import { text, type ShopperText } from "./i18n"

/** The `code` of every refusal for rate reasons: the store's own throttles and the service's 429. */
export const RATE_LIMITED = "rate_limited"

/** When the wait is unknown (the service sent no `Retry-After`). */
const DEFAULT_WAIT_SECONDS = 60

export type RateLimited = { message: string; retryAfterSeconds: number }

/** Whole seconds to wait, at least 1. */
export function waitSeconds(ms: number | undefined): number {
  return ms === undefined || !Number.isFinite(ms) ? DEFAULT_WAIT_SECONDS : Math.max(1, Math.ceil(ms / 1000))
}

/** "in 1 second", "in 40 seconds", in the shopper's language. */
export function inSeconds(seconds: number): ShopperText {
  return seconds === 1 ? text("wait.one_second") : text("wait.seconds", { seconds })
}

/**
 * A refusal for rate reasons as a MedusaError (`not_allowed`, code `rate_limited`) carrying the wait.
 * The wait is an own property, so it survives the workflow engine's serialization of a step's error;
 * the store answers it with HTTP 429 and `Retry-After` (api/middlewares/too-many-requests.ts), or, where
 * the store replaced Medusa's error handler, as Medusa answers `not_allowed` (400), the wait in the message.
 */
export function rateLimitedError(message: string, retryAfterSeconds: number): MedusaError {
  const error = new MedusaError(MedusaError.Types.NOT_ALLOWED, message, RATE_LIMITED)
  return Object.assign(error, { retry_after_seconds: retryAfterSeconds })
}

/** The refusal's message and wait when `error` (or its serialized copy) is a `rateLimitedError`. */
export function asRateLimited(error: unknown): RateLimited | undefined {
  if (!error || typeof error !== "object") return undefined
  const { code, message, retry_after_seconds: seconds } = error as { code?: unknown; message?: unknown; retry_after_seconds?: unknown }
  if (code !== RATE_LIMITED || typeof message !== "string") return undefined
  const retryAfterSeconds = typeof seconds === "number" && Number.isInteger(seconds) && seconds > 0 ? seconds : DEFAULT_WAIT_SECONDS
  return { message, retryAfterSeconds }
}
