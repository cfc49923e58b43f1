import type { StatusDecision } from "./status-map"

/** What a shopper who tries to place the order before the payment allows it is told, by stage. */
export function waitingMessage(payment: { deposit_amount?: string | null; deposit_coin?: string | null }, decision: Pick<StatusDecision, "stage">): string {
  if (decision.stage === "awaiting_deposit") {
    const amount = payment.deposit_amount ? `${payment.deposit_amount} ` : ""
    return `Waiting for your deposit: send ${amount}${payment.deposit_coin ?? "crypto"} to the address shown.`
  }
  if (decision.stage === "review") {
    return "Your deposit is being reviewed by the swap service; the order is placed as soon as it clears."
  }
  return "Your deposit has been received and is being confirmed; the order is placed automatically once it is."
}
