import { assertPairAvailable, isPairAvailable, sameAsset, type Asset } from "./catalogue"
import { convertDeposit, depositLimits, offeredRate } from "./pricing"
import { validationFailure } from "./service-error"

/**
 * `GET /v2/pair`: deposit range and rate of a pair, the commission (percent) taken off; for an `amount`
 * to deposit, the rate that amount really settles at, the settlement's network fee included.
 */
export function pairView(deposit: Asset, settle: Asset, commissionPercent: string, amount?: string) {
  assertPairAvailable(deposit, settle)
  const limits = depositLimits(deposit, settle)
  return {
    min: limits.min,
    max: limits.max,
    rate: amount ? convertDeposit(amount, deposit, settle, commissionPercent).rate : offeredRate(deposit, settle, commissionPercent).toFixed(),
    depositCoin: deposit.coin.coin,
    depositNetwork: deposit.network,
    settleCoin: settle.coin.coin,
    settleNetwork: settle.network,
  }
}

/** `GET /v2/pairs`: every available ordered pair among the listed assets, each listed once. */
export function pairsAmong(assets: Asset[], commissionPercent: string) {
  if (assets.some((asset, index) => assets.findIndex((other) => sameAsset(asset, other)) !== index)) {
    throw validationFailure("Duplicate coin")
  }
  return assets.flatMap((deposit) =>
    assets.filter((settle) => !sameAsset(deposit, settle) && isPairAvailable(deposit, settle)).map((settle) => pairView(deposit, settle, commissionPercent))
  )
}
