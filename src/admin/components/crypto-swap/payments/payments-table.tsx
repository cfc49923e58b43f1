import { Fragment, useState } from "react"
import { Link } from "react-router-dom"
import { Badge, Button, Table, Text } from "@medusajs/ui"
import { coinAmount, formatDateTime, moneyAmount, shorten } from "../../../lib/format"
import { canMarkRefunded, canRenewRefund } from "../../../lib/order-payments"
import { ATTENTION_LABELS } from "../../../lib/payment-filters"
import { useListRefundAddress } from "../../../lib/queries"
import type { PaymentLine } from "../../../lib/types"
import { RefundAddressForm } from "../order/refund-address-form"
import { ShiftStatusBadge } from "../order/shift-status-badge"
import { ShiftButtons, type ShiftButtonsProps } from "../shift-buttons"

const KIND_LABEL: Record<string, string> = { payment: "Payment", top_up: "Top-up", refund: "Refund" }

/** Statuses the service may still move on from: a sync reads the shift now. */
const OPEN_STATUSES = new Set(["waiting", "pending", "processing", "settling", "review", "refund", "refunding", "multiple"])

/**
 * What the merchant can do about a line, by why it needs them (the same actions as the settings
 * page's lists): retry a stopped action; refund via a refund shift money no captured payment holds
 * (paid after switching coins, held short, owed after a cancel, or paid while its order could not be
 * placed, which gives that order up); accept a held short payment; renew or close an expired refund.
 * A refund waiting for an address gets the address form (below). Anything still open can be synced.
 */
export function resolveButtons(line: PaymentLine): Omit<ShiftButtonsProps, "ledgerId" | "className"> | null {
  const settled = line.status === "settled"
  switch (line.attention) {
    case "refund_paid_twice":
      // Marked paid by other means, and its shift paid the shopper too: recovered outside the plugin, then resolved.
      return { resolvePaidTwice: true, sync: true }
    case "refund_cost_asked":
      // The refund shift would ask more than the refund's value allows: approved, it is made; else paid another way.
      return { approveRefundCost: line.refund_cost_asked ? { cost: line.refund_cost_asked, coin: line.deposit_coin } : null, markRefunded: true }
    case "action_stopped":
      return { retry: true, sync: true }
    case "paid_no_order":
      return { retry: true, refundHeld: settled, refundInstead: true }
    case "paid_without_session":
      return settled ? { refundHeld: true } : { sync: true }
    case "underpaid_held":
      return { acceptUnderpayment: settled, refundHeld: settled, sync: !settled }
    case "short_after_order":
      // Its order holds the payment: accepted as paid, it is captured.
      return { acceptUnderpayment: settled, sync: !settled }
    case "order_unpaid":
      // Nothing of it reached the store: the merchant cancels the order (its link is in the row), which takes it off the list.
      return { sync: true }
    case "deposit_address_needed":
      // The shopper gives it on the payment page; an admin on the order's crypto payment (POST .../shifts/:id/refund-address).
      return { sync: true }
    case "refund_owed":
      return { refundHeld: true }
    case "refund_payment_unknown":
    case "refund_address_needed":
      return { markRefunded: true }
    case "refund_expired": {
      // Renewed from an hour past its deadline (a deposit already on its way may still reach it until then).
      const renewable = canRenewRefund(line.status, null, line.expires_at)
      return { renewRefund: renewable, markRefunded: true, sync: !renewable }
    }
    case "refund_short":
      // The rest goes to the same address while its shift is open; after that it is paid by other means.
      return { markRefunded: true, sync: true }
    case "refund_sent_back":
      // Renewed or closed once the service has sent it all back (`refunded`, or every deposit of a `multiple`
      // one, the only way such a line is listed here): renewed from an hour past the shift's deadline, marked
      // paid once a fixed one's deadline passed (a variable one at once); the route asks the service first.
      return line.status === "refunded" || line.status === "multiple"
        ? {
            renewRefund: canRenewRefund(line.status, "refunded", line.expires_at),
            markRefunded: canMarkRefunded(line.status, null, line.expires_at, "refunded", line.type),
            sync: true,
          }
        : { sync: true }
    default:
      if (line.kind === "refund" && canMarkRefunded(line.status)) return { markRefunded: true, sync: OPEN_STATUSES.has(line.status) }
      return OPEN_STATUSES.has(line.status) ? { sync: true } : null
  }
}

function OrderCell({ line }: { line: PaymentLine }) {
  if (!line.order_id) return <span className="text-ui-fg-muted">No order</span>
  return (
    <Link to={`/orders/${line.order_id}`} className="text-ui-fg-interactive hover:text-ui-fg-interactive-hover">
      {line.order_display_id !== null ? `#${line.order_display_id}` : shorten(line.order_id, 8)}
    </Link>
  )
}

/** A coin amount with a link to its transaction, when the service reported one. */
function Transfer({ amount, coin, network, url }: { amount: string | null; coin: string | null; network: string | null; url: string | null }) {
  const text = coinAmount(amount, coin)
  return (
    <div className="flex flex-col">
      {url && amount ? (
        <a href={url} target="_blank" rel="noreferrer" className="text-ui-fg-interactive hover:text-ui-fg-interactive-hover font-mono">
          {text}
        </a>
      ) : (
        <span className="font-mono">{text}</span>
      )}
      {network ? <span className="text-ui-fg-muted txt-compact-xsmall">{network}</span> : null}
    </div>
  )
}

function Received({ line }: { line: PaymentLine }) {
  const transfer = <Transfer amount={line.settle_amount} coin={line.settle_coin} network={line.settle_network} url={line.settle_tx_url} />
  if (!line.difference || Number(line.difference) === 0) return transfer
  const short = line.difference.startsWith("-")
  return (
    <div className="flex flex-col gap-y-0.5">
      {transfer}
      <Badge size="2xsmall" color={short ? "orange" : "blue"} className="w-fit">
        {short ? "" : "+"}
        {line.difference} {(line.currency_code ?? "").toUpperCase()}
      </Badge>
    </div>
  )
}

const COLUMNS = 9

function PaymentRow({ line }: { line: PaymentLine }) {
  const [addressOpen, setAddressOpen] = useState(false)
  const setAddress = useListRefundAddress()
  const buttons = resolveButtons(line)
  const needsAddress = line.attention === "refund_address_needed"
  return (
    <Fragment>
      <Table.Row data-testid="crypto-swap-payment-row" data-id={line.id} data-kind={line.kind} data-attention={line.attention ?? ""}>
        <Table.Cell>
          <div className="flex flex-col">
            <span>{formatDateTime(line.created_at)}</span>
            {line.captured_at ? (
              <span className="text-ui-fg-muted txt-compact-xsmall">Captured {formatDateTime(line.captured_at)}</span>
            ) : null}
          </div>
        </Table.Cell>
        <Table.Cell>
          <OrderCell line={line} />
        </Table.Cell>
        <Table.Cell>
          <div className="flex flex-col">
            <span>{KIND_LABEL[line.kind] ?? line.kind}</span>
            <span className="text-ui-fg-muted txt-compact-xsmall font-mono" title={`${line.id}${line.shift_id ? ` (service: ${line.shift_id})` : ""}`}>
              {shorten(line.shift_id ?? line.id, 10)}
            </span>
          </div>
        </Table.Cell>
        <Table.Cell className="font-mono whitespace-nowrap">{moneyAmount(line.amount_due, line.currency_code)}</Table.Cell>
        <Table.Cell>
          <Transfer amount={line.deposit_amount} coin={line.deposit_coin} network={line.deposit_network} url={line.deposit_tx_url} />
        </Table.Cell>
        <Table.Cell>
          <Received line={line} />
        </Table.Cell>
        <Table.Cell className="whitespace-nowrap">
          <ShiftStatusBadge status={line.status} />
        </Table.Cell>
        <Table.Cell>
          {line.attention ? (
            <Badge size="2xsmall" color="orange" className="whitespace-nowrap" data-testid="crypto-swap-attention-badge">
              {ATTENTION_LABELS[line.attention] ?? line.attention}
            </Badge>
          ) : (
            <span className="text-ui-fg-muted">-</span>
          )}
        </Table.Cell>
        <Table.Cell className="whitespace-nowrap">
          <div className="flex flex-col items-stretch gap-2">
            {needsAddress ? (
              <Button size="small" variant="secondary" onClick={() => setAddressOpen(!addressOpen)} data-testid="crypto-swap-set-refund-address">
                Set refund address
              </Button>
            ) : null}
            {buttons ? <ShiftButtons ledgerId={line.id} {...buttons} className="flex flex-col items-stretch gap-2" /> : null}
          </div>
        </Table.Cell>
      </Table.Row>
      {needsAddress && addressOpen ? (
        <Table.Row>
          {/* A plain cell: Table.Cell's props leave out colSpan. */}
          <td colSpan={COLUMNS} className="px-6 py-3">
            <RefundAddressForm
              shift={line}
              isPending={setAddress.isPending}
              onClose={() => setAddressOpen(false)}
              onSubmit={(input) => setAddress.mutate({ ledgerId: line.id, input }, { onSuccess: () => setAddressOpen(false) })}
            />
          </td>
        </Table.Row>
      ) : null}
    </Fragment>
  )
}

export function PaymentsTable({ lines }: { lines: PaymentLine[] }) {
  if (!lines.length) {
    return (
      <Text size="small" className="text-ui-fg-muted px-6 py-8 text-center" data-testid="crypto-swap-payments-empty">
        No payments match these filters.
      </Text>
    )
  }
  return (
    <div className="overflow-x-auto">
      <Table data-testid="crypto-swap-payments-table">
        <Table.Header>
          <Table.Row>
            <Table.HeaderCell>Created</Table.HeaderCell>
            <Table.HeaderCell>Order</Table.HeaderCell>
            <Table.HeaderCell>Kind · shift</Table.HeaderCell>
            <Table.HeaderCell className="whitespace-nowrap">Amount due</Table.HeaderCell>
            <Table.HeaderCell title="What the shopper sent (for a refund: what the store sends)">Deposited</Table.HeaderCell>
            <Table.HeaderCell title="What the store received (for a refund: what the shopper receives)">Received</Table.HeaderCell>
            <Table.HeaderCell>Status</Table.HeaderCell>
            <Table.HeaderCell>Attention</Table.HeaderCell>
            <Table.HeaderCell />
          </Table.Row>
        </Table.Header>
        <Table.Body>
          {lines.map((line) => (
            <PaymentRow key={line.id} line={line} />
          ))}
        </Table.Body>
      </Table>
    </div>
  )
}
