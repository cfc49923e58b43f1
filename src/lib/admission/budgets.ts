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

/** A shopper who asked this often before their Retry-After ran out does not wait as told: a flood. */
const EARLY_ASKS_OF_A_REPEAT_SHOPPER = 3

/**
 * A refused shopper is told to wait this much less than the refusal's wait, so that a storefront retrying
 * right when Retry-After (whole seconds, rounded up) runs out is never early.
 */
const WAIT_GRACE_MS = 1000

/**
 * How long a shopper the service refused (its own 429, or a failure) after the store admitted them keeps the
 * place they spent: the service's wait is seconds to a minute.
 */
const HELD_PLACE_SECONDS = 120

/**
 * Admits a payment session against `sessionBudgets`, or on the place the shopper's last admitted session spent
 * when the service refused it (sessionNotMade). A repeat shopper is one who, in the last
 * `repeatShopperMinutes`, started a session or kept asking before their Retry-After ran out; both are
 * remembered here. A storefront that waits as told stays a new shopper however long the store is busy.
 */
export async function admitSession(limiter: AdmissionLimiter, options: AdmissionOptions, request: { cart: string; ip: string | undefined }): Promise<Admission> {
  const shopper = shopperKey(request.ip)
  const windowSeconds = options.repeatShopperMinutes * 60
  if (await limiter.takeHeldPlace("sessions", shopper, HELD_PLACE_SECONDS)) {
    await limiter.remember("sessions", shopper, windowSeconds)
    return { admitted: true, held: true }
  }
  const [started, earlier, early] = await Promise.all([
    limiter.recent("sessions", shopper, windowSeconds),
    limiter.recent("sessions-early", shopper, windowSeconds),
    limiter.asksEarly("sessions", shopper),
  ])
  const repeatShopper = started > 0 || earlier + (early ? 1 : 0) >= EARLY_ASKS_OF_A_REPEAT_SHOPPER
  const admission = await limiter.admit("sessions", sessionBudgets(options, { cart: request.cart, ip: shopper, repeatShopper }))
  if (admission.admitted) await limiter.remember("sessions", shopper, windowSeconds)
  else await limiter.makeWait("sessions", shopper, admission.retryAfterMs - WAIT_GRACE_MS)
  if (early) await limiter.remember("sessions-early", shopper, windowSeconds)
  return admission
}

/**
 * An admitted session that was not made after all: the shopper has not started one and stays a new
 * shopper. When nothing was spent upstream either (`refused`: input refused before any call, or nothing to
 * make), its place in the store's minute is given back, so that a shopper refused at the start of the store's
 * minute does not lose the whole minute to it. Not after the service's own 429: its quote was spent, and its
 * minute is full; the shopper keeps that place for their next try instead (the service's window slides, the
 * store's minute does not: a shopper the service refused at the start of a store minute would otherwise wait it
 * out, and then compete for the next one with those who came after). Once: a try on a held place holds none.
 */
export async function sessionNotMade(
  limiter: AdmissionLimiter,
  options: AdmissionOptions,
  ip: string | undefined,
  outcome: { refused: boolean; held: boolean }
): Promise<void> {
  await limiter.forget("sessions", shopperKey(ip), options.repeatShopperMinutes * 60)
  // A try on a held place took nothing from the budgets: it gives nothing back either (a flood could mint places).
  if (outcome.held) return
  if (outcome.refused) await limiter.giveBack("sessions", { scope: "store", key: STORE, perMinute: options.sessionsPerStorePerMinute })
  else await limiter.holdPlace("sessions", shopperKey(ip), HELD_PLACE_SECONDS)
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
