import BigNumber from "bignumber.js"
import type { Asset } from "./catalogue"
import { validationFailure } from "./service-error"

// All money math of the sandbox. Amounts travel as decimal strings and are computed with bignumber.js,
// never with JS numbers. Rounding always favours the service's promise to the merchant: deposits are
// rounded up, payouts down, and a requested settle amount is never shortened.

/** Enough precision for the division of two USD prices before rounding to coin precision. */
const Decimal = BigNumber.clone({ DECIMAL_PLACES: 40 })

/** The service's margin on every swap, in percent: a round trip loses about twice this (and the commission) plus fees. */
export const SPREAD_PERCENT = "0.5"
/** The commission the service takes for the affiliate when a request names none: never priced like 0. */
export const DEFAULT_COMMISSION_PERCENT = "0.5"
/** Minimum deposit in USD, before the network-fee floor (service-behaviour.md, "Limits"). */
export const MIN_DEPOSIT_USD = "3"
/** The minimum also covers this many settlement fees, so that fees never eat a deposit. */
const FEE_FLOOR_MULTIPLE = 2
const MARKET_RATE_DIGITS = 12
const EFFECTIVE_RATE_DIGITS = 16

export type DepositLimits = { min: string; max: string }
export type Conversion = { depositAmount: string; settleAmount: string; rate: string }

const usdPrice = (asset: Asset) => new Decimal(asset.coin.usdPrice)

export function roundUp(amount: BigNumber.Value, asset: Asset): string {
  return new Decimal(amount).decimalPlaces(asset.precision, BigNumber.ROUND_UP).toFixed()
}

export function roundDown(amount: BigNumber.Value, asset: Asset): string {
  return new Decimal(amount).decimalPlaces(asset.precision, BigNumber.ROUND_DOWN).toFixed()
}

export function hasAtMostDecimals(amount: string, asset: Asset): boolean {
  return (new Decimal(amount).decimalPlaces() ?? 0) <= asset.precision
}

export const compareAmounts = (a: string, b: string): number => new Decimal(a).comparedTo(b) ?? 0

const percentOff = (rate: BigNumber, percent: string) =>
  rate.times(new Decimal(100).minus(percent).div(100)).precision(MARKET_RATE_DIGITS, BigNumber.ROUND_DOWN)

/**
 * Settle units per deposit unit after the spread and the affiliate's commission (`percent`, 0..2 as
 * the spec writes it), before fees; rounded down like a quoted rate. Pairs, quotes and shifts all
 * price with it, so they agree.
 */
export function offeredRate(deposit: Asset, settle: Asset, commissionPercent = DEFAULT_COMMISSION_PERCENT): BigNumber {
  return percentOff(percentOff(usdPrice(deposit).div(usdPrice(settle)), SPREAD_PERCENT), commissionPercent)
}

/** The settlement transaction's network fee in the settle coin. */
export function settleNetworkFee(settle: Asset): string {
  return roundUp(new Decimal(settle.networkData.feeUsd).div(usdPrice(settle)), settle)
}

export function depositLimits(deposit: Asset, settle: Asset): DepositLimits {
  const feeFloorUsd = new Decimal(settle.networkData.feeUsd).times(FEE_FLOOR_MULTIPLE)
  const minUsd = BigNumber.max(MIN_DEPOSIT_USD, feeFloorUsd)
  const maxUsd = BigNumber.min(deposit.coin.maxUsd, settle.coin.maxUsd)
  return { min: roundUp(minUsd.div(usdPrice(deposit)), deposit), max: roundDown(maxUsd.div(usdPrice(deposit)), deposit) }
}

export function assertWithinLimits(depositAmount: string, limits: DepositLimits): void {
  const range = { depositRangeMin: limits.min, depositRangeMax: limits.max }
  if (compareAmounts(depositAmount, limits.min) < 0) {
    throw validationFailure("Amount too low", range)
  }
  if (compareAmounts(depositAmount, limits.max) > 0) {
    throw validationFailure("Amount too high", range)
  }
}

/** Settle per deposit as the service reports it: rounded up, so `depositAmount × rate` is never short. */
function effectiveRate(depositAmount: string, settleAmount: string): string {
  if (new Decimal(depositAmount).isZero()) {
    return "0"
  }
  return new Decimal(settleAmount).div(depositAmount).precision(EFFECTIVE_RATE_DIGITS, BigNumber.ROUND_UP).toFixed()
}

/** What a deposit yields at the offered rate, less the settlement fee, rounded down. The deposit is rounded up to its precision. */
export function convertDeposit(depositAmount: string, deposit: Asset, settle: Asset, commissionPercent?: string): Conversion {
  const exactDeposit = roundUp(depositAmount, deposit)
  const gross = new Decimal(exactDeposit).times(offeredRate(deposit, settle, commissionPercent)).minus(settleNetworkFee(settle))
  const settleAmount = roundDown(BigNumber.max(0, gross), settle)
  return { depositAmount: exactDeposit, settleAmount, rate: effectiveRate(exactDeposit, settleAmount) }
}

/** The deposit that yields at least `settleAmount` after fees: rounded up so the settle side is never short. */
export function convertSettle(settleAmount: string, deposit: Asset, settle: Asset): Conversion {
  const exactSettle = roundUp(settleAmount, settle)
  const needed = new Decimal(exactSettle).plus(settleNetworkFee(settle)).div(offeredRate(deposit, settle))
  const depositAmount = roundUp(needed, deposit)
  return { depositAmount, settleAmount: exactSettle, rate: effectiveRate(depositAmount, exactSettle) }
}

/** A deposit halfway between the limits, for simulated deposits on variable shifts. */
export function midRange(limits: DepositLimits, deposit: Asset): string {
  return roundDown(new Decimal(limits.min).plus(limits.max).div(2), deposit)
}
