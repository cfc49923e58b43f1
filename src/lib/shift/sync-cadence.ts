import type { CryptoSwapOptions } from "../options"

const IN_FLIGHT = new Set(["pending", "processing", "settling", "multiple"])
const REFUND = new Set(["refund", "refunding"])

/**
 * When a shift should be read again: often while money moves, rarely while it waits or sits in review,
 * never once it is over and nothing is left to do. Failures back off exponentially.
 */
export function nextSyncAt(
  shift: { status: string; terminal: boolean; actionPending: boolean; failures: number },
  cadence: CryptoSwapOptions["reconcile"],
  now: Date
): Date | null {
  if (shift.failures > 0) return retryAt(shift.failures, cadence, now)
  if (shift.terminal && !shift.actionPending) return null
  const seconds = shift.actionPending || IN_FLIGHT.has(shift.status)
    ? cadence.inFlightSeconds
    : shift.status === "review"
      ? cadence.reviewSeconds
      : REFUND.has(shift.status)
        ? cadence.refundSeconds
        : cadence.waitingSeconds
  return new Date(now.getTime() + seconds * 1000)
}

/** When to try again after `failures` failed reads or attempts at an action: exponential, capped. */
export function retryAt(failures: number, cadence: CryptoSwapOptions["reconcile"], now: Date): Date {
  const seconds = Math.min(cadence.inFlightSeconds * 2 ** Math.min(failures, 16), cadence.maxBackoffSeconds)
  return new Date(now.getTime() + seconds * 1000)
}
