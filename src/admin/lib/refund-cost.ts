/** The question before the merchant approves what a refund's shift would ask them to send (`refundCostLimitPercent`). */
export function approveRefundCostQuestion(cost: string, coin: string | null) {
  return {
    title: `Approve sending ${cost} ${coin ?? ""}?`,
    description:
      "The refund gives the shopper's coin back in kind, with the swap's fees and at today's price, so its shift asks more than the refund's value, beyond your limit. Approved, the shift is made at once and listed under the refunds to fund.",
    confirmText: "Approve and make the shift",
    cancelText: "Cancel",
  }
}
