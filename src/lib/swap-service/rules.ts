import BigNumber from "bignumber.js"
import { invalidRequest } from "./errors"
import { DECIMAL_PATTERN, type Coin, type Quote } from "./schemas"

// The service's rules that can be checked before any request, from the coin catalogue and the clock.

export type CoinNetwork = { coin: string; network: string }
export type Side = "deposit" | "settle"

const sameText = (a: string, b: string) => a.toLowerCase() === b.toLowerCase()

/** Whether a listing flag (`false`, `true` on single-network coins, or a network list) applies to a network. */
function flagApplies(flag: boolean | string[], network: string): boolean {
  return flag === true || (Array.isArray(flag) && flag.some((flagged) => sameText(flagged, network)))
}

/** The coin of the catalogue offering `network`, named by ticker (any case) or by its token contract address there. */
export function findCoinNetwork(coins: Coin[], coin: string, network: string): Coin | undefined {
  return coins.find(
    (candidate) =>
      candidate.networks.some((offered) => sameText(offered, network)) &&
      (sameText(candidate.coin, coin) ||
        Object.entries(candidate.tokenDetails ?? {}).some(
          ([tokenNetwork, token]) => sameText(tokenNetwork, network) && !!token.contractAddress && sameText(token.contractAddress, coin)
        ))
  )
}

/** Read from `networksWithMemo`; the deprecated `hasMemo` says nothing about which network. */
export function isMemoNetwork(coin: Coin, network: string): boolean {
  return coin.networksWithMemo.some((memoNetwork) => sameText(memoNetwork, network))
}

/** Temporarily unavailable on that side (`depositOffline` / `settleOffline`). */
export function isNetworkOffline(coin: Coin, network: string, side: Side): boolean {
  return flagApplies(side === "deposit" ? coin.depositOffline : coin.settleOffline, network)
}

/** Variable-rate only on that side. The deprecated `variableOnly` (both sides merged) is never read. */
export function isVariableOnly(coin: Coin, network: string, side: Side): boolean {
  return flagApplies(side === "deposit" ? coin.depositVariableOnly : coin.settleVariableOnly, network)
}

/** Spec 2.4: the fixed-rate flow is skipped when the deposit network is deposit-variable-only or the settle network settle-variable-only. */
export function chooseShiftType(coins: Coin[], deposit: CoinNetwork, settle: CoinNetwork): "fixed" | "variable" {
  const depositCoin = findCoinNetwork(coins, deposit.coin, deposit.network)
  const settleCoin = findCoinNetwork(coins, settle.coin, settle.network)
  const variableOnly =
    (depositCoin !== undefined && isVariableOnly(depositCoin, deposit.network, "deposit")) ||
    (settleCoin !== undefined && isVariableOnly(settleCoin, settle.network, "settle"))
  return variableOnly ? "variable" : "fixed"
}

/** Spec 2.3 rule 3: a settle memo only for a network listed in the coin's `networksWithMemo`. */
export function assertSettleMemoAllowed(coins: Coin[], settle: CoinNetwork, settleMemo: string | null | undefined): void {
  if (settleMemo === undefined || settleMemo === null) return
  const coin = findCoinNetwork(coins, settle.coin, settle.network)
  if (!coin || !isMemoNetwork(coin, settle.network)) {
    throw invalidRequest("settleMemo", `A settle memo is not supported for ${settle.coin} on ${settle.network}`)
  }
}

/** An expired quote is never used to create a shift (spec 7, case 3); an unreadable expiry counts as expired. */
export function assertQuoteUsable(quote: Pick<Quote, "expiresAt">, now: Date): void {
  const expiresAt = Date.parse(quote.expiresAt)
  if (Number.isNaN(expiresAt) || expiresAt <= now.getTime()) {
    throw invalidRequest("createFixedShift", "Quote has already expired. Request a new quote.")
  }
}

export function assertDecimalAmount(operation: string, field: string, value: string): void {
  if (!DECIMAL_PATTERN.test(value)) {
    throw invalidRequest(operation, `${field} must be a decimal string such as "12.5"`)
  }
}

/**
 * The one place the plugin's commission option becomes the service's `commissionRate`. The spec
 * (4.7, 8) defines the parameter as a number from 0 to 2 *percent*, so the percent is sent as it is;
 * the service's documentation examples write a fraction ("0.01" for 1 %), but where the spec speaks it wins.
 */
export function toServiceCommissionRate(percent: string | number): string {
  const value = new BigNumber(percent)
  if (!value.isFinite() || value.isLessThan(0) || value.isGreaterThan(2)) {
    throw invalidRequest("commissionRate", "The commission rate must be from 0 to 2 percent")
  }
  return value.toFixed()
}
