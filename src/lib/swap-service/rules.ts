import BigNumberJS from "bignumber.js"
import { SwapServiceError } from "./errors"
import type { Coin, Quote } from "./schemas"

export type CoinNetwork = { coin: string; network: string }
type NetworkFlag = boolean | string[] | null | undefined

/** Whether a `false | true | network[]` flag of the catalogue applies to a network. */
function flagged(flag: NetworkFlag, coin: Coin, network: string): boolean {
  if (flag === true) return coin.networks.length === 1 || coin.networks.includes(network)
  return Array.isArray(flag) && flag.some((entry) => entry.toLowerCase() === network.toLowerCase())
}

/** A coin of the catalogue offering this network, by ticker (any case) or token contract address. */
export function findCoinNetwork(coins: Coin[], coin: string, network: string): Coin | undefined {
  const wanted = coin.toLowerCase()
  const net = network.toLowerCase()
  return coins.find(
    (candidate) =>
      candidate.networks.some((n) => n.toLowerCase() === net) &&
      (candidate.coin.toLowerCase() === wanted ||
        Object.entries(candidate.tokenDetails ?? {}).some(
          ([n, details]) => n.toLowerCase() === net && details.contractAddress?.toLowerCase() === wanted
        ))
  )
}

export function isMemoNetwork(coin: Coin, network: string): boolean {
  return coin.networksWithMemo.some((n) => n.toLowerCase() === network.toLowerCase())
}

export function isNetworkOffline(coin: Coin, network: string, side: "deposit" | "settle"): boolean {
  return flagged(side === "deposit" ? coin.depositOffline : coin.settleOffline, coin, network)
}

/** Variable-only on one side only: the deprecated `variableOnly` (the union of both) is never read. */
export function isVariableOnly(coin: Coin, network: string, side: "deposit" | "settle"): boolean {
  return flagged(side === "deposit" ? coin.depositVariableOnly : coin.settleVariableOnly, coin, network)
}

export function isFixedOnly(coin: Coin, network: string): boolean {
  return flagged(coin.fixedOnly, coin, network)
}

function userError(operation: string, message: string): SwapServiceError {
  return new SwapServiceError({ operation, message, status: 400, code: "BAD_USER_INPUT" })
}

export function assertSettleMemoAllowed(coins: Coin[], settle: CoinNetwork, settleMemo: string | undefined | null): void {
  if (!settleMemo) return
  const coin = findCoinNetwork(coins, settle.coin, settle.network)
  if (!coin || !isMemoNetwork(coin, settle.network)) {
    throw userError("settleMemo", `A settle memo is only allowed on memo networks; ${settle.network} is not one`)
  }
}

/** The fixed-rate flow is skipped when the deposit network is deposit-variable-only or the settle network settle-variable-only. */
export function chooseShiftType(coins: Coin[], deposit: CoinNetwork, settle: CoinNetwork): "fixed" | "variable" {
  const depositCoin = findCoinNetwork(coins, deposit.coin, deposit.network)
  const settleCoin = findCoinNetwork(coins, settle.coin, settle.network)
  const variable =
    (depositCoin && isVariableOnly(depositCoin, deposit.network, "deposit")) ||
    (settleCoin && isVariableOnly(settleCoin, settle.network, "settle"))
  return variable ? "variable" : "fixed"
}

/** An expired quote is never used to create a shift. */
export function assertQuoteUsable(quote: Pick<Quote, "expiresAt">, now: Date): void {
  if (new Date(quote.expiresAt).getTime() <= now.getTime()) {
    throw userError("createFixedShift", "Quote has already expired. Request a new quote.")
  }
}

/**
 * The one place the plugin's commission (percent, 0 to 2) becomes the service's `commissionRate`.
 * The spec defines the parameter as a number from 0 to 2 percent, so it is sent as percent; the
 * documentation's examples write fractions ("0.01"), which the spec overrides.
 */
export function toServiceCommissionRate(percent: string | number): string {
  const value = new BigNumberJS(percent)
  if (!value.isFinite() || value.lt(0) || value.gt(2)) {
    throw userError("commissionRate", "commissionRate must be from 0 to 2 percent")
  }
  return value.toFixed()
}
