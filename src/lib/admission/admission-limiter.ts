import { createHash } from "node:crypto"
import { RateLimiterRes, type RateLimiterAbstract } from "rate-limiter-flexible"

/** Whose budget a request spends: its cart's, its shopper IP's, or the whole store's. */
export type BudgetScope = "cart" | "ip" | "store"

/**
 * One budget a request must fit in: requests per minute per key. `admitUpTo`: this request is admitted
 * only while the budget's count stays within it (a repeat shopper gets less of the store's minute).
 */
export type Budget = { scope: BudgetScope; key: string; perMinute: number; admitUpTo?: number }

export type Admission =
  /** `held`: admitted on the place an earlier admission of the shopper spent (takeHeldPlace), not on the budgets. */
  | { admitted: true; held?: boolean }
  /** `retryAfterMs`: until the refusing budget's minute ends. */
  | { admitted: false; scope: BudgetScope; retryAfterMs: number }

/**
 * Makes the counter of one budget: `name` tells budgets apart (their counters never mix), `points` is its
 * limit per `durationSeconds` (a minute unless told). rate-limiter-flexible's limiters, in memory or in
 * Redis (admission/limiter-store.ts).
 */
export type LimiterFactory = (name: string, points: number, durationSeconds?: number) => RateLimiterAbstract

/** What a `recent` count can reach: far above any share it lowers. */
const RECENT_CAP = 1000

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
      let refusedBy: RateLimiterRes
      try {
        // A share already used up is refused without counting: a flood of refused requests, each counted
        // until given back, would otherwise fill the budget for a moment at a time and refuse others.
        if (budget.admitUpTo !== undefined && budget.admitUpTo < budget.perMinute) {
          const current = await limiter.get(key)
          if (current && current.consumedPoints >= budget.admitUpTo) throw current
        }
        const counted = await limiter.consume(key)
        taken.push({ limiter, key })
        if (budget.admitUpTo === undefined || counted.consumedPoints <= budget.admitUpTo) continue
        refusedBy = counted
      } catch (outcome) {
        if (!(outcome instanceof RateLimiterRes)) {
          this.onStoreError(outcome)
          continue
        }
        refusedBy = outcome
      }
      await Promise.all(taken.map((earlier) => earlier.limiter.reward(earlier.key).catch(this.onStoreError)))
      return { admitted: false, scope: budget.scope, retryAfterMs: Math.max(0, refusedBy.msBeforeNext) }
    }
    return { admitted: true }
  }

  /** How often `key` was remembered for `action` in its last window of `windowSeconds`; 0 when the counters fail. */
  async recent(action: string, key: string, windowSeconds: number): Promise<number> {
    await this.ready
    try {
      const counted = await this.limiter(`${action}:recent`, RECENT_CAP, windowSeconds).get(counterKey(key))
      return counted?.consumedPoints ?? 0
    } catch (error) {
      this.onStoreError(error)
      return 0
    }
  }

  /** Makes `key` wait `ms` before it asks for `action` again (a refusal's Retry-After); see `asksEarly`. */
  async makeWait(action: string, key: string, ms: number): Promise<void> {
    await this.ready
    try {
      await this.limiter(`${action}:wait`, 1).block(counterKey(key), Math.max(1, ms) / 1000)
    } catch (error) {
      this.onStoreError(error)
    }
  }

  /** Whether `key` asks for `action` before the wait it was given ran out. */
  async asksEarly(action: string, key: string): Promise<boolean> {
    await this.ready
    try {
      const waiting = await this.limiter(`${action}:wait`, 1).get(counterKey(key))
      return Boolean(waiting && waiting.consumedPoints > 1 && waiting.msBeforeNext > 0)
    } catch (error) {
      this.onStoreError(error)
      return false
    }
  }

  /** Keeps for `key` the place an admitted request spent, for one later request of `action` within `seconds` (takeHeldPlace). */
  async holdPlace(action: string, key: string, seconds: number): Promise<void> {
    await this.ready
    try {
      await this.limiter(`${action}:held`, 1, seconds).consume(counterKey(key))
    } catch (outcome) {
      // Already held: one place, not two.
      if (!(outcome instanceof RateLimiterRes)) this.onStoreError(outcome)
    }
  }

  /** Takes the place held for `key` (holdPlace), if there is one: whether there was. Once: the store deletes it atomically. */
  async takeHeldPlace(action: string, key: string, seconds: number): Promise<boolean> {
    await this.ready
    try {
      return await this.limiter(`${action}:held`, 1, seconds).delete(counterKey(key))
    } catch (error) {
      this.onStoreError(error)
      return false
    }
  }

  /** Gives back what an admitted request took from one of its budgets: it spent nothing after all. */
  async giveBack(action: string, budget: Budget): Promise<void> {
    await this.ready
    try {
      await this.limiter(`${action}:${budget.scope}`, budget.perMinute).reward(counterKey(budget.key))
    } catch (error) {
      this.onStoreError(error)
    }
  }

  /** Takes back one `remember` of `action` for `key`: what it counted did not happen. */
  async forget(action: string, key: string, windowSeconds: number): Promise<void> {
    await this.ready
    try {
      await this.limiter(`${action}:recent`, RECENT_CAP, windowSeconds).reward(counterKey(key))
    } catch (error) {
      this.onStoreError(error)
    }
  }

  /** Counts one more `action` for `key` (see `recent`). */
  async remember(action: string, key: string, windowSeconds: number): Promise<void> {
    await this.ready
    try {
      await this.limiter(`${action}:recent`, RECENT_CAP, windowSeconds).consume(counterKey(key))
    } catch (outcome) {
      if (!(outcome instanceof RateLimiterRes)) this.onStoreError(outcome)
    }
  }

  private limiter(name: string, points: number, durationSeconds?: number): RateLimiterAbstract {
    const id = `${name}:${points}:${durationSeconds ?? ""}`
    let limiter = this.limiters.get(id)
    if (!limiter) {
      limiter = this.makeLimiter(name, points, durationSeconds)
      this.limiters.set(id, limiter)
    }
    return limiter
  }
}
