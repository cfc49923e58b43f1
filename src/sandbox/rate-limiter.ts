import type { SandboxClock } from "./clock"
import { rateLimited } from "./service-error"

const WINDOW_MS = 60_000

export type RateBucket = "quotes" | "shifts"

/** Per key (an address) and minute, separately for quotes and shift creations; a sliding window on the sandbox clock. */
export class RateLimiter {
  private readonly hits = new Map<string, number[]>()

  constructor(private readonly clock: SandboxClock) {}

  /** Counts one request, or throws 429 with the seconds until the oldest counted request leaves the window. */
  take(bucket: RateBucket, key: string, perMinute: number | undefined): void {
    if (perMinute === undefined) {
      return
    }
    const now = this.clock.now().getTime()
    const bucketKey = `${bucket} ${key}`
    const recent = (this.hits.get(bucketKey) ?? []).filter((time) => time > now - WINDOW_MS)
    this.hits.set(bucketKey, recent)
    if (recent.length >= perMinute) {
      throw rateLimited(Math.max(1, Math.ceil((recent[0] + WINDOW_MS - now) / 1000)))
    }
    recent.push(now)
  }

  reset(): void {
    this.hits.clear()
  }
}
