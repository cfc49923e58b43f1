import type { Coin } from "./schemas"

export type CoinCatalogueOptions = {
  /** How long a loaded catalogue counts as fresh. Default 10 minutes. */
  ttlMs?: number
  /** Milliseconds clock, for tests. */
  now?: () => number
}

const DEFAULT_TTL_MS = 10 * 60 * 1000

/**
 * The coin catalogue, cached (stale-while-revalidate): a cold cache costs one upstream call however
 * many callers wait for it, a warm one none; once stale, callers get the last copy at once while one
 * refresh runs in the background. A failed refresh keeps the last copy and is kept in `lastError`.
 */
export class CoinCatalogue {
  private coins?: Coin[]
  private loadedAt = 0
  private loading?: Promise<Coin[]>
  /** Why the latest load failed; cleared by the next success. */
  lastError?: Error

  constructor(
    private readonly source: { getCoins(): Promise<Coin[]> },
    private readonly options: CoinCatalogueOptions = {}
  ) {}

  get(): Promise<Coin[]> {
    if (!this.coins) return this.load()
    if (this.ageMs() > (this.options.ttlMs ?? DEFAULT_TTL_MS)) {
      // The failure is in lastError; callers keep the copy they have.
      this.load().catch(() => undefined)
    }
    return Promise.resolve(this.coins)
  }

  /** How old the cached copy is; Infinity before the first successful load. */
  ageMs(): number {
    return this.coins ? this.now() - this.loadedAt : Infinity
  }

  private now(): number {
    return this.options.now?.() ?? Date.now()
  }

  /** One load at a time: callers arriving while it runs share it. */
  private load(): Promise<Coin[]> {
    this.loading ??= this.source
      .getCoins()
      .then((coins) => {
        this.coins = coins
        this.loadedAt = this.now()
        this.lastError = undefined
        return coins
      })
      .catch((error: unknown) => {
        this.lastError = error instanceof Error ? error : new Error(String(error))
        throw error
      })
      .finally(() => {
        this.loading = undefined
      })
    return this.loading
  }
}
