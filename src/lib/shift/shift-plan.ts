import { MedusaError } from "@medusajs/framework/utils"
import { chooseShiftType, findCoinNetwork, isMemoNetwork, isNetworkOffline, type Coin } from "../swap-service"
import { roundUp } from "../money"
import type { Settlement } from "../options"
import type { StorefrontChoice } from "./storefront-input"

/** Amounts are rounded to at most this many places: what the service shows and accepts for native coins. */
const MAX_DECIMALS = 8

export type ShiftPlan = {
  type: "fixed" | "variable"
  /** The catalogue's spelling of the shopper's choice. */
  depositCoin: string
  depositNetwork: string
  /** Amount due, rounded up to the settle coin's precision so the merchant never receives less. */
  settleAmount: string
}

export function coinDecimals(coin: Coin, network: string): number {
  const decimals = coin.tokenDetails?.[network]?.decimals
  return Math.min(decimals ?? MAX_DECIMALS, MAX_DECIMALS)
}

function invalid(message: string): never {
  throw new MedusaError(MedusaError.Types.INVALID_DATA, message)
}

/**
 * Checks the shopper's choice against the coin catalogue and the merchant's settlement, and decides
 * between the fixed flow (quote, then shift) and the variable flow the catalogue may demand.
 * `input` is null for the hosted checkout, where the shopper chooses on the service's page.
 */
export function planShift(coins: Coin[], settlement: Settlement, input: StorefrontChoice | null, amountDue: string): ShiftPlan {
  const settleCoin = findCoinNetwork(coins, settlement.coin, settlement.network)
  if (!settleCoin) {
    throw new MedusaError(
      MedusaError.Types.UNEXPECTED_STATE,
      `Crypto payments are misconfigured: the settlement coin ${settlement.coin} on ${settlement.network} is not offered by the service.`
    )
  }
  if (settlement.memo && !isMemoNetwork(settleCoin, settlement.network)) {
    throw new MedusaError(
      MedusaError.Types.UNEXPECTED_STATE,
      `Crypto payments are misconfigured: ${settlement.network} takes no memo, but the settlement has one.`
    )
  }
  const settleAmount = roundUp(amountDue, coinDecimals(settleCoin, settlement.network))
  if (!input) return { type: "fixed", depositCoin: "", depositNetwork: "", settleAmount }

  const depositCoin = findCoinNetwork(coins, input.deposit_coin, input.deposit_network)
  if (!depositCoin) invalid(`${input.deposit_coin} on ${input.deposit_network} is not a coin and network the service accepts.`)
  if (isNetworkOffline(depositCoin, input.deposit_network, "deposit")) {
    invalid(`${depositCoin.coin} on ${input.deposit_network} is temporarily unavailable; please choose another coin or network.`)
  }
  if (isNetworkOffline(settleCoin, settlement.network, "settle")) {
    throw new MedusaError(MedusaError.Types.NOT_ALLOWED, "Crypto payments are temporarily unavailable; please try again later.")
  }
  if (
    depositCoin.coin.toLowerCase() === settleCoin.coin.toLowerCase() &&
    input.deposit_network.toLowerCase() === settlement.network.toLowerCase()
  ) {
    invalid(
      `${depositCoin.coin} on ${input.deposit_network} is what the store receives; pay with another coin or network ` +
        "(or send it directly to the store by other means)."
    )
  }
  if (input.refund_memo && !isMemoNetwork(depositCoin, input.deposit_network)) {
    invalid(`${input.deposit_network} takes no memo: leave the refund memo empty.`)
  }
  const type = chooseShiftType(
    coins,
    { coin: depositCoin.coin, network: input.deposit_network },
    { coin: settleCoin.coin, network: settlement.network }
  )
  return { type, depositCoin: depositCoin.coin, depositNetwork: input.deposit_network.toLowerCase(), settleAmount }
}
