import BigNumber from "bignumber.js"
import { SwapServiceClient, type SwapServiceClientOptions } from "./client"
import { ReadCache } from "./read-cache"
import type { CoinNetwork } from "./rules"
import type { PairRate } from "./schemas"

export type ReadCachingOptions = {
  /** How long a pair's rate is reused (0: only requests in flight at once share a read). */
  pairTtlMs: number
  /** How long the service's permission answer for an IP is reused. */
  permissionsTtlMs: number
  /** Most entries per cache. */
  maxEntries?: number
  /** The significant digits a pair's `amount` keeps (rounded down). Default 3: the amount at most 1 % lower. */
  amountSignificantDigits?: number
  /** Milliseconds clock, for tests. */
  now?: () => number
}

const DEFAULT_AMOUNT_DIGITS = 3

const asset = ({ coin, network }: CoinNetwork) => `${coin}-${network}`.toLowerCase()

/**
 * `amount` rounded down to a few significant digits: every amount in a band shares one read. A rate at
 * an amount falls with it (the settlement's network fee weighs more on less), so a deposit priced at the
 * band's rate is, if anything, a little more than needed: the estimate still covers the amount due.
 */
export function amountBand(amount: string, significantDigits = DEFAULT_AMOUNT_DIGITS): string {
  const value = new BigNumber(amount)
  if (!value.isFinite() || value.isZero()) return amount
  return value.precision(significantDigits, BigNumber.ROUND_DOWN).toFixed()
}

/**
 * The client for reads a storefront causes (estimates, permissions): pair rates per pair, commission
 * and amount band, and permissions per IP are cached briefly and single-flighted, so any number of
 * shoppers asking at once costs one upstream read per distinct key and period. Everything else is the
 * plain client's.
 */
export class CachingSwapClient extends SwapServiceClient {
  private readonly pairs: ReadCache<PairRate>
  private readonly permissions: ReadCache<{ createShift: boolean }>
  private readonly amountDigits: number

  constructor(options: SwapServiceClientOptions, caching: ReadCachingOptions) {
    super(options)
    const common = { maxEntries: caching.maxEntries, now: caching.now }
    this.pairs = new ReadCache({ ...common, ttlMs: caching.pairTtlMs })
    this.permissions = new ReadCache({ ...common, ttlMs: caching.permissionsTtlMs })
    this.amountDigits = caching.amountSignificantDigits ?? DEFAULT_AMOUNT_DIGITS
  }

  /** The pair's rate, read at the amount's band (`amountBand`) when an amount is given. */
  override getPair(from: CoinNetwork, to: CoinNetwork, opts: { amount?: string; commissionRatePercent?: string } = {}): Promise<PairRate> {
    const amount = opts.amount === undefined ? undefined : amountBand(opts.amount, this.amountDigits)
    const key = JSON.stringify([asset(from), asset(to), opts.commissionRatePercent ?? null, amount ?? null])
    return this.pairs.get(key, () => super.getPair(from, to, { ...opts, amount }))
  }

  override getPermissions(userIp: string): Promise<{ createShift: boolean }> {
    return this.permissions.get(userIp, () => super.getPermissions(userIp))
  }
}
