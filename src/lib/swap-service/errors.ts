/** How a call failed, before any judgement about it: what `classifyFailure` reads. */
export type FailureKind =
  /** The service answered with a non-2xx status. */
  | "response"
  /** No complete answer within the request timeout. */
  | "timeout"
  /** Connection refused, reset or closed before an answer. */
  | "network"
  /** A 2xx answer that is not JSON or not the shape the interface promises. */
  | "malformed"
  /** GraphQL `errors`, which the service returns inside an HTTP 200. */
  | "graphql"
  /** Refused by the client before sending: the request breaks a rule of the service. */
  | "invalid_request"

export type Failure = {
  kind: FailureKind
  message: string
  status?: number
  code?: string
  /**
   * Repeating the call after a malformed answer is harmless: it changes nothing upstream (reads,
   * quotes), or a repeat finds what the first attempt made (a fixed shift from its quote).
   */
  safeToRepeat?: boolean
  /** No connection could be made: the request never reached the service (a timeout or network failure before sending). */
  notSent?: boolean
}

/** The 500s the service uses for plain validation failures (service-behaviour.md "Errors"): the user's input, not an outage. */
const VALIDATION_FAILURE_MESSAGES = [
  /\binvalid (coin|network)\b/i,
  /\bamount too (low|high)\b/i,
  /\bdeposit and settle method must be different\b/i,
  /\bmemo is not supported\b/i,
  /\brate unavailable\b/i,
  /\brate is not available for this pair\b/i,
]

const RETRYABLE = { retryable: true, userError: false }
const USER_ERROR = { retryable: false, userError: true }
const NEITHER = { retryable: false, userError: false }

/**
 * The one place that decides whether a failure may pass if the call is repeated (`retryable`) and
 * whether it is the end user's to fix (`userError`). Neither means the store's configuration or a
 * fault of the service: bad credentials (401, 404 "Account not found"), an unknown order, GraphQL errors.
 */
export function classifyFailure(failure: Failure): { retryable: boolean; userError: boolean } {
  switch (failure.kind) {
    case "invalid_request":
      return USER_ERROR
    case "timeout":
    case "network":
      return RETRYABLE
    case "malformed":
      return failure.safeToRepeat ? RETRYABLE : NEITHER
    case "graphql":
      return NEITHER
    case "response":
      break
  }
  const status = failure.status ?? 0
  if (status === 429) return RETRYABLE
  if (status === 500) {
    const validation =
      failure.code === "BAD_USER_INPUT" || VALIDATION_FAILURE_MESSAGES.some((pattern) => pattern.test(failure.message))
    return validation ? USER_ERROR : RETRYABLE
  }
  if (status === 502 || status === 503 || status === 504) return RETRYABLE
  if (status === 400 || status === 403) return USER_ERROR
  return NEITHER
}

/**
 * Whether a call that creates something may have created it although it failed: no answer (a timeout, a
 * dropped connection), an answer garbled on the way, or a fault of the service's own. A refusal (a 4xx, a
 * validation 500, the client's own check) made nothing, nor did a request no connection carried.
 */
export function mayHaveActed(error: unknown): boolean {
  if (!(error instanceof SwapServiceError)) return true
  if (error.userError || error.notSent || error.status === 429) return false
  return error.status === undefined || error.status < 400 || error.status >= 500
}

export type SwapServiceErrorInit = Failure & {
  operation: string
  retryAfterMs?: number
  orderId?: string
  depositRangeMin?: string
  depositRangeMax?: string
}

/**
 * The one error the client throws. It carries what the service said and the classification, never
 * request headers or an underlying transport error (those can hold the secret header).
 */
export class SwapServiceError extends Error {
  /** The client method that failed, e.g. "createFixedShift". */
  readonly operation: string
  /** The HTTP status; undefined when there was no answer or the request was never sent. */
  readonly status?: number
  /** The service's error code, or the client's: TIMEOUT, NETWORK_ERROR, MALFORMED_RESPONSE, GRAPHQL_ERROR, INVALID_REQUEST. */
  readonly code?: string
  readonly retryable: boolean
  readonly userError: boolean
  /** The request never reached the service (see `Failure.notSent`). */
  readonly notSent: boolean
  /** From `Retry-After` on a 429. */
  readonly retryAfterMs?: number
  /** The existing shift named by "Quote has already been accepted". */
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
    this.notSent = Boolean(init.notSent)
    const { retryable, userError } = classifyFailure(init)
    this.retryable = retryable
    this.userError = userError
  }
}

export function invalidRequest(operation: string, message: string): SwapServiceError {
  return new SwapServiceError({ operation, kind: "invalid_request", code: "INVALID_REQUEST", message })
}

/** `Retry-After` as seconds or as an HTTP date, in milliseconds from `now`. */
export function parseRetryAfter(value: string | string[] | undefined, now = Date.now()): number | undefined {
  const header = (Array.isArray(value) ? value[0] : value)?.trim()
  if (!header) return undefined
  if (/^\d+(\.\d+)?$/.test(header)) return Number(header) * 1000
  // An HTTP date names its day and month; without letters, Date.parse would take "-5" for a year.
  if (!/[a-z]/i.test(header)) return undefined
  const date = Date.parse(header)
  return Number.isNaN(date) ? undefined : Math.max(0, date - now)
}
