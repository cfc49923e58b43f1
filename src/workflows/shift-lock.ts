/**
 * Outlasts the longest sync: a read and the actions, each at worst a few client calls at the request
 * timeout with retries, or a cart completion waiting up to 30 s for the cart's lock. A crashed holder
 * delays that one shift by this much at most.
 */
export const SYNC_LOCK_TTL_SECONDS = 600

/** Every change to a shift's state runs under this lock. */
export const shiftLockKey = (ledgerId: string) => `crypto-swap:shift:${ledgerId}`
