import type { AdminPayment } from "@medusajs/framework/types"
import { Alert, Badge, Copy, Heading, Text } from "@medusajs/ui"
import { formatDateTime, humanize } from "../../../lib/format"
import type { Shift, ShiftKind } from "../../../lib/types"
import { RefundDeposit } from "./refund-deposit"
import { RefundState } from "./refund-state"
import { ShiftActions } from "./shift-actions"
import { ShiftAmounts } from "./shift-amounts"
import { ShiftFlags } from "./shift-flags"
import { ShiftStatusBadge } from "./shift-status-badge"
import { ShiftTimeline } from "./shift-timeline"
import { ShiftTransactions } from "./shift-transactions"

type ShiftCardProps = {
  orderId: string
  shift: Shift
  payment: AdminPayment | undefined
  onRefunded: () => void
}

function ShiftHeader({ shift }: { shift: Shift }) {
  return (
    <div className="flex flex-wrap items-start justify-between gap-2">
      <div className="flex min-w-0 flex-col gap-y-1">
        <div className="flex items-center gap-x-2">
          <Heading level="h3">{SHIFT_TITLE[shift.kind]}</Heading>
          {shift.type ? (
            <Badge size="2xsmall" color="grey">
              {humanize(shift.type)}
            </Badge>
          ) : null}
        </div>
        <div className="flex items-center gap-x-1">
          <Text size="xsmall" className="text-ui-fg-muted" family="mono" data-testid="crypto-swap-shift-id">
            {shift.shift_id ?? "No shift yet"}
          </Text>
          {shift.shift_id ? <Copy content={shift.shift_id} variant="mini" className="text-ui-fg-muted" /> : null}
        </div>
      </div>
      <div className="flex flex-col items-end gap-y-1">
        <ShiftStatusBadge status={shift.status} />
        <ShiftFlags shift={shift} />
      </div>
    </div>
  )
}

/** When the plugin acted, so "why is the order not captured yet?" has an answer on the card. */
function ShiftMilestones({ shift }: { shift: Shift }) {
  const milestones = [
    ["Authorized", shift.authorized_at],
    ["Captured", shift.captured_at],
    ["Canceled", shift.canceled_at],
    ["Last synced", shift.last_synced_at],
  ].filter((entry): entry is [string, string] => Boolean(entry[1]))
  if (!milestones.length) return null
  return (
    <Text size="xsmall" className="text-ui-fg-muted" data-testid="crypto-swap-milestones">
      {milestones.map(([label, at]) => `${label} ${formatDateTime(at)}`).join(" · ")}
    </Text>
  )
}

/** One ledger shift: what it is, where the money is, what happened, and what the admin can do. */
const SHIFT_TITLE: Record<ShiftKind, string> = { payment: "Payment", top_up: "Top-up", refund: "Refund" }

export function ShiftCard({ orderId, shift, payment, onRefunded }: ShiftCardProps) {
  // Waiting for the store's deposit, or for the rest of one that paid the shopper short while its shift takes it.
  const fundingRefund = shift.kind === "refund" && Boolean(shift.view.payment_uri)
  return (
    <div
      className="flex flex-col gap-y-4 px-6 py-4"
      data-testid="crypto-swap-shift"
      data-shift-id={shift.id}
      data-kind={shift.kind}
      data-status={shift.status}
    >
      <ShiftHeader shift={shift} />
      <Text size="small" weight="plus" data-testid="crypto-swap-headline">
        {shift.view.headline}
      </Text>
      <ShiftAmounts shift={shift} />
      <ShiftTransactions shift={shift} />
      <RefundState shift={shift} />
      {fundingRefund ? <RefundDeposit shift={shift} /> : null}
      {shift.last_error ? (
        <Alert variant="error" data-testid="crypto-swap-last-error">
          {shift.last_error}
        </Alert>
      ) : null}
      <ShiftMilestones shift={shift} />
      <ShiftTimeline events={shift.events} />
      <ShiftActions orderId={orderId} shift={shift} payment={payment} onRefunded={onRefunded} />
    </div>
  )
}
