import type { MedusaRequest, MedusaResponse } from "@medusajs/framework/http"
import { MedusaError } from "@medusajs/framework/utils"
import { catalogueFor, clientFor } from "../../../../lib/provider-registry"
import { depositFor, toDecimalString } from "../../../../lib/money"
import { findCoinNetwork } from "../../../../lib/swap-service"
import { coinDecimals } from "../../../../providers/crypto-swap/shift-plan"
import { toMedusaError } from "../../../../providers/crypto-swap/errors"
import { parseInput } from "../../../parse-input"
import { cartProvider } from "../store-provider"
import { estimateQuerySchema } from "../validators"

/** What the shopper would pay in a coin before committing: the pair's rate and limits, commission applied. */
export async function GET(req: MedusaRequest, res: MedusaResponse) {
  const { cart_id, coin, network, provider_id } = parseInput(estimateQuerySchema, req.query)
  const { provider, settlement, currency, cart } = await cartProvider(req.scope, cart_id, provider_id)
  try {
    const coins = await catalogueFor(provider).get()
    const deposit = findCoinNetwork(coins, coin, network)
    if (!deposit) {
      throw new MedusaError(MedusaError.Types.INVALID_DATA, `${coin} on ${network} is not a coin and network the service accepts.`)
    }
    const pair = await clientFor(provider).getPair(
      { coin: deposit.coin, network },
      { coin: settlement.coin, network: settlement.network },
      { commissionRatePercent: provider.options.commissionRate }
    )
    const amountDue = toDecimalString(cart.total as string)
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
        deposit_amount: depositFor(amountDue, pair.rate, coinDecimals(deposit, network)),
        commission_rate_percent: provider.options.commissionRate,
      },
    })
  } catch (error) {
    throw toMedusaError(error, "estimating the payment")
  }
}
