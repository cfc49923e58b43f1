import { BigNumber, MathBN } from "@medusajs/framework/utils"
import type { BigNumberInput, BigNumberRawValue } from "@medusajs/framework/types"
import BigNumberJS from "bignumber.js"

const DECIMAL = /^\d+(\.\d+)?$/

/** The exact sum of Medusa rows' raw amounts (captures, refunds). */
export function rawTotal(entries: ReadonlyArray<{ raw_amount: BigNumberRawValue }> | null | undefined) {
  return MathBN.sum(0, ...(entries ?? []).map((entry) => new BigNumber(entry.raw_amount)))
}

/** Medusa hands amounts as numbers, strings, BigNumber objects or raw `{ value, precision }`: one exact decimal string. */
export function toDecimalString(amount: BigNumberInput | { value: string | number; precision?: number }): string {
  const raw = amount as { value?: unknown }
  const value =
    amount instanceof BigNumber || typeof amount !== "object" || amount === null || raw.value === undefined
      ? MathBN.convert(amount as BigNumberInput)
      : new BigNumberJS(String(raw.value))
  if (!value.isFinite()) {
    throw new Error(`Not a finite amount: ${String(amount)}`)
  }
  return value.toFixed()
}

/** Rounds up to `decimals` places so the merchant never receives less than what is due. */
export function roundUp(amount: string, decimals: number): string {
  return new BigNumberJS(amount).decimalPlaces(decimals, BigNumberJS.ROUND_UP).toFixed()
}

/** `amount` in the smallest unit (wei, satoshi…), an integer string rounded up so the merchant never receives less. */
export function toBaseUnits(amount: string, decimals: number): string {
  return new BigNumberJS(amount).shiftedBy(decimals).integerValue(BigNumberJS.ROUND_UP).toFixed()
}

export function isDecimalString(value: unknown): value is string {
  return typeof value === "string" && DECIMAL.test(value)
}

export function compareDecimals(a: string, b: string): number {
  return new BigNumberJS(a).comparedTo(b) ?? 0
}

export function addDecimals(...amounts: string[]): string {
  return amounts.reduce((sum, amount) => sum.plus(amount), new BigNumberJS(0)).toFixed()
}

export function multiplyDecimals(a: string, b: string): string {
  return new BigNumberJS(a).times(b).toFixed()
}

export function subtractDecimals(a: string, b: string): string {
  return new BigNumberJS(a).minus(b).toFixed()
}

/** `amount * (1 - percent / 100)`, used for tolerance bounds. */
export function lessPercent(amount: string, percent: string): string {
  return new BigNumberJS(amount).times(new BigNumberJS(100).minus(percent)).div(100).toFixed()
}

/** The larger of two decimal amounts. */
export function maxDecimals(a: string, b: string): string {
  return compareDecimals(a, b) >= 0 ? a : b
}

/** `amount * (1 + percent / 100)`, used for tolerance bounds. */
export function morePercent(amount: string, percent: string): string {
  return new BigNumberJS(amount).times(new BigNumberJS(100).plus(percent)).div(100).toFixed()
}

/** Deposit needed to receive `settleAmount` at `rate` (settle per deposit), rounded up. */
export function depositFor(settleAmount: string, rate: string, decimals: number): string {
  // The division itself rounds up at `decimals` places: dividing at the default 20 places (half-up)
  // first can land below the exact quotient, and rounding that up may still fall short.
  const Ceiling = BigNumberJS.clone({ DECIMAL_PLACES: decimals, ROUNDING_MODE: BigNumberJS.ROUND_UP })
  return new Ceiling(settleAmount).div(rate).toFixed()
}
