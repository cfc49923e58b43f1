import { assertAffiliate } from "./accounts"
import { findAsset, parseCoinNetwork, supportsMemo } from "./catalogue"
import type { SandboxCore } from "./core"
import { assertDestination } from "./destinations"
import { isHttpUrl } from "./http-url"
import { newUuid } from "./ids"
import { compareAmounts, roundUp } from "./pricing"
import { createQuote } from "./quotes"
import type { CheckoutRequest } from "./request-schemas"
import { badUserInput, notFound, validationFailure } from "./service-error"
import { createFixedShift } from "./shifts"
import type { Account, Checkout, Shift } from "./state"

// The deprecated hosted checkout: the merchant fixes what it receives, the payer picks any coin on
// the pay page, which makes a fixed shift for the checkout's settle amount.

export function createCheckout(core: SandboxCore, account: Account, request: CheckoutRequest): Checkout {
  assertAffiliate(core.state, request.affiliateId)
  const settle = findAsset(request.settleCoin, request.settleNetwork, "settle")
  if (compareAmounts(request.settleAmount, "0") <= 0) {
    throw validationFailure("Amount too low")
  }
  assertDestination(settle, "settle", request.settleAddress, request.settleMemo)
  // Spec 2.6: unlike a shift's, a checkout's settleMemo is "required if the coin uses a memo or tag"
  // (a merchant's exchange deposit without its tag is lost), so its absence is an invalid parameter.
  if (request.settleMemo === undefined && supportsMemo(settle)) {
    throw badUserInput("Invalid parameters: settleMemo")
  }
  for (const field of ["successUrl", "cancelUrl"] as const) {
    if (!isHttpUrl(request[field])) {
      throw badUserInput(`Invalid ${field}: an absolute http(s) URL is required`)
    }
  }
  const createdAt = core.timestamps.next()
  const checkout: Checkout = {
    id: newUuid(),
    accountId: account.id,
    affiliateId: request.affiliateId,
    settle,
    settleAmount: roundUp(request.settleAmount, settle),
    settleAddress: request.settleAddress,
    settleMemo: request.settleMemo,
    successUrl: request.successUrl,
    cancelUrl: request.cancelUrl,
    createdAt,
    updatedAt: createdAt,
    shiftIds: [],
  }
  core.state.checkouts.set(checkout.id, checkout)
  return checkout
}

export function findCheckout(core: SandboxCore, id: string): Checkout {
  const checkout = core.state.checkouts.get(id)
  if (!checkout) {
    throw notFound("Checkout not found")
  }
  return checkout
}

/** What the pay page does when the payer picks a coin: an internal quote, then a fixed shift to the merchant. */
export function createCheckoutShift(core: SandboxCore, checkout: Checkout, depositCoinNetwork: string, refundAddress?: string): Shift {
  const deposit = parseCoinNetwork(depositCoinNetwork, "deposit")
  const quote = createQuote(core, {
    affiliateId: checkout.affiliateId,
    depositCoin: deposit.coin.coin,
    depositNetwork: deposit.network,
    settleCoin: checkout.settle.coin.coin,
    settleNetwork: checkout.settle.network,
    settleAmount: checkout.settleAmount,
  })
  const merchant = core.state.accounts.get(checkout.accountId) as Account
  const shift = createFixedShift(core, merchant, {
    quoteId: quote.id,
    affiliateId: checkout.affiliateId,
    settleAddress: checkout.settleAddress,
    settleMemo: checkout.settleMemo,
    refundAddress,
  })
  shift.checkoutId = checkout.id
  checkout.shiftIds.unshift(shift.id)
  checkout.updatedAt = core.timestamps.next()
  return shift
}
