/**
 * An error answered the way the real service answers it: `{ error: { message, code?, ...extra } }`
 * with the status service-behaviour.md lists for that case.
 */
export class ServiceError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly code?: string,
    readonly extra: Record<string, unknown> = {},
    readonly headers: Record<string, string> = {}
  ) {
    super(message)
  }

  body(): { error: Record<string, unknown> } {
    return { error: { message: this.message, ...(this.code ? { code: this.code } : {}), ...this.extra } }
  }
}

export const badUserInput = (message: string, extra: Record<string, unknown> = {}) =>
  new ServiceError(400, message, "BAD_USER_INPUT", extra)

export const unauthorized = (message: string) => new ServiceError(401, message)

export const forbidden = (message: string) => new ServiceError(403, message, "FORBIDDEN")

export const notFound = (message: string) => new ServiceError(404, message)

/** The real service answers plain validation failures ("Invalid coin", "Amount too low", ...) with 500. */
export const validationFailure = (message: string, extra: Record<string, unknown> = {}) =>
  new ServiceError(500, message, undefined, extra)

export const rateLimited = (retryAfterSeconds: number) =>
  new ServiceError(429, "Rate limit exceeded", undefined, {}, { "Retry-After": String(retryAfterSeconds) })

/** Control interface only: the requested change is not one the service could make. */
export const conflict = (message: string, extra: Record<string, unknown> = {}) =>
  new ServiceError(409, message, undefined, extra)
