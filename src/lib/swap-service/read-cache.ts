export type ReadCacheOptions = {
  /** How long a loaded value is reused. 0: never reused, only shared by the callers that asked while it loaded. */
  ttlMs: number
  /** Most values kept; the oldest go first. Bounds the memory a caller choosing keys (IPs, amounts) can take. */
  maxEntries?: number
  /** Milliseconds clock, for tests. */
  now?: () => number
}

const DEFAULT_MAX_ENTRIES = 5000

/**
 * Reads of the service by key, cached for a while and single-flighted: however many callers ask for a
 * key at once, one load runs and all of them get its outcome. Failures are shared by the callers that
 * waited for them and never cached: the next caller loads again.
 */
export class ReadCache<T> {
  private readonly values = new Map<string, { value: T; loadedAt: number }>()
  private readonly loading = new Map<string, Promise<T>>()

  constructor(private readonly options: ReadCacheOptions) {}

  get(key: string, load: () => Promise<T>): Promise<T> {
    const cached = this.values.get(key)
    if (cached && this.now() - cached.loadedAt < this.options.ttlMs) return Promise.resolve(cached.value)
    if (cached) this.values.delete(key)
    const inFlight = this.loading.get(key)
    if (inFlight) return inFlight
    // The load starts on the next microtask, so it is registered before it can settle (even by throwing at once).
    const pending: Promise<T> = Promise.resolve()
      .then(load)
      .then((value) => {
        if (this.options.ttlMs > 0) this.remember(key, value)
        return value
      })
      .finally(() => {
        if (this.loading.get(key) === pending) this.loading.delete(key)
      })
    this.loading.set(key, pending)
    return pending
  }

  /** Values held now (loads in flight not counted). */
  get size(): number {
    return this.values.size
  }

  clear(): void {
    this.values.clear()
  }

  private remember(key: string, value: T): void {
    this.values.delete(key)
    this.values.set(key, { value, loadedAt: this.now() })
    const max = this.options.maxEntries ?? DEFAULT_MAX_ENTRIES
    // A Map iterates in insertion order: the first keys are the oldest loads.
    for (const oldest of this.values.keys()) {
      if (this.values.size <= max) break
      this.values.delete(oldest)
    }
  }

  private now(): number {
    return this.options.now?.() ?? Date.now()
  }
}
