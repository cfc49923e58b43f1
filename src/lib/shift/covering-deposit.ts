import type { CoinNetwork, SwapServiceClient } from "../swap-service"
import { depositFor, maxDecimals, morePercent } from "../money"

/** A variable rate is set when the deposit arrives: the estimate covers a rate that moves this much meanwhile. */
export const ESTIMATE_MARGIN_PERCENT = "1"

/**
 * What to send on a variable rate to settle at least `amountDue`, with the estimate's margin. A pair's
 * rate leaves the settlement's network fee out, so the deposit it asks for is priced again at the rate
 * the service gives for that very amount (fees included): sending the estimate pays the order. Never less than
 * the pair's smallest deposit, which the service would hold in review for hours and send back.
 */
export async function coveringDeposit(
  client: SwapServiceClient,
  from: CoinNetwork,
  to: CoinNetwork,
  amountDue: string,
  decimals: number,
  commissionRatePercent?: string
) {
  const target = morePercent(amountDue, ESTIMATE_MARGIN_PERCENT)
  const pair = await client.getPair(from, to, { commissionRatePercent })
  const feeless = depositFor(target, pair.rate, decimals)
  const priced = await client.getPair(from, to, { commissionRatePercent, amount: feeless })
  return { pair, deposit: maxDecimals(depositFor(target, priced.rate, decimals), pair.min) }
}
