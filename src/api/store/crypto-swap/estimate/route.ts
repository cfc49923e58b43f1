import type { MedusaRequest, MedusaResponse } from "@medusajs/framework/http"
import { MedusaError } from "@medusajs/framework/utils"
import { catalogueFor, readsFor } from "../../../../lib/provider-registry"
import { toDecimalString } from "../../../../lib/money"
import { coveringDeposit, ESTIMATE_MARGIN_PERCENT } from "../../../../lib/shift/covering-deposit"
import { findCoinNetwork, isNetworkOffline } from "../../../../lib/swap-service"
import { coinDecimals } from "../../../../lib/shift/shift-plan"
import { toMedusaError } from "../../../../lib/to-medusa-error"
import { shopperError, text } from "../../../../lib/i18n"
import { parseInput } from "../../../parse-input"
import { cartProvider } from "../store-provider"
import { estimateQuerySchema } from "../validators"

/** What the shopper would pay in a coin before committing: the pair's rate and limits, commission applied. */
export async function GET(req: MedusaRequest, res: MedusaResponse) {
  const input = parseInput(estimateQuerySchema, req.query)
  const { cart_id, coin, provider_id } = input
  let network = input.network
  const { provider, settlement, currency, cart } = await cartProvider(req.scope, cart_id, provider_id)
  try {
    const coins = await catalogueFor(provider).get()
    const deposit = findCoinNetwork(coins, coin, network)
    if (!deposit) {
      throw shopperError(MedusaError.Types.INVALID_DATA, text("coin.not_accepted", { coin, network }))
    }
    // The catalogue's spelling of the network, not the shopper's ("BITCOIN" is bitcoin).
    network = deposit.networks.find((offered) => offered.toLowerCase() === network.toLowerCase()) ?? network
    if (isNetworkOffline(deposit, network, "deposit")) {
      throw shopperError(MedusaError.Types.NOT_ALLOWED, text("coin.offline", { coin: deposit.coin, network }))
    }
    if (deposit.coin.toLowerCase() === settlement.coin.toLowerCase() && network.toLowerCase() === settlement.network.toLowerCase()) {
      throw shopperError(MedusaError.Types.INVALID_DATA, text("coin.is_settlement", { coin: deposit.coin, network }))
    }
    const amountDue = toDecimalString(cart.total as string)
    // Pair rates cached per pair and amount band, and shared by shoppers asking at once (`readsFor`).
    const { pair, deposit: covering } = await coveringDeposit(
      readsFor(provider),
      { coin: deposit.coin, network },
      { coin: settlement.coin, network: settlement.network },
      amountDue,
      coinDecimals(deposit, network),
      provider.options.commissionRate
    )
    res.json({
      estimate: {
        deposit_coin: deposit.coin,
        deposit_network: network,
        settle_coin: settlement.coin,
        settle_network: settlement.network,
        amount_due: amountDue,
        currency_code: currency,
        rate: pair.rate,
        min: pair.min,
        max: pair.max,
        // Fees included, with a margin for the rate moving before the deposit arrives.
        deposit_amount: covering,
        margin_percent: ESTIMATE_MARGIN_PERCENT,
        commission_rate_percent: provider.options.commissionRate ?? null,
      },
    })
  } catch (error) {
    throw toMedusaError(error, "estimating the payment")
  }
}
