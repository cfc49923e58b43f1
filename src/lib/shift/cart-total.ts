import type { BigNumberInput } from "@medusajs/framework/types"
import { MedusaError } from "@medusajs/framework/utils"
import { compareDecimals, toDecimalString } from "../money"
import { shopperError, text } from "../i18n"

/**
 * What a payment session asks against its cart's total, when the total is more: Medusa completes a cart for
 * its session's own amount and compares it with nothing, and its store route adding taxes raises the total
 * without touching the payment collection (nor the shift made for it).
 */
export function shortOfCartTotal(sessionAmount: BigNumberInput | null | undefined, cartTotal: BigNumberInput | null | undefined): { paid: string; total: string } | undefined {
  if (sessionAmount == null || cartTotal == null) return undefined
  const [paid, total] = [toDecimalString(sessionAmount), toDecimalString(cartTotal)]
  return compareDecimals(paid, total) < 0 ? { paid, total } : undefined
}

/** Refuses, with the reason, to place an order for more than the shift asks of the shopper; a deposit already paid waits as "paid, no order". */
export function refuseShortOfCartTotal(sessionAmount: BigNumberInput | null | undefined, cart: { total?: BigNumberInput | null; currency_code?: string | null }): void {
  const short = shortOfCartTotal(sessionAmount, cart.total)
  if (short) throw shopperError(MedusaError.Types.NOT_ALLOWED, text("store.cart_total_changed", { ...short, currency: (cart.currency_code ?? "").toUpperCase() }))
}
