import { AsyncLocalStorage } from "node:async_hooks"
import type { Shift } from "../swap-service"

/**
 * How old an observation may be and still stand in for a read. Beyond it (a sync that waited long for
 * a cart's lock, a tick slow to reach a shift) the shift is read again. A decision on an observation
 * this young is the one the sync itself would have made a few seconds earlier.
 */
export const OBSERVATION_MAX_AGE_MS = 10_000

/** A shift as the plugin read it from the service, and when (taken before the request went out). */
export type ObservedShift = { shift: Shift; observed_at: string }

export function isFresh(observed: ObservedShift, now = Date.now()): boolean {
  const age = now - new Date(observed.observed_at).getTime()
  return age >= 0 && age <= OBSERVATION_MAX_AGE_MS
}

/** What a sync hands to the provider: its observation, and the payment it is about. */
export type SyncObservation = ObservedShift & { session_id: string; checkout_id: string | null }

const current = new AsyncLocalStorage<SyncObservation>()

/**
 * Runs `run` (the sync's processPaymentWorkflow) with the shift the sync observed moments ago under the
 * shift's lock, so the provider's authorize and capture within it need not read the shift again. Bound
 * to this call chain in this process, never to the payment's stored data: a shopper's cart completion
 * running meanwhile does not see it and reads the service.
 */
export function withSyncObservation<T>(observation: SyncObservation, run: () => Promise<T>): Promise<T> {
  return current.run(observation, run)
}

/**
 * The observation of the sync the caller runs within, if it is about this session's payment (its
 * shift, or in checkout mode its checkout and any shift the data already names) and still fresh;
 * otherwise undefined, and the caller reads. Where the provider and the workflows were loaded as two
 * copies of this file, it is always undefined.
 */
export function syncObservation(session: { session_id: string; checkout_id?: string; shift_id?: string }): Shift | undefined {
  const observation = current.getStore()
  if (!observation || observation.session_id !== session.session_id || !isFresh(observation)) return undefined
  const samePayment = session.checkout_id
    ? session.checkout_id === observation.checkout_id && (!session.shift_id || session.shift_id === observation.shift.id)
    : session.shift_id === observation.shift.id
  return samePayment ? observation.shift : undefined
}
