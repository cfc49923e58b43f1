import { MedusaError } from "@medusajs/framework/utils"
import { chooseShiftType, findCoinNetwork, isMemoNetwork, isNetworkOffline, type Coin } from "../swap-service"
import { roundUp } from "../money"
import type { Settlement } from "../options"
import type { StorefrontChoice } from "./storefront-input"
import { shopperError, text, type ShopperText } from "../i18n"

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

/** A coin's precision on a network, however the merchant's settlement spells the network (the catalogue's is lower case). */
export function coinDecimals(coin: Coin, network: string): number {
  const details = Object.entries(coin.tokenDetails ?? {}).find(([name]) => name.toLowerCase() === network.toLowerCase())?.[1]
  return Math.min(details?.decimals ?? MAX_DECIMALS, MAX_DECIMALS)
}

function invalid(refusal: ShopperText): never {
  throw shopperError(MedusaError.Types.INVALID_DATA, refusal)
}

/** The settlement's network takes a memo (tag) and the merchant's configuration gives none. */
export function lacksSettleMemo(settleCoin: Coin, settlement: Settlement): boolean {
  return !settlement.memo && isMemoNetwork(settleCoin, settlement.network)
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
  // A hosted checkout's settleMemo is required on a memo network (spec 2.6); a shift's is optional.
  if (!input && lacksSettleMemo(settleCoin, settlement)) {
    throw new MedusaError(
      MedusaError.Types.UNEXPECTED_STATE,
      `Crypto payments are misconfigured: ${settleCoin.coin} on ${settlement.network} takes a memo (tag), but the settlement has none.`
    )
  }
  const settleAmount = roundUp(amountDue, coinDecimals(settleCoin, settlement.network))
  if (!input) return { type: "fixed", depositCoin: "", depositNetwork: "", settleAmount }

  const depositCoin = findCoinNetwork(coins, input.deposit_coin, input.deposit_network)
  if (!depositCoin) invalid(text("coin.not_accepted", { coin: input.deposit_coin, network: input.deposit_network }))
  if (isNetworkOffline(depositCoin, input.deposit_network, "deposit")) {
    invalid(text("coin.offline", { coin: depositCoin.coin, network: input.deposit_network }))
  }
  if (isNetworkOffline(settleCoin, settlement.network, "settle")) {
    throw shopperError(MedusaError.Types.NOT_ALLOWED, text("store.temporarily_unavailable"))
  }
  if (
    depositCoin.coin.toLowerCase() === settleCoin.coin.toLowerCase() &&
    input.deposit_network.toLowerCase() === settlement.network.toLowerCase()
  ) {
    invalid(text("coin.is_settlement_session", { coin: depositCoin.coin, network: input.deposit_network }))
  }
  if (input.refund_memo && !isMemoNetwork(depositCoin, input.deposit_network)) {
    invalid(text("coin.no_refund_memo", { network: input.deposit_network }))
  }
  const type = chooseShiftType(
    coins,
    { coin: depositCoin.coin, network: input.deposit_network },
    { coin: settleCoin.coin, network: settlement.network }
  )
  return { type, depositCoin: depositCoin.coin, depositNetwork: input.deposit_network.toLowerCase(), settleAmount }
}
