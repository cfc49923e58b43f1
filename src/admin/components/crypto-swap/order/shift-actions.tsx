import { useState } from "react"
import type { AdminPayment } from "@medusajs/framework/types"
import { Button, usePrompt } from "@medusajs/ui"
import { canMarkRefunded, canRefundViaShift, canRenewRefund } from "../../../lib/order-payments"
import { useRefundViaShift, useShiftAction } from "../../../lib/queries"
import type { Shift } from "../../../lib/types"
import { approveRefundCostQuestion } from "../../../lib/refund-cost"
import { RefundAddressForm } from "./refund-address-form"
import { RefundViaShiftForm } from "./refund-via-shift-form"

type ShiftActionsProps = {
  orderId: string
  shift: Shift
  /** The Medusa payment this shift paid, when it is known. */
  payment: AdminPayment | undefined
  /** Told when a refund was recorded, so the widget looks for the new refund shift sooner. */
  onRefunded: () => void
}

/**
 * A refund address can be given while the shift is open and has none, or whenever the service or
 * the ledger says one is needed. The route refuses to replace one the service already has.
 */
function canSetRefundAddress(shift: Shift): boolean {
  if (shift.terminal) return false
  const needed = Boolean(shift.flags?.address_needed || shift.view.refund?.address_needed) || shift.status === "address_needed"
  // A refund whose shift the service would not make (e.g. it refused the address) may get another one.
  const refused = shift.kind === "refund" && shift.status === "creating" && !shift.shift_id && !shift.flags?.refund_cost_asked
  return needed || refused || !shift.refund_address
}

type OpenForm = "refund-address" | "refund" | null

export function ShiftActions({ orderId, shift, payment, onRefunded }: ShiftActionsProps) {
  const [openForm, setOpenForm] = useState<OpenForm>(null)
  const action = useShiftAction(orderId)
  const refund = useRefundViaShift(orderId)
  const prompt = usePrompt()
  const pendingKind = action.isPending ? action.variables?.kind : undefined

  const cancel = async () => {
    const confirmed = await prompt({
      title: "Cancel this shift?",
      description: "The service stops waiting for the deposit. Funds sent to the address afterwards are not credited to this order.",
      confirmText: "Cancel shift",
      cancelText: "Keep",
    })
    if (confirmed) action.mutate({ kind: "cancel", ledgerId: shift.id })
  }

  const markRefunded = async () => {
    const confirmed = await prompt({
      title: "Mark this refund as paid?",
      description: "Use this when you paid the shopper back by other means. An unfunded refund shift is canceled.",
      confirmText: "Mark paid",
      cancelText: "Keep",
    })
    if (confirmed) action.mutate({ kind: "mark-refunded", ledgerId: shift.id })
  }

  const costAsked = shift.kind === "refund" && shift.status === "creating" && typeof shift.flags?.refund_cost_asked === "string" ? shift.flags.refund_cost_asked : null
  const approveCost = async () => {
    if (costAsked && (await prompt(approveRefundCostQuestion(costAsked, shift.deposit_coin)))) action.mutate({ kind: "approve-refund-cost", ledgerId: shift.id, cost: costAsked })
  }

  const refundable = canRefundViaShift(shift, payment)
  const manuallyRefundable = shift.kind === "refund" && canMarkRefunded(shift.status, shift.flags?.refund_short, shift.expires_at, shift.flags?.sent_back, shift.type)
  const renewable = shift.kind === "refund" && canRenewRefund(shift.status, shift.flags?.sent_back, shift.expires_at)

  /** A button of the card: one that sends a request shows it running, and none can be pressed while one runs. */
  const button = (testId: string, label: string, onClick: () => void, request?: NonNullable<typeof pendingKind>) => (
    <Button
      size="small"
      variant="secondary"
      isLoading={request !== undefined && pendingKind === request}
      disabled={request !== undefined && action.isPending}
      onClick={onClick}
      data-testid={`crypto-swap-${testId}`}
    >
      {label}
    </Button>
  )
  const toggle = (form: Exclude<OpenForm, null>) => () => setOpenForm(openForm === form ? null : form)

  return (
    <div className="flex flex-col gap-y-3">
      <div className="flex flex-wrap justify-end gap-2">
        {button("sync", "Sync", () => action.mutate({ kind: "sync", ledgerId: shift.id }), "sync")}
        {shift.status === "waiting" ? button("cancel", "Cancel", cancel, "cancel") : null}
        {canSetRefundAddress(shift) ? button("set-refund-address", "Set refund address", toggle("refund-address")) : null}
        {costAsked ? button("approve-refund-cost", "Approve cost", approveCost, "approve-refund-cost") : null}
        {manuallyRefundable ? button("mark-refunded", "Mark refunded", markRefunded, "mark-refunded") : null}
        {renewable ? button("renew-refund", "Renew refund shift", () => action.mutate({ kind: "renew-refund", ledgerId: shift.id }), "renew-refund") : null}
        {refundable ? button("refund", "Refund via shift", toggle("refund")) : null}
      </div>
      {openForm === "refund-address" ? (
        <RefundAddressForm
          shift={shift}
          isPending={pendingKind === "refund-address"}
          onClose={() => setOpenForm(null)}
          onSubmit={(input) =>
            action.mutate({ kind: "refund-address", ledgerId: shift.id, input }, { onSuccess: () => setOpenForm(null) })
          }
        />
      ) : null}
      {openForm === "refund" && refundable ? (
        <RefundViaShiftForm
          payment={payment}
          isPending={refund.isPending}
          onClose={() => setOpenForm(null)}
          onSubmit={(amount) =>
            refund.mutate(
              { paymentId: payment.id, amount },
              {
                onSuccess: () => {
                  setOpenForm(null)
                  onRefunded()
                },
              }
            )
          }
        />
      ) : null}
    </div>
  )
}
