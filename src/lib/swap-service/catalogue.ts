import type { Coin } from "./schemas"

type CoinSource = { getCoins(): Promise<Coin[]> }

/**
 * The coin catalogue, cached: a cold cache costs one upstream call however many callers wait for it,
 * a warm one none; once stale it is refreshed in the background while callers keep the last copy.
 */
export class CoinCatalogue {
  private coins?: Coin[]
  private loadedAt = 0
  private loading?: Promise<Coin[]>
  lastError?: Error

  constructor(
    private readonly source: CoinSource,
    private readonly options: { ttlMs?: number; now?: () => number } = {}
  ) {}

  private now() {
    return this.options.now?.() ?? Date.now()
  }

  private load(): Promise<Coin[]> {
    this.loading ??= this.source
      .getCoins()
      .then((coins) => {
        this.coins = coins
        this.loadedAt = this.now()
        this.lastError = undefined
        return coins
      })
      .catch((error: Error) => {
        this.lastError = error
        throw error
      })
      .finally(() => {
        this.loading = undefined
      })
    return this.loading
  }

  async get(): Promise<Coin[]> {
    if (!this.coins) return this.load()
    if (this.ageMs() > (this.options.ttlMs ?? 10 * 60 * 1000)) {
      // Stale: answer with what we have, refresh for the next caller.
      this.load().catch(() => undefined)
    }
    return this.coins
  }

  /** How old the cached copy is (Infinity before the first load). */
  ageMs(): number {
    return this.coins ? this.now() - this.loadedAt : Infinity
  }
}
