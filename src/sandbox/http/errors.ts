import type { ErrorRequestHandler, RequestHandler } from "express"
import { badUserInput, ServiceError } from "../service-error"

export const unknownRoute: RequestHandler = (req) => {
  throw new ServiceError(404, `Cannot ${req.method} ${req.path}`, "METHOD_NOT_FOUND")
}

function asServiceError(error: unknown, log: (line: string) => void): ServiceError {
  if (error instanceof ServiceError) {
    return error
  }
  const bodyParserType = (error as { type?: unknown } | undefined)?.type
  if (bodyParserType === "entity.parse.failed") {
    return badUserInput("Invalid JSON body")
  }
  if (bodyParserType === "entity.too.large") {
    return new ServiceError(413, "Request body too large")
  }
  log(`internal error: ${error instanceof Error ? error.stack : String(error)}`)
  return new ServiceError(500, "Internal error", "UNKNOWN")
}

/** Every failure leaves as the service's error body with its status (and Retry-After on 429). */
export function errorHandler(log: (line: string) => void): ErrorRequestHandler {
  return (error, _req, res, next) => {
    if (res.headersSent) {
      next(error)
      return
    }
    const serviceError = asServiceError(error, log)
    res.status(serviceError.status).set(serviceError.headers).json(serviceError.body())
  }
}
