import { MedusaError } from "@medusajs/framework/utils"
import { findCoinNetwork, type Coin, type Shift, type SwapServiceClient } from "../swap-service"
import type { Settlement } from "../options"
import { coinDecimals, type ShiftPlan } from "./shift-plan"
import { coveringDeposit } from "./covering-deposit"
import { compareDecimals } from "../money"

export type ShiftFor = {
  /** Echoed back by the service: the payment session the shift pays. */
  externalId: string
  refundAddress?: string
  refundMemo?: string
  /** The shopper's IP: the service wants it with every shift made for them. */
  userIp?: string
}

/** Makes the shift a plan calls for, settling to the merchant: a quote and a fixed shift, or a variable shift. */
export async function openShift(client: SwapServiceClient, plan: ShiftPlan, settlement: Settlement, shopper: ShiftFor): Promise<Shift> {
  const ctx = { userIp: shopper.userIp }
  const common = {
    settleAddress: settlement.address,
    settleMemo: settlement.memo,
    externalId: shopper.externalId,
    refundAddress: shopper.refundAddress,
    refundMemo: shopper.refundMemo,
  }
  const pair = { depositCoin: plan.depositCoin, depositNetwork: plan.depositNetwork, settleCoin: settlement.coin, settleNetwork: settlement.network }
  if (plan.type === "fixed") {
    const quote = await client.createQuote({ ...pair, settleAmount: plan.settleAmount }, ctx)
    // The service settles what it quoted: a quote short of what was asked would pay the merchant short.
    if (compareDecimals(quote.settleAmount, plan.settleAmount) < 0) {
      throw new MedusaError(
        MedusaError.Types.UNEXPECTED_STATE,
        `The swap service quoted ${quote.settleAmount} ${settlement.coin} for the ${plan.settleAmount} asked: no shift was made`
      )
    }
    return client.createFixedShift({ quote, ...common }, ctx)
  }
  return client.createVariableShift({ ...pair, ...common }, ctx)
}

/**
 * What to send on a variable shift to pay `plan.settleAmount`, fees included, shown beside the accepted
 * range. A help, not a condition: without one (the service can't say now) the shopper still sees the
 * range, and `warn` says why.
 */
export async function depositEstimate(
  client: SwapServiceClient,
  coins: Coin[],
  plan: ShiftPlan,
  settlement: Settlement,
  commissionRatePercent: string | undefined,
  warn: (message: string) => void
): Promise<string | undefined> {
  if (plan.type !== "variable") return undefined
  try {
    const coin = findCoinNetwork(coins, plan.depositCoin, plan.depositNetwork)
    if (!coin) return undefined
    const { deposit } = await coveringDeposit(
      client,
      { coin: plan.depositCoin, network: plan.depositNetwork },
      { coin: settlement.coin, network: settlement.network },
      plan.settleAmount,
      coinDecimals(coin, plan.depositNetwork),
      commissionRatePercent
    )
    return deposit
  } catch (error) {
    warn(`crypto-swap: no deposit estimate for ${plan.depositCoin} on ${plan.depositNetwork}: ${(error as Error).message}`)
    return undefined
  }
}
