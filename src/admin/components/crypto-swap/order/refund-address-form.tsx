import { useState, type FormEvent } from "react"
import { Button, Input, Label, Text } from "@medusajs/ui"
import type { RefundAddressInput, Shift } from "../../../lib/types"

/** What the form reads of a shift: an order's shift or a payments page line alike. */
type RefundAddressShift = Pick<Shift, "id" | "kind" | "deposit_coin" | "deposit_network" | "settle_coin" | "settle_network">

type RefundAddressFormProps = {
  shift: RefundAddressShift
  isPending: boolean
  onSubmit: (input: RefundAddressInput) => void
  onClose: () => void
}

/** The coin the refund is paid in: a refund shift settles in the shopper's coin, a payment returns its deposit. */
function refundCoin(shift: RefundAddressShift): string {
  const [coin, network] = shift.kind === "refund" ? [shift.settle_coin, shift.settle_network] : [shift.deposit_coin, shift.deposit_network]
  return coin ? `${coin}${network ? ` on ${network}` : ""}` : "the shopper's coin"
}

/** Address and optional memo; the route validates the format and whether the coin takes a memo. */
export function RefundAddressForm({ shift, isPending, onSubmit, onClose }: RefundAddressFormProps) {
  const [address, setAddress] = useState("")
  const [memo, setMemo] = useState("")

  const submit = (event: FormEvent) => {
    event.preventDefault()
    if (!address.trim()) return
    onSubmit({ address: address.trim(), memo: memo.trim() || undefined })
  }

  return (
    <form onSubmit={submit} className="bg-ui-bg-subtle flex flex-col gap-y-3 rounded-lg p-3" data-testid="crypto-swap-refund-address-form">
      <Text size="small" className="text-ui-fg-subtle">
        The refund is paid in {refundCoin(shift)}. An address the service already has can't be changed.
      </Text>
      <div className="flex flex-col gap-y-1">
        <Label htmlFor={`refund-address-${shift.id}`} size="small">
          Refund address
        </Label>
        <Input
          id={`refund-address-${shift.id}`}
          size="small"
          value={address}
          onChange={(event) => setAddress(event.target.value)}
          autoComplete="off"
          spellCheck={false}
          required
          data-testid="crypto-swap-refund-address-input"
        />
      </div>
      <div className="flex flex-col gap-y-1">
        <Label htmlFor={`refund-memo-${shift.id}`} size="small">
          Memo / destination tag (optional)
        </Label>
        <Input
          id={`refund-memo-${shift.id}`}
          size="small"
          value={memo}
          onChange={(event) => setMemo(event.target.value)}
          autoComplete="off"
          spellCheck={false}
          data-testid="crypto-swap-refund-memo-input"
        />
      </div>
      <div className="flex justify-end gap-x-2">
        <Button type="button" size="small" variant="secondary" onClick={onClose} disabled={isPending}>
          Close
        </Button>
        <Button type="submit" size="small" isLoading={isPending} disabled={!address.trim()} data-testid="crypto-swap-refund-address-submit">
          Save address
        </Button>
      </div>
    </form>
  )
}
