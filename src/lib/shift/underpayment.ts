import { addDecimals, compareDecimals, subtractDecimals } from "../money"

type Flags = Record<string, unknown> | null | undefined

/** Decisions that end a short payment's wait for the rest: held or refunded when it ran out, accepted, refunded instead. */
function decided(flags: Flags): boolean {
  return Boolean(flags?.underpayment_settled || flags?.underpaid_held || flags?.accepted_short || flags?.refund_instead)
}

/** An underpayment nobody has decided about yet, whose money is not being given back: the shopper may top it up. */
export function underpaymentUndecided(flags: Flags): boolean {
  return Boolean(flags?.underpaid) && !flags?.held_refund && !decided(flags)
}

/**
 * When an underpayment's wait for the rest ends: `waitMinutes` after it was judged short, or after the
 * shopper's last top-up, whichever is later. Null once it is decided (an admin's refund of the money
 * still lets the wait end, so that its top-ups go back too).
 */
export function underpaymentWindowEnd(flags: Flags, waitMinutes: number): Date | null {
  if (!flags?.underpaid || decided(flags) || typeof flags.underpaid_since !== "string") return null
  const topUpAt = typeof flags.top_up_at === "string" ? Date.parse(flags.top_up_at) : 0
  return new Date(Math.max(Date.parse(flags.underpaid_since), topUpAt) + waitMinutes * 60_000)
}

/** Service statuses after which a shift's deposit pays nothing any more. */
const GIVEN_BACK = new Set(["refund", "refunding", "refunded", "expired"])

/**
 * A payment that can take no more money: its order was placed or canceled, its money is being given back
 * or was accepted short, or the service sent its deposit back or let it expire. A top-up for it is refunded.
 * One held for the merchant still takes it: a top-up that covers the rest places the order.
 */
export function paymentClosed(payment: {
  status: string
  authorized_at?: Date | string | null
  captured_at?: Date | string | null
  canceled_at?: Date | string | null
  order_canceled_at?: Date | string | null
  flags: Flags
}): boolean {
  return Boolean(
    payment.authorized_at ||
      payment.order_canceled_at ||
      payment.captured_at ||
      payment.canceled_at ||
      payment.flags?.held_refund ||
      payment.flags?.paid_without_session ||
      payment.flags?.accepted_short ||
      payment.flags?.refund_instead ||
      GIVEN_BACK.has(payment.status)
  )
}

/**
 * A payment a top-up can still pay: its underpayment undecided, or held for the merchant (a top-up that
 * covers the rest places the order), and not closed.
 */
export function takesTopUp(payment: Parameters<typeof paymentClosed>[0]): boolean {
  return !paymentClosed(payment) && (underpaymentUndecided(payment.flags) || Boolean(payment.flags?.underpaid_held))
}

/** What a payment still misses, in the settle coin (the store currency's peg): never negative. */
export function missingAmount(amountDue: string, received: string): string | null {
  return compareDecimals(received, amountDue) < 0 ? subtractDecimals(amountDue, received) : null
}

/** What a payment row still misses once its own money (`received`) and its credit are counted; null when nothing is. */
export function stillMissing(row: { amount_due: string | null; credit: string | null }, received: string | undefined): string | null {
  return received && row.amount_due ? missingAmount(row.amount_due, addDecimals(received, row.credit ?? "0")) : null
}

/** The top-ups a payment counts, by ledger id: written with its credit, in one update of its row. */
export function creditedTopUps(payment: { flags?: Record<string, unknown> | null }): string[] {
  return Array.isArray(payment.flags?.credited_top_ups) ? (payment.flags!.credited_top_ups as string[]) : []
}

/** What a top-up counted toward its payment, once credited (`credited_amount`). */
export function creditedAmount(topUp: { flags?: Record<string, unknown> | null }): string | null {
  return typeof topUp.flags?.credited_amount === "string" ? topUp.flags.credited_amount : null
}

/** A waiting top-up this close to its end is not offered again: the shopper could not pay it in time. */
const REUSE_MARGIN_MS = 2 * 60_000

/** The latest top-up of a payment, when it still waits with time to pay it: asked for again, it is given again. */
export function reusableTopUp<T extends { status: string; captured_at: Date | string | null; expires_at: Date | string | null }>(latest: T | undefined, now = Date.now()): T | null {
  if (!latest || topUpClosed(latest) || latest.status !== "waiting") return null
  return !latest.expires_at || new Date(latest.expires_at).getTime() - now > REUSE_MARGIN_MS ? latest : null
}

/** Statuses in which a top-up can pay nothing more. */
const TOP_UP_OVER = new Set(["settled", "expired", "refunded"])

/**
 * A top-up that can pay nothing more: over at the service, or counted (credited to its payment or given
 * back, `captured_at`), whatever its status says since (one paid again reads `multiple`). The shopper may
 * make another.
 */
export function topUpClosed(topUp: { status: string; captured_at: Date | string | null }): boolean {
  return TOP_UP_OVER.has(topUp.status) || Boolean(topUp.captured_at)
}
