import type { CryptoSwapOptions } from "../options"
import { underpaymentWindowEnd } from "./underpayment"
import { refundSentBack } from "./refund-ids"

const IN_FLIGHT = new Set(["pending", "processing", "settling", "multiple"])
const REFUND = new Set(["refund", "refunding"])

/** How long after its expiry a shift is still read closely (review cadence), for a deposit that arrives late. */
export const LATE_DEPOSIT_WATCH_MS = 60 * 60 * 1000

/**
 * How long after its expiry an expired shift is still read, slowly (`openAddressSeconds`), after that first
 * hour. The service holds a late deposit to a variable shift for review, for hours, then settles or sends it
 * back, and sends a late fixed one back waiting for a refund address. A week: a variable shift's address is
 * announced for 7 days, so a shopper may pay one the plugin cancelled for idleness, copied earlier, as late as
 * that, and its review adds hours. Beyond, each abandoned payment would cost reads for ever (hourly, about
 * 170 in that week, fifty to a request with the bulk read).
 */
export const LATE_DEPOSIT_HORIZON_MS = 7 * 24 * 60 * 60 * 1000

/**
 * An action that waits this long on another (a capture on an order that cannot be placed) is put on the
 * merchant's list: far beyond the retries of what it waits on (about 40 minutes with the defaults).
 */
export const BLOCKED_ACTION_ATTENTION_MS = 6 * 60 * 60 * 1000

/**
 * A hosted checkout has no expiry: its page makes a new shift whenever its payer picks a coin. One not paid
 * yet is watched hourly for a week after it was made, then daily until this long after (its payment
 * notification, which has no documented retries, wakes it sooner).
 */
export const CHECKOUT_PAYABLE_MS = 30 * 24 * 60 * 60 * 1000
const CHECKOUT_HOURLY_MS = 7 * 24 * 60 * 60 * 1000
const DAY_SECONDS = 24 * 60 * 60
/** A checkout nobody picked a coin on for this long is read at the open-address cadence, not the waiting one. */
const CHECKOUT_IDLE_MS = 60 * 60 * 1000

/**
 * When a shift should be read again: often while money moves and in the first minutes of waiting (when
 * shoppers pay, often from another device, closing the page), rarely while it waits longer or sits in
 * review, never once it is over and nothing is left to do. Failures back off exponentially.
 */
export function nextSyncAt(
  shift: {
    status: string
    terminal: boolean
    actionPending: boolean
    failures: number
    expiresAt?: Date | string | null
    createdAt?: Date | string | null
    /** A refund's shift waits for the store's own deposit: not read early like a shopper's. */
    kind?: string | null
    /** A variable payment shift's address takes deposits until it expires, whatever its status. */
    type?: string | null
    /** A refund not judged paid in full yet (short, sent back, or a figure missing): its variable address takes deposits until it expires. */
    refundOpen?: boolean
    /** A refund the merchant is to send more to now: the rest of one paid short, or again after its deposit was sent back. */
    refundToSend?: boolean
    /** A `multiple` shift's deposits: it is read at the cadence of the busiest one still moving. */
    deposits?: ReadonlyArray<{ status: string }> | null
    /**
     * When a decision about a shift that is over falls due (an underpayment's wait for a top-up ends).
     * Once past, the sync at that time made the decision or had none to make: it wakes the shift no more.
     */
    wakeAt?: Date | null
    /** A hosted checkout not paid yet: its page takes a new pick until then, whatever its latest shift did. */
    payableUntil?: Date | null
  },
  cadence: CryptoSwapOptions["reconcile"],
  now: Date
): Date | null {
  if (shift.failures > 0) return retryAt(shift.failures, cadence, now)
  // A refund waiting for the shopper's address has nothing to read: the address, when given, wakes it.
  if (shift.kind === "refund" && shift.status === "address_needed") return null
  // An expired shift may still receive a late deposit, which the service reviews (variable) or sends back
  // (and may need an address for): watched at the review cadence for an hour, then slowly up to LATE_DEPOSIT_HORIZON_MS.
  if (expiredWithin(shift, now, LATE_DEPOSIT_WATCH_MS)) return new Date(now.getTime() + cadence.reviewSeconds * 1000)
  if (shift.terminal && !shift.actionPending) {
    const wake = shift.wakeAt && shift.wakeAt > now ? shift.wakeAt : null
    // The rest of a short refund, or a deposit again after one was sent back, is the merchant's to send now:
    // read like a refund, not like a stray deposit.
    const watchSeconds = shift.kind === "refund" && shift.refundToSend ? cadence.refundSeconds : cadence.openAddressSeconds
    const seconds = addressOpen(shift, now)
      ? watchSeconds
      : lateDepositWatched(shift, now)
        ? cadence.openAddressSeconds
        : pageOpen(shift, now)
          ? pageSeconds(shift, now, cadence)
          : null
    const watch = seconds === null ? null : new Date(now.getTime() + seconds * 1000)
    return wake && watch ? (wake < watch ? wake : watch) : wake ?? watch
  }
  // A checkout with no shift yet: read while its page may still be used, rarely once nobody picked a coin for a while.
  if (shift.payableUntil && !shift.expiresAt) {
    if (!pageOpen(shift, now)) return null
    if (shift.createdAt && now.getTime() - new Date(shift.createdAt).getTime() >= CHECKOUT_IDLE_MS) return new Date(now.getTime() + pageSeconds(shift, now, cadence) * 1000)
  }
  const status = shift.status === "multiple" && shift.deposits?.length ? busiestDeposit(shift.deposits) : shift.status
  const freshlyWaiting = shift.status === "waiting" && shift.kind !== "refund" && shift.createdAt && now.getTime() - new Date(shift.createdAt).getTime() < cadence.freshWaitingMinutes * 60_000
  // Every deposit of a `multiple` shift settled, a figure the service has yet to give: read as slowly as a review.
  const figureLate = shift.status === "multiple" && status === "settled"
  const seconds = shift.actionPending || IN_FLIGHT.has(status) || freshlyWaiting
    ? cadence.inFlightSeconds
    : status === "review" || figureLate
      ? cadence.reviewSeconds
      : REFUND.has(status)
        ? cadence.refundSeconds
        : cadence.waitingSeconds
  return new Date(now.getTime() + seconds * 1000)
}

/**
 * The status of a `multiple` shift's deposit that needs the closest reading: money in flight, then one in
 * review, then one being sent back (which may wait days for the shopper's refund address).
 */
function busiestDeposit(deposits: ReadonlyArray<{ status: string }>): string {
  const statuses = deposits.map((deposit) => deposit.status)
  return statuses.find((status) => IN_FLIGHT.has(status)) ?? (statuses.includes("review") ? "review" : statuses.find((status) => REFUND.has(status)) ?? "settled")
}

/**
 * An address that still takes deposits after its shift is over. A payment's or a top-up's variable address
 * swaps them until it expires: a shopper may pay it again after the payment is over or the top-up counted.
 * A fixed one (a hosted checkout's too) sends back any after its first, and waits for a refund address the
 * shopper may have to be asked for: watched until the late-deposit hour after it expires. A refund's
 * address not paid in full (short, sent back, or marked paid by other means) takes the merchant's deposit
 * the same way.
 */
function addressOpen(
  shift: { kind?: string | null; type?: string | null; status: string; expiresAt?: Date | string | null; refundOpen?: boolean },
  now: Date
): boolean {
  if (shift.status === "expired" || !shift.expiresAt) return false
  const expiresAt = new Date(shift.expiresAt).getTime()
  const open = shift.type === "variable" ? expiresAt > now.getTime() : expiresAt + LATE_DEPOSIT_WATCH_MS > now.getTime()
  if (shift.kind === "payment" || shift.kind === "top_up") return open
  return shift.kind === "refund" && Boolean(shift.refundOpen) && open
}

/**
 * A shift past its expiry by less than LATE_DEPOSIT_HORIZON_MS whose address may still take a late deposit that
 * matters: an expired one, a variable payment's or top-up's, paid or not (the service reviews a late deposit to it,
 * then may settle it to the store: money no order holds, or an overpayment), or a variable refund's not paid in
 * full (released to the shopper, it may pay them twice).
 */
function lateDepositWatched(
  shift: { status: string; kind?: string | null; type?: string | null; expiresAt?: Date | string | null; refundOpen?: boolean },
  now: Date
): boolean {
  const variableAddress = shift.type === "variable" && (shift.kind === "payment" || shift.kind === "top_up" || (shift.kind === "refund" && Boolean(shift.refundOpen)))
  return (shift.status === "expired" || variableAddress) && expiredLessThan(shift, now, LATE_DEPOSIT_HORIZON_MS)
}

/** An expired shift less than `ms` after its expiry, where a late deposit may still show up. */
function expiredWithin(shift: { status: string; expiresAt?: Date | string | null }, now: Date, ms: number): boolean {
  return shift.status === "expired" && expiredLessThan(shift, now, ms)
}

/** A shift whose expiry passed less than `ms` ago (or is still to come), whatever its status. */
function expiredLessThan(shift: { expiresAt?: Date | string | null }, now: Date, ms: number): boolean {
  return Boolean(shift.expiresAt) && now.getTime() - new Date(shift.expiresAt!).getTime() < ms
}

/** A hosted checkout not paid yet whose page still takes a pick (see CHECKOUT_PAYABLE_MS). */
function pageOpen(shift: { payableUntil?: Date | null }, now: Date): boolean {
  return Boolean(shift.payableUntil && shift.payableUntil > now)
}

/** How often an open checkout page is read once nothing else calls for it: hourly for its first week, then daily. */
function pageSeconds(shift: { createdAt?: Date | string | null }, now: Date, cadence: CryptoSwapOptions["reconcile"]): number {
  const age = shift.createdAt ? now.getTime() - new Date(shift.createdAt).getTime() : 0
  return age >= CHECKOUT_HOURLY_MS ? DAY_SECONDS : cadence.openAddressSeconds
}

/** Until when a ledger row's hosted checkout may still be paid through its page: none once its payment was captured. */
export function checkoutPayableUntil(row: { type: string | null; kind: string | null; captured_at?: Date | string | null; created_at: Date | string | null }): Date | null {
  if (row.type !== "checkout" || row.kind !== "payment" || row.captured_at || !row.created_at) return null
  return new Date(new Date(row.created_at).getTime() + CHECKOUT_PAYABLE_MS)
}

/**
 * A hosted checkout whose latest pick ran out unpaid while its page still takes another: the payment is not
 * over. Nothing ends it, nobody is told it expired, and the shopper's page reads it and says to pick again.
 */
export function checkoutPickExpired(
  row: {
    status: string
    type: string | null
    kind?: string | null
    captured_at?: Date | string | null
    created_at?: Date | string | null
    canceled_at?: Date | string | null
  },
  now = new Date()
): boolean {
  if (row.status !== "expired" || row.canceled_at) return false
  const until = checkoutPayableUntil({ ...row, kind: row.kind ?? null, created_at: row.created_at ?? null })
  return until !== null && until > now
}

/** What the cadence reads of a ledger row, as recorded or about to be. */
type CadenceRow = {
  status: string
  terminal: boolean
  expires_at: Date | string | null
  created_at: Date | string | null
  kind: string | null
  type: string | null
  deposits: unknown
  flags: Record<string, unknown> | null
  captured_at?: Date | string | null
}

/**
 * When a ledger row should be read again with no failure to back off from. A settled underpayment is over
 * at the service, but its wait for a top-up still ends in a decision (`underpayment.waitMinutes`).
 */
export function rowSyncAt(row: CadenceRow, options: Pick<CryptoSwapOptions, "reconcile" | "underpayment">, now: Date, actionPending = false): Date | null {
  return nextSyncAt(
    {
      status: row.status,
      terminal: row.terminal,
      actionPending,
      failures: 0,
      expiresAt: row.expires_at,
      createdAt: row.created_at,
      kind: row.kind,
      type: row.type,
      refundOpen: row.kind === "refund" && !row.flags?.refunded,
      refundToSend: Boolean(row.flags?.refund_short) || refundSentBack(row),
      deposits: Array.isArray(row.deposits) ? (row.deposits as Array<{ status: string }>) : null,
      wakeAt: underpaymentWindowEnd(row.flags, options.underpayment.waitMinutes),
      payableUntil: checkoutPayableUntil(row),
    },
    options.reconcile,
    now
  )
}

/** When to try again after `failures` failed reads or attempts at an action: exponential, capped. */
export function retryAt(failures: number, cadence: CryptoSwapOptions["reconcile"], now: Date): Date {
  const seconds = Math.min(cadence.inFlightSeconds * 2 ** Math.min(failures, 16), cadence.maxBackoffSeconds)
  return new Date(now.getTime() + seconds * 1000)
}
