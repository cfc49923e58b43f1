import type { StatusDecision } from "./status-map"
import { text, type ShopperText } from "../i18n"

/** What a shopper who tries to place the order before the payment allows it is told, by stage. */
export function waitingMessage(payment: { deposit_amount?: string | null; deposit_coin?: string | null }, decision: Pick<StatusDecision, "stage">): ShopperText {
  if (decision.stage === "awaiting_deposit") {
    const coin = payment.deposit_coin ?? text("cart.waiting.any_coin")
    return payment.deposit_amount
      ? text("cart.waiting.deposit_amount", { amount: payment.deposit_amount, coin })
      : text("cart.waiting.deposit", { coin })
  }
  return text(decision.stage === "review" ? "cart.waiting.review" : "cart.waiting.confirming")
}
