import { createHash } from "node:crypto"
import { RateLimiterRes, type RateLimiterAbstract } from "rate-limiter-flexible"

/** Whose budget a request spends: its cart's, its shopper IP's, or the whole store's. */
export type BudgetScope = "cart" | "ip" | "store"

/** One budget a request must fit in: requests per minute per key. */
export type Budget = { scope: BudgetScope; key: string; perMinute: number }

export type Admission =
  | { admitted: true }
  /** `retryAfterMs`: until the refusing budget's minute ends. */
  | { admitted: false; scope: BudgetScope; retryAfterMs: number }

/**
 * Makes the counter of one budget: `name` tells budgets apart (their counters never mix), `points` is its
 * limit per minute. rate-limiter-flexible's limiters, in memory or in Redis (admission/limiter-store.ts).
 */
export type LimiterFactory = (name: string, points: number) => RateLimiterAbstract

/** Counter keys are ids and IPs; anything longer or stranger (a hostile path) is hashed to a short key. */
const PLAIN_KEY = /^[A-Za-z0-9_.:-]{1,100}$/

function counterKey(key: string): string {
  return PLAIN_KEY.test(key) ? key : `h.${createHash("sha256").update(key).digest("hex").slice(0, 32)}`
}

/**
 * Admission of a request against several budgets at once (per cart, per IP, per store), each counted over
 * a minute. Budgets are taken in the order given, narrowest first: a request refused by its IP's budget
 * never reaches the cart's or the store's, so one client's flood spends only its own budget. A request
 * refused by a later budget gives back what it took from the earlier ones (it did nothing).
 *
 * A counter that cannot be reached (Redis gone with no fallback) admits the request and reports it:
 * a broken throttle must not stop the store from taking payments.
 */
export class AdmissionLimiter {
  private readonly limiters = new Map<string, RateLimiterAbstract>()

  /**
   * `ready`: settles once the counters' store is connected or given up on (the Redis connection a process
   * opens at start); requests wait for it, so the first ones are counted where the later ones are.
   */
  constructor(
    private readonly makeLimiter: LimiterFactory,
    private readonly onStoreError: (error: unknown) => void = () => undefined,
    private readonly ready: Promise<unknown> = Promise.resolve()
  ) {}

  /** `action` names what is counted ("sessions", "reads"): each action has budgets of its own. */
  async admit(action: string, budgets: Budget[]): Promise<Admission> {
    await this.ready
    const taken: Array<{ limiter: RateLimiterAbstract; key: string }> = []
    for (const budget of budgets) {
      const limiter = this.limiter(`${action}:${budget.scope}`, budget.perMinute)
      const key = counterKey(budget.key)
      try {
        await limiter.consume(key)
        taken.push({ limiter, key })
      } catch (outcome) {
        if (!(outcome instanceof RateLimiterRes)) {
          this.onStoreError(outcome)
          continue
        }
        await Promise.all(taken.map((earlier) => earlier.limiter.reward(earlier.key).catch(this.onStoreError)))
        return { admitted: false, scope: budget.scope, retryAfterMs: Math.max(0, outcome.msBeforeNext) }
      }
    }
    return { admitted: true }
  }

  private limiter(name: string, points: number): RateLimiterAbstract {
    const id = `${name}:${points}`
    let limiter = this.limiters.get(id)
    if (!limiter) {
      limiter = this.makeLimiter(name, points)
      this.limiters.set(id, limiter)
    }
    return limiter
  }
}
