import { setTimeout as sleep } from "node:timers/promises"

/** Runs `worker` over `items` with at most `limit` at a time; results keep the items' order. */
export async function mapConcurrently<T, R>(items: T[], limit: number, worker: (item: T) => Promise<R>): Promise<R[]> {
  const results = new Array<R>(items.length)
  let next = 0
  const lanes = Array.from({ length: Math.min(limit, items.length) }, async () => {
    while (next < items.length) {
      const index = next++
      results[index] = await worker(items[index])
    }
  })
  await Promise.all(lanes)
  return results
}

/**
 * A per-minute request budget (token bucket refilled continuously), so reconciliation stays within
 * the service's rate limits however many shifts are due.
 */
export class RequestBudget {
  private tokens: number
  private refilledAt = Date.now()

  constructor(private readonly perMinute: number) {
    this.tokens = perMinute
  }

  /** Takes up to `wanted` requests from the budget and returns how many may be made now. */
  take(wanted: number): number {
    const now = Date.now()
    this.tokens = Math.min(this.perMinute, this.tokens + ((now - this.refilledAt) / 60_000) * this.perMinute)
    this.refilledAt = now
    const granted = Math.max(0, Math.min(wanted, Math.floor(this.tokens)))
    this.tokens -= granted
    return granted
  }
}

/** `work`'s result, or undefined if `ms` pass first. The work is not stopped: bound its own calls too. */
export async function resultWithin<T>(work: Promise<T>, ms: number): Promise<T | undefined> {
  const timer = new AbortController()
  try {
    return await Promise.race([work, sleep(ms, undefined, { signal: timer.signal })])
  } finally {
    timer.abort()
  }
}
