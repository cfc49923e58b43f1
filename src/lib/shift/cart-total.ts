import type { BigNumberInput } from "@medusajs/framework/types"
import { MedusaError } from "@medusajs/framework/utils"
import BigNumberJS from "bignumber.js"
import { toDecimalString } from "../money"
import { shopperError, text } from "../i18n"

/** The decimals of a currency's smallest unit (2 for USD, 0 for JPY, 3 for KWD); 2 for a code Intl does not know. */
function currencyDecimals(currency: string): number {
  try {
    return new Intl.NumberFormat("en", { style: "currency", currency }).resolvedOptions().maximumFractionDigits ?? 2
  } catch {
    return 2
  }
}

/**
 * What a payment session asks against its cart's total, when the total is more by at least the currency's
 * smallest unit: Medusa completes a cart for its session's own amount and compares it with nothing, and its
 * store route adding taxes raises the total without touching the payment collection (nor the shift made for
 * it). Less is a total's own precision, not a price: Medusa computes totals with every digit (15 EUR with 19 %
 * tax included reads 15.0000000000000000000052) and makes the collection from the total rounded.
 */
export function shortOfCartTotal(
  sessionAmount: BigNumberInput | null | undefined,
  cart: { total?: BigNumberInput | null; currency_code?: string | null }
): { paid: string; total: string; currency: string } | undefined {
  if (sessionAmount == null || cart.total == null) return undefined
  const currency = (cart.currency_code ?? "").toUpperCase()
  const decimals = currencyDecimals(currency)
  const [paid, total] = [new BigNumberJS(toDecimalString(sessionAmount)), new BigNumberJS(toDecimalString(cart.total))]
  if (total.minus(paid).lt(new BigNumberJS(1).shiftedBy(-decimals))) return undefined
  return { paid: paid.toFixed(), total: total.decimalPlaces(decimals, BigNumberJS.ROUND_UP).toFixed(), currency }
}

/** Refuses, with the reason, to place an order for more than the shift asks of the shopper; a deposit already paid waits as "paid, no order". */
export function refuseShortOfCartTotal(sessionAmount: BigNumberInput | null | undefined, cart: { total?: BigNumberInput | null; currency_code?: string | null }): void {
  const short = shortOfCartTotal(sessionAmount, cart)
  if (short) throw shopperError(MedusaError.Types.NOT_ALLOWED, text("store.cart_total_changed", short))
}
