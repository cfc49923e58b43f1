import { useState, type FormEvent } from "react"
import type { AdminPayment } from "@medusajs/framework/types"
import { Button, Input, Label, Text, usePrompt } from "@medusajs/ui"
import { moneyAmount } from "../../../lib/format"
import { refundableAmount } from "../../../lib/order-payments"

type RefundViaShiftFormProps = {
  payment: AdminPayment
  isPending: boolean
  onSubmit: (amount: number) => void
  onClose: () => void
}

/**
 * Medusa's standard refund of the crypto payment, in the store currency. The provider records what is
 * owed and the plugin then makes a refund shift the store funds in its settlement coin.
 */
export function RefundViaShiftForm({ payment, isPending, onSubmit, onClose }: RefundViaShiftFormProps) {
  const refundable = refundableAmount(payment)
  const [amount, setAmount] = useState(String(refundable))
  const prompt = usePrompt()
  const value = Number(amount)
  const valid = amount.trim() !== "" && Number.isFinite(value) && value > 0 && value <= refundable

  const submit = async (event: FormEvent) => {
    event.preventDefault()
    if (!valid) return
    // Money leaves the store: the dashboard asks before its own refunds too.
    const confirmed = await prompt({
      title: "Refund via a refund shift?",
      description: `${moneyAmount(value, payment.currency_code)} will be recorded as refunded. You then fund the refund shift from your settlement wallet.`,
      confirmText: "Refund",
      cancelText: "Keep",
    })
    if (confirmed) onSubmit(value)
  }

  return (
    <form onSubmit={submit} className="bg-ui-bg-subtle flex flex-col gap-y-3 rounded-lg p-3" data-testid="crypto-swap-refund-form">
      <div className="flex flex-col gap-y-1">
        <Label htmlFor={`refund-amount-${payment.id}`} size="small">
          Amount ({payment.currency_code.toUpperCase()})
        </Label>
        <Input
          id={`refund-amount-${payment.id}`}
          size="small"
          type="number"
          inputMode="decimal"
          min={0}
          max={refundable}
          step="any"
          value={amount}
          onChange={(event) => setAmount(event.target.value)}
          data-testid="crypto-swap-refund-amount-input"
        />
        <Text size="xsmall" className="text-ui-fg-muted">
          Up to {moneyAmount(refundable, payment.currency_code)} can be refunded.
        </Text>
      </div>
      <div className="flex justify-end gap-x-2">
        <Button type="button" size="small" variant="secondary" onClick={onClose} disabled={isPending}>
          Close
        </Button>
        <Button type="submit" size="small" variant="danger" isLoading={isPending} disabled={!valid} data-testid="crypto-swap-refund-submit">
          Refund
        </Button>
      </div>
    </form>
  )
}
