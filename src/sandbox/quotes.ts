import { assertAffiliate } from "./accounts"
import { assertPairAvailable, findAsset } from "./catalogue"
import { addSeconds } from "./clock"
import type { SandboxCore } from "./core"
import { newUuid } from "./ids"
import { assertWithinLimits, compareAmounts, convertDeposit, convertSettle, depositLimits } from "./pricing"
import type { QuoteRequest } from "./request-schemas"
import { badUserInput, validationFailure } from "./service-error"
import type { Quote } from "./state"

export const QUOTE_LIFETIME_SECONDS = 15 * 60

/** A fixed-rate quote for either amount; the other side is computed, rounded in the merchant's favour. */
export function createQuote(core: SandboxCore, request: QuoteRequest): Quote {
  assertAffiliate(core.state, request.affiliateId)
  const deposit = findAsset(request.depositCoin, request.depositNetwork, "deposit")
  const settle = findAsset(request.settleCoin, request.settleNetwork, "settle")
  assertPairAvailable(deposit, settle, "fixed")
  const { depositAmount, settleAmount } = request
  if ((depositAmount == null) === (settleAmount == null)) {
    throw badUserInput("Send exactly one of depositAmount and settleAmount")
  }
  const conversion = depositAmount != null ? convertDeposit(depositAmount, deposit, settle) : convertSettle(settleAmount as string, deposit, settle)
  assertWithinLimits(conversion.depositAmount, depositLimits(deposit, settle))
  if (compareAmounts(conversion.settleAmount, "0") <= 0) {
    throw validationFailure("Amount too low")
  }
  const now = core.clock.now()
  const quote: Quote = {
    id: newUuid(),
    createdAt: now,
    affiliateId: request.affiliateId,
    deposit,
    settle,
    ...conversion,
    expiresAt: addSeconds(now, QUOTE_LIFETIME_SECONDS),
  }
  core.state.quotes.set(quote.id, quote)
  return quote
}
