import { isIP } from "node:net"
import type { Request, RequestHandler, Response } from "express"
import { accountForSecret } from "../accounts"
import type { SandboxCore } from "../core"
import type { RateBucket } from "../rate-limiter"
import type { SandboxRuntime } from "../runtime"
import type { RateLimitKey } from "../settings"
import { badUserInput, forbidden } from "../service-error"
import type { Account } from "../state"

/** The end user's IP when the integration forwards it, else the caller's own address. */
export function callerIp(req: Request): string {
  return req.header("x-user-ip") ?? req.socket.remoteAddress ?? "unknown"
}

/** The account of the secret header; handlers read it with `accountOf`. */
export function authenticated(core: SandboxCore): RequestHandler {
  return (req, res, next) => {
    res.locals.account = accountForSecret(core.state, req.header(core.settings.secretHeader), core.settings.secretHeader)
    next()
  }
}

export function accountOf(res: Response): Account {
  return res.locals.account as Account
}

export function assertValidUserIp(ip: string): void {
  if (!isIP(ip)) {
    throw badUserInput("Invalid IP address in x-user-ip")
  }
}

/** Creations must name the end user (x-user-ip); users from refused regions get 403 "Access denied". */
export function endUserAllowed(core: SandboxCore): RequestHandler {
  return (req, _res, next) => {
    const ip = req.header("x-user-ip")
    if (!ip) {
      throw badUserInput("The x-user-ip header must be set to the end user's IP address")
    }
    assertValidUserIp(ip)
    if (core.settings.blockedIps.has(ip)) {
      throw forbidden("Access denied")
    }
    next()
  }
}

/** Whom a request counts against: the connection's address, or the end user the caller names. */
function rateLimitKey(req: Request, by: RateLimitKey): string {
  return by === "user-ip" ? callerIp(req) : (req.socket.remoteAddress ?? "unknown")
}

export function withinRateLimit(runtime: Pick<SandboxRuntime, "settings" | "rateLimiter">, bucket: RateBucket): RequestHandler {
  return (req, _res, next) => {
    const { rateLimits, rateLimitBy } = runtime.settings
    runtime.rateLimiter.take(bucket, rateLimitKey(req, rateLimitBy), bucket === "quotes" ? rateLimits.quotesPerMinute : rateLimits.shiftsPerMinute)
    next()
  }
}
