import ipaddr from "ipaddr.js"
import type { AdmissionOptions } from "../options"
import { english, text, type Say } from "../i18n"
import { inSeconds, waitSeconds, type RateLimited } from "../rate-limited"
import type { Admission, AdmissionLimiter, Budget } from "./admission-limiter"

/** What is counted: payment sessions (a quote and a shift each) or reads of the service. */
export type AdmissionAction = "sessions" | "reads"

/** The one key of the store's budget. */
const STORE = "store"

/**
 * Whom a request is counted for: the shopper's IP when the server knows it (requests without one share a
 * budget); an IPv6 shopper by their /64, the block one subscriber gets, else one client would hold billions
 * of budgets.
 */
export function shopperKey(ip: string | undefined): string {
  if (!ip) return "unknown"
  if (!ipaddr.isValid(ip)) return ip
  const address = ipaddr.process(ip)
  if (address.kind() === "ipv4") return address.toString()
  return `${ipaddr.IPv6.networkAddressFromCIDR(`${address.toString()}/64`).toString()}/64`
}

/**
 * The budgets a payment session (Medusa's session route, the requote route) must fit in, narrowest first
 * (see AdmissionLimiter): the shopper's IP, the cart, the store. A repeat shopper may take only
 * `repeatShopperStoreShare` of the store's minute: the rest waits for shoppers starting their first
 * payment, so a flood from a few IPs can't take it all.
 */
export function sessionBudgets(options: AdmissionOptions, request: { cart: string; ip: string | undefined; repeatShopper: boolean }): Budget[] {
  const store = options.sessionsPerStorePerMinute
  const share = request.repeatShopper ? Math.min(store, options.repeatShopperStoreShare ?? Math.ceil(store / 2)) : store
  return [
    { scope: "ip", key: shopperKey(request.ip), perMinute: options.sessionsPerIpPerMinute },
    { scope: "cart", key: request.cart, perMinute: options.sessionsPerCartPerMinute },
    { scope: "store", key: STORE, perMinute: store, admitUpTo: share },
  ]
}

/**
 * A shopper refused this often lately did not wait as Retry-After said: a storefront that does is refused
 * about once a minute while the store is busy.
 */
const REFUSALS_OF_A_REPEAT_SHOPPER = 3

/**
 * Admits a payment session against `sessionBudgets`. A repeat shopper is one who, in the last
 * `repeatShopperMinutes`, started a session or kept asking while refused; both are remembered here.
 */
export async function admitSession(limiter: AdmissionLimiter, options: AdmissionOptions, request: { cart: string; ip: string | undefined }): Promise<Admission> {
  const shopper = shopperKey(request.ip)
  const windowSeconds = options.repeatShopperMinutes * 60
  const [started, refused] = await Promise.all([
    limiter.recent("sessions", shopper, windowSeconds),
    limiter.recent("sessions-refused", shopper, windowSeconds),
  ])
  const repeatShopper = started > 0 || refused >= REFUSALS_OF_A_REPEAT_SHOPPER
  const admission = await limiter.admit("sessions", sessionBudgets(options, { cart: request.cart, ip: shopper, repeatShopper }))
  await limiter.remember(admission.admitted ? "sessions" : "sessions-refused", shopper, windowSeconds)
  return admission
}

/** The budgets a read (estimate, permissions) must fit in; the cart's only where the request names one. */
export function readBudgets(options: AdmissionOptions, request: { cart?: string; ip: string | undefined }): Budget[] {
  return [
    { scope: "ip", key: shopperKey(request.ip), perMinute: options.readsPerIpPerMinute },
    ...(request.cart ? [{ scope: "cart" as const, key: request.cart, perMinute: options.readsPerCartPerMinute }] : []),
    { scope: "store", key: STORE, perMinute: options.readsPerStorePerMinute },
  ]
}

/** What the shopper is told when a budget refuses: why, and how long to wait, in their language. */
export function refusal(action: AdmissionAction, admission: Extract<Admission, { admitted: false }>, say: Say = english): RateLimited {
  const retryAfterSeconds = waitSeconds(admission.retryAfterMs)
  return { message: say(text(`refusal.${action}.${admission.scope}`, { wait: inSeconds(retryAfterSeconds) })), retryAfterSeconds }
}
