import type { ReactNode } from "react"
import { Badge, Table, Text } from "@medusajs/ui"
import { coinAmountOn, formatDateTime, humanize, statusColor } from "../../../lib/format"
import { canMarkRefunded, canRenewRefund } from "../../../lib/order-payments"
import type { PagedStatusList, PluginStatus, ReconciliationRun } from "../../../lib/types"
import { DetailRow } from "../detail-row"
import { ListPagination, type Paging } from "../list-pagination"
import { ShiftButtons } from "../shift-buttons"
import { Section } from "./section"

function LastRun({ run }: { run: ReconciliationRun | null }) {
  if (!run) {
    return (
      <Text size="small" className="text-ui-fg-muted">
        The reconciliation job has not run yet (it runs on worker processes).
      </Text>
    )
  }
  return (
    <div data-testid="crypto-swap-last-run">
      <DetailRow label="Last run">
        {formatDateTime(run.started_at)} ({run.duration_ms} ms)
      </DetailRow>
      <DetailRow label="Shifts">
        {run.discovered} discovered · {run.due} due · {run.read} read · {run.changed} changed · {run.failed} failed ·{" "}
        {run.deferred} deferred
      </DetailRow>
    </div>
  )
}

type ShiftRow = { id: string; status: string }

/** A list the route sends a page at a time: how many in all, this page, and how to ask for another. */
/**
 * A titled list of ledger shifts that need a look: ledger id and status first, then the columns that
 * say why. Nothing to show, nothing rendered.
 */
function ShiftList<T extends ShiftRow>(props: {
  title: string
  description?: string
  testId: string
  shifts: T[]
  columns: Array<{ header: string; cell: (shift: T) => ReactNode; mono?: boolean }>
  paging?: Paging
}) {
  // A page past the end (its rows were resolved meanwhile) still shows the way back.
  if (!props.shifts.length && !props.paging?.count) return null
  return (
    <div className="flex flex-col gap-y-2 pt-3" data-testid={props.testId}>
      <Text size="small" weight="plus">
        {props.title}
      </Text>
      {props.description ? (
        <Text size="small" className="text-ui-fg-subtle">
          {props.description}
        </Text>
      ) : null}
      <Table>
        <Table.Header>
          <Table.Row>
            <Table.HeaderCell>Ledger id</Table.HeaderCell>
            <Table.HeaderCell>Status</Table.HeaderCell>
            {props.columns.map((column) => (
              <Table.HeaderCell key={column.header}>{column.header}</Table.HeaderCell>
            ))}
          </Table.Row>
        </Table.Header>
        <Table.Body>
          {props.shifts.map((shift) => (
            <Table.Row key={shift.id}>
              <Table.Cell className="font-mono">{shift.id}</Table.Cell>
              <Table.Cell>{humanize(shift.status)}</Table.Cell>
              {props.columns.map((column) => (
                <Table.Cell key={column.header} className={column.mono ? "font-mono" : undefined}>
                  {column.cell(shift)}
                </Table.Cell>
              ))}
            </Table.Row>
          ))}
        </Table.Body>
      </Table>
      {props.paging && props.paging.count > props.paging.limit ? <ListPagination {...props.paging} /> : null}
    </div>
  )
}

/** What the reconciliation job does and what is still open: the first place to look when orders lag. */
export function ShiftsSection({ status, onPage }: { status: PluginStatus; onPage: (list: PagedStatusList, offset: number) => void }) {
  const paging = (list: PagedStatusList): Paging => ({ ...status.pages[list], onOffset: (offset) => onPage(list, offset) })
  const byStatus = Object.entries(status.open_shifts.by_status)
  return (
    <Section title="Reconciliation" description="Open shifts are polled until they settle, expire or are refunded." testId="crypto-swap-reconciliation">
      <LastRun run={status.reconciliation.last_run} />
      <DetailRow label="Open shifts" testId="crypto-swap-open-shifts">
        <span className="flex flex-wrap items-center gap-1">
          {status.open_shifts.total}
          {byStatus.map(([name, count]) => (
            <Badge key={name} size="2xsmall" color={statusColor(name)}>
              {humanize(name)}: {count}
            </Badge>
          ))}
        </span>
      </DetailRow>
      <ShiftList
        title="Stuck shifts"
        testId="crypto-swap-stuck-shifts"
        shifts={status.stuck_shifts}
        paging={paging("stuck_shifts")}
        columns={[
          { header: "Failed syncs", cell: (shift) => shift.sync_failures },
          { header: "Expires", cell: (shift) => formatDateTime(shift.expires_at) },
        ]}
      />
      <ShiftList
        title="Paid after the shopper switched coins: pay back"
        description="The shopper paid a payment they had replaced with another, so no order holds this money. Pay it back once it settled: until then (in review, say) the service may still send it back to the shopper itself."
        testId="crypto-swap-paid-without-session"
        shifts={status.paid_without_session ?? []}
        columns={[
          {
            header: "Deposit",
            cell: (shift) => coinAmountOn(shift.deposit_amount, shift.deposit_coin, shift.deposit_network),
          },
          { header: "Cart", cell: (shift) => shift.cart_id ?? "-", mono: true },
          { header: "Refund address", cell: (shift) => shift.refund_address ?? "ask the shopper", mono: true },
          {
            header: "",
            cell: (shift) =>
              shift.status === "settled" ? (
                <ShiftButtons ledgerId={shift.id} refundHeld />
              ) : (
                <Text size="small" className="text-ui-fg-muted">
                  Not settled yet: wait
                </Text>
              ),
          },
        ]}
      />
      <ShiftList
        title="Paid less than the amount due"
        description="A variable-rate deposit that settles below the order's amount (less the tolerance). No order was placed: the shopper can pay the rest with a top-up from their payment page. Once the wait for it is over (Held), accept the payment as paid, or give the shopper back what arrived. One with an order was placed on the amount expected, then settled short (e.g. after a review): accept it as paid to capture it."
        testId="crypto-swap-underpaid"
        shifts={status.underpaid ?? []}
        columns={[
          { header: "Deposit", cell: (shift) => coinAmountOn(shift.deposit_amount, shift.deposit_coin, shift.deposit_network) },
          {
            header: "Settles",
            cell: (shift) =>
              `${shift.underpaid}${shift.credit ? ` + ${shift.credit} topped up` : ""} of ${shift.amount_due ?? "?"} ${(shift.currency_code ?? "").toUpperCase()}`,
          },
          { header: "", cell: (shift) => (shift.held ? <Badge size="2xsmall" color="orange">Held</Badge> : null) },
          { header: "Cart", cell: (shift) => (shift.order_id ? `order ${shift.order_id}` : shift.cart_id ?? "-"), mono: true },
          { header: "Refund address", cell: (shift) => shift.refund_address ?? "ask the shopper", mono: true },
          {
            header: "",
            cell: (shift) =>
              shift.status === "settled" ? <ShiftButtons ledgerId={shift.id} refundHeld={!shift.order_id} acceptUnderpayment /> : null,
          },
        ]}
      />
      <ShiftList
        title="Paid, but the order could not be placed"
        description="The deposit is confirmed but completing the cart failed (e.g. an item sold out meanwhile). Nothing is captured. Fix the cause and retry, or refund the shopper instead."
        testId="crypto-swap-paid-no-order"
        shifts={status.paid_no_order ?? []}
        columns={[
          { header: "Cart", cell: (shift) => shift.cart_id ?? "-", mono: true },
          { header: "Deposit", cell: (shift) => coinAmountOn(shift.deposit_amount, shift.deposit_coin, shift.deposit_network) },
          { header: "Attempts", cell: (shift) => shift.attempts },
          { header: "Last error", cell: (shift) => shift.last_error ?? "-" },
          { header: "Since", cell: (shift) => formatDateTime(shift.paid_no_order_since) },
          { header: "", cell: (shift) => <ShiftButtons ledgerId={shift.id} retry refundInstead /> },
        ]}
      />
      <ShiftList
        title="Needs attention: an action stopped retrying"
        description="One step of this shift kept failing and is no longer retried. Fix the cause shown, then retry it."
        testId="crypto-swap-attention"
        shifts={status.attention ?? []}
        paging={paging("attention")}
        columns={[
          { header: "Action", cell: (item) => humanize(item.action) },
          { header: "Attempts", cell: (item) => item.attempts },
          { header: "Order or cart", cell: (item) => item.order_id ?? item.cart_id ?? "-", mono: true },
          { header: "Last error", cell: (item) => item.last_error ?? "-" },
          { header: "Since", cell: (item) => formatDateTime(item.since) },
          { header: "", cell: (item) => (item.refund_cost_asked ? <ShiftButtons ledgerId={item.id} approveRefundCost={{ cost: item.refund_cost_asked, coin: item.refund_cost_coin }} /> : <ShiftButtons ledgerId={item.id} retry />) },
        ]}
      />
      <ShiftList
        title="Refunds to fund"
        description="Every refund that has not reached the shopper yet. Send exactly the amount shown (about it, for a variable-rate refund) to the address before it expires; an expired refund shift can be renewed when you are ready."
        testId="crypto-swap-refunds"
        shifts={status.refunds ?? []}
        columns={[
          { header: "Refund", cell: (refund) => `${refund.amount_due ?? "?"} ${(refund.currency_code ?? "").toUpperCase()}` },
          {
            header: "Send",
            cell: (refund) =>
              refund.deposit_address && refund.status === "waiting"
                ? `${coinAmountOn(refund.deposit_amount ?? (refund.deposit_estimate ? `about ${refund.deposit_estimate}` : null), refund.deposit_coin, refund.deposit_network)} to ${refund.deposit_address}${refund.deposit_memo ? ` (memo ${refund.deposit_memo})` : ""}`
                : refund.refund_short
                  ? `Paid short: ${refund.refund_short} ${refund.refund_short_coin ?? ""} still owed`
                  : humanize(refund.status),
            mono: true,
          },
          { header: "Expires", cell: (refund) => formatDateTime(refund.expires_at) },
          { header: "Order", cell: (refund) => refund.order_id ?? "-", mono: true },
          {
            header: "",
            cell: (refund) => (
              <ShiftButtons
                ledgerId={refund.id}
                renewRefund={canRenewRefund(refund.status, refund.sent_back, refund.expires_at)}
                markRefunded={canMarkRefunded(refund.status, refund.refund_short, refund.expires_at, refund.sent_back)}
              />
            ),
          },
        ]}
      />
      <ShiftList
        title="Paid after its order or payment was canceled: pay back"
        description="The order was canceled while the deposit was on its way, or changed (an edit, a claim, an exchange, a return), upon which Medusa canceled this payment and asks for a new one; the shift settled, so you received money no order keeps. Nothing was captured."
        testId="crypto-swap-refund-owed"
        shifts={status.refund_owed ?? []}
        columns={[
          { header: "Owed (with its top-ups)", cell: (shift) => coinAmountOn(shift.owed_total, shift.settle_coin, shift.settle_network) },
          { header: "Order", cell: (shift) => shift.order_id ?? "-", mono: true },
          { header: "Refund address", cell: (shift) => shift.refund_address ?? "ask the shopper", mono: true },
          { header: "", cell: (shift) => <ShiftButtons ledgerId={shift.id} refundHeld /> },
        ]}
      />
    </Section>
  )
}
