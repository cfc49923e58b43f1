import type { AdmissionOptions } from "../options"
import { inSeconds, waitSeconds, type RateLimited } from "../rate-limited"
import type { Admission, Budget, BudgetScope } from "./admission-limiter"

/** What is counted: payment sessions (a quote and a shift each) or reads of the service. */
export type AdmissionAction = "sessions" | "reads"

/** The one key of the store's budget. */
const STORE = "store"

/** The shopper's IP when the server knows it; requests without one share a budget. */
const ipKey = (ip: string | undefined) => ip ?? "unknown"

/**
 * The budgets a payment session (Medusa's session route, the requote route) must fit in, narrowest first
 * (see AdmissionLimiter): the shopper's IP, the cart, the store.
 */
export function sessionBudgets(options: AdmissionOptions, request: { cart: string; ip: string | undefined }): Budget[] {
  return [
    { scope: "ip", key: ipKey(request.ip), perMinute: options.sessionsPerIpPerMinute },
    { scope: "cart", key: request.cart, perMinute: options.sessionsPerCartPerMinute },
    { scope: "store", key: STORE, perMinute: options.sessionsPerStorePerMinute },
  ]
}

/** The budgets a read (estimate, permissions) must fit in; the cart's only where the request names one. */
export function readBudgets(options: AdmissionOptions, request: { cart?: string; ip: string | undefined }): Budget[] {
  return [
    { scope: "ip", key: ipKey(request.ip), perMinute: options.readsPerIpPerMinute },
    ...(request.cart ? [{ scope: "cart" as const, key: request.cart, perMinute: options.readsPerCartPerMinute }] : []),
    { scope: "store", key: STORE, perMinute: options.readsPerStorePerMinute },
  ]
}

const WHY: Record<AdmissionAction, Record<BudgetScope, string>> = {
  sessions: {
    ip: "Too many crypto payments were started from your connection",
    cart: "Too many crypto payments were started for this cart",
    store: "Crypto checkout is very busy right now",
  },
  reads: {
    ip: "Too many requests from your connection",
    cart: "Too many requests for this cart",
    store: "Crypto checkout is very busy right now",
  },
}

/** What the shopper is told when a budget refuses: why, and how long to wait. */
export function refusal(action: AdmissionAction, admission: Extract<Admission, { admitted: false }>): RateLimited {
  const retryAfterSeconds = waitSeconds(admission.retryAfterMs)
  return { message: `${WHY[action][admission.scope]}; please try again ${inSeconds(retryAfterSeconds)}.`, retryAfterSeconds }
}
