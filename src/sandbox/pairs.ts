import { assertPairAvailable, isPairAvailable, sameAsset, type Asset } from "./catalogue"
import { depositLimits, marketRate, withCommission } from "./pricing"

/** `GET /v2/pair`: deposit range and rate of a pair; a commission (percent) lowers the rate. */
export function pairView(deposit: Asset, settle: Asset, commissionPercent?: number) {
  assertPairAvailable(deposit, settle)
  const limits = depositLimits(deposit, settle)
  const rate = marketRate(deposit, settle)
  return {
    min: limits.min,
    max: limits.max,
    rate: (commissionPercent === undefined ? rate : withCommission(rate, String(commissionPercent))).toFixed(),
    depositCoin: deposit.coin.coin,
    depositNetwork: deposit.network,
    settleCoin: settle.coin.coin,
    settleNetwork: settle.network,
  }
}

/** `GET /v2/pairs`: every available ordered pair among the listed assets. */
export function pairsAmong(assets: Asset[], commissionPercent?: number) {
  return assets.flatMap((deposit) =>
    assets.filter((settle) => !sameAsset(deposit, settle) && isPairAvailable(deposit, settle)).map((settle) => pairView(deposit, settle, commissionPercent))
  )
}
