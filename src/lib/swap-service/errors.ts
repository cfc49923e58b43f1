/** 500s the service uses for plain validation failures: the shopper's mistake, not an outage. */
const VALIDATION_MESSAGES = [
  "invalid", // coin, network, address
  "amount too low",
  "amount too high",
  "must be different",
  "memo is not supported",
  "rate unavailable",
]

export type SwapServiceErrorInit = {
  operation: string
  message: string
  status?: number
  code?: string
  retryAfterMs?: number
  orderId?: string
  depositRangeMin?: string
  depositRangeMax?: string
  /** For failures without an HTTP answer (timeouts, resets): they can be retried. */
  networkFailure?: boolean
}

/**
 * The one error the client throws. It carries the HTTP status, the service's code and message, and
 * whether the failure is the user's (show it) or passing (retry). It never carries request headers.
 */
export class SwapServiceError extends Error {
  readonly operation: string
  readonly status?: number
  readonly code?: string
  readonly retryable: boolean
  readonly userError: boolean
  readonly retryAfterMs?: number
  readonly orderId?: string
  readonly depositRangeMin?: string
  readonly depositRangeMax?: string

  constructor(init: SwapServiceErrorInit) {
    super(init.message)
    this.name = "SwapServiceError"
    this.operation = init.operation
    this.status = init.status
    this.code = init.code
    this.retryAfterMs = init.retryAfterMs
    this.orderId = init.orderId
    this.depositRangeMin = init.depositRangeMin
    this.depositRangeMax = init.depositRangeMax
    const { retryable, userError } = classify(init)
    this.retryable = retryable
    this.userError = userError
  }
}

/** Classification per service-behaviour.md, in one place. */
export function classify({ status, message, code, networkFailure }: Pick<SwapServiceErrorInit, "status" | "message" | "code" | "networkFailure">): {
  retryable: boolean
  userError: boolean
} {
  if (networkFailure || status === undefined) return { retryable: true, userError: false }
  if (status === 429) return { retryable: true, userError: false }
  if (status === 500) {
    const text = message.toLowerCase()
    const validation = code === "BAD_USER_INPUT" || VALIDATION_MESSAGES.some((known) => text.includes(known))
    return validation ? { retryable: false, userError: true } : { retryable: true, userError: false }
  }
  if (status >= 502 && status <= 504) return { retryable: true, userError: false }
  // Bad credentials (401, 404 "Account not found") are the store's configuration, not the shopper's.
  if (status === 401 || (status === 404 && /account/i.test(message))) return { retryable: false, userError: false }
  if (status >= 400 && status < 500) return { retryable: false, userError: true }
  return { retryable: status >= 500, userError: false }
}

/** `Retry-After` in seconds or as an HTTP date. */
export function parseRetryAfter(value: string | string[] | undefined, now = Date.now()): number | undefined {
  const header = Array.isArray(value) ? value[0] : value
  if (!header) return undefined
  const seconds = Number(header)
  if (Number.isFinite(seconds)) return Math.max(0, seconds * 1000)
  const date = Date.parse(header)
  return Number.isNaN(date) ? undefined : Math.max(0, date - now)
}
