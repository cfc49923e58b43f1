import { Button, usePrompt } from "@medusajs/ui"
import { useStatusShiftAction, type StatusShiftAction } from "../../lib/queries"
import { approveRefundCostQuestion } from "../../lib/refund-cost"

export type ShiftButtonsProps = {
  ledgerId: string
  sync?: boolean
  retry?: boolean
  refundInstead?: boolean
  refundHeld?: boolean
  acceptUnderpayment?: boolean
  renewRefund?: boolean
  markRefunded?: boolean
  resolvePaidTwice?: boolean
  /** What a refund's shift would ask the merchant to send, for them to approve. */
  approveRefundCost?: { cost: string; coin: string | null } | null
  /** The buttons' layout: a row by default; the payments page stacks them. */
  className?: string
}

/**
 * The buttons of one listed shift, shared by the settings page's lists and the payments page: sync
 * it, retry its actions, refund instead of placing its order, refund through a refund shift money no
 * order holds, accept a short payment, approve what a refund costs, renew or close a refund, resolve one paid twice. Both pages' lists
 * are read again after.
 */
export function ShiftButtons({
  ledgerId,
  sync,
  retry,
  refundInstead,
  refundHeld,
  acceptUnderpayment,
  renewRefund,
  markRefunded,
  resolvePaidTwice,
  approveRefundCost,
  className = "flex gap-2",
}: ShiftButtonsProps) {
  const action = useStatusShiftAction()
  const prompt = usePrompt()
  /** Actions that can't be undone ask first. */
  const confirmed = (kind: StatusShiftAction, question: Parameters<typeof prompt>[0]) => async () => {
    if (await prompt(question)) action.mutate({ kind, ledgerId })
  }
  const confirmRefund = confirmed("refund-instead", {
    title: "Refund instead of placing the order?",
    description: "No order will be placed for this payment. Once the shift settles, its amount is listed as owed to the shopper.",
    confirmText: "Refund instead",
    cancelText: "Keep trying",
  })
  const confirmAccept = confirmed("accept-underpayment", {
    title: "Accept this payment as paid?",
    description: "The order is placed and captured for its full amount although less arrived; the shortfall is recorded on the payment.",
    confirmText: "Accept as paid",
    cancelText: "Cancel",
  })
  const confirmResolved = confirmed("resolve-paid-twice", {
    title: "Mark this refund paid twice as resolved?",
    description: "Do this once you have the second payment back from the shopper, or have written it off. It leaves the attention list; another deposit to the refund shift would list it again.",
    confirmText: "Mark resolved",
    cancelText: "Cancel",
  })
  const confirmCost = async () => {
    if (approveRefundCost && (await prompt(approveRefundCostQuestion(approveRefundCost.cost, approveRefundCost.coin)))) {
      action.mutate({ kind: "approve-refund-cost", ledgerId, cost: approveRefundCost.cost })
    }
  }
  const button = (kind: StatusShiftAction, label: string, onClick?: () => void, variant: "secondary" | "danger" = "secondary") => (
    <Button
      size="small"
      variant={variant}
      isLoading={action.isPending && action.variables?.kind === kind}
      disabled={action.isPending}
      onClick={onClick ?? (() => action.mutate({ kind, ledgerId }))}
      data-testid={`crypto-swap-action-${kind}`}
    >
      {label}
    </Button>
  )
  return (
    <span className={className}>
      {sync ? button("sync", "Sync") : null}
      {retry ? button("retry", "Retry now") : null}
      {refundHeld ? button("refund-held", "Refund via shift") : null}
      {acceptUnderpayment ? button("accept-underpayment", "Accept as paid", () => void confirmAccept()) : null}
      {approveRefundCost ? button("approve-refund-cost", "Approve cost", () => void confirmCost()) : null}
      {renewRefund ? button("renew-refund", "Renew refund shift") : null}
      {markRefunded ? button("mark-refunded", "Mark refunded") : null}
      {resolvePaidTwice ? button("resolve-paid-twice", "Mark resolved", () => void confirmResolved()) : null}
      {refundInstead ? button("refund-instead", "Refund instead", () => void confirmRefund(), "danger") : null}
    </span>
  )
}
