import { Badge, Table, Text } from "@medusajs/ui"
import { coinAmount, formatDateTime, humanize, statusColor } from "../../../lib/format"
import type { PluginStatus, ReconciliationRun } from "../../../lib/types"
import { DetailRow } from "../detail-row"
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

function StuckShifts({ shifts }: { shifts: PluginStatus["stuck_shifts"] }) {
  if (!shifts.length) return null
  return (
    <div className="flex flex-col gap-y-2 pt-3" data-testid="crypto-swap-stuck-shifts">
      <Text size="small" weight="plus">
        Stuck shifts
      </Text>
      <Table>
        <Table.Header>
          <Table.Row>
            <Table.HeaderCell>Ledger id</Table.HeaderCell>
            <Table.HeaderCell>Status</Table.HeaderCell>
            <Table.HeaderCell>Failed syncs</Table.HeaderCell>
            <Table.HeaderCell>Expires</Table.HeaderCell>
          </Table.Row>
        </Table.Header>
        <Table.Body>
          {shifts.map((shift) => (
            <Table.Row key={shift.id}>
              <Table.Cell className="font-mono">{shift.id}</Table.Cell>
              <Table.Cell>{humanize(shift.status)}</Table.Cell>
              <Table.Cell>{shift.sync_failures}</Table.Cell>
              <Table.Cell>{formatDateTime(shift.expires_at)}</Table.Cell>
            </Table.Row>
          ))}
        </Table.Body>
      </Table>
    </div>
  )
}

function PaidWithoutSession({ shifts }: { shifts: PluginStatus["paid_without_session"] }) {
  if (!shifts.length) return null
  return (
    <div className="flex flex-col gap-y-2 pt-3" data-testid="crypto-swap-paid-without-session">
      <Text size="small" weight="plus">
        Paid after the shopper switched coins: pay back
      </Text>
      <Text size="small" className="text-ui-fg-subtle">
        The shopper paid a payment they had replaced with another, so no order holds this money.
      </Text>
      <Table>
        <Table.Header>
          <Table.Row>
            <Table.HeaderCell>Ledger id</Table.HeaderCell>
            <Table.HeaderCell>Status</Table.HeaderCell>
            <Table.HeaderCell>Deposit</Table.HeaderCell>
            <Table.HeaderCell>Cart</Table.HeaderCell>
            <Table.HeaderCell>Refund address</Table.HeaderCell>
          </Table.Row>
        </Table.Header>
        <Table.Body>
          {shifts.map((shift) => (
            <Table.Row key={shift.id}>
              <Table.Cell className="font-mono">{shift.id}</Table.Cell>
              <Table.Cell>{humanize(shift.status)}</Table.Cell>
              <Table.Cell>
                {coinAmount(shift.deposit_amount, shift.deposit_coin)} {shift.deposit_network ? `(${shift.deposit_network})` : ""}
              </Table.Cell>
              <Table.Cell className="font-mono">{shift.cart_id ?? "-"}</Table.Cell>
              <Table.Cell className="font-mono">{shift.refund_address ?? "ask the shopper"}</Table.Cell>
            </Table.Row>
          ))}
        </Table.Body>
      </Table>
    </div>
  )
}

/** What the reconciliation job does and what is still open: the first place to look when orders lag. */
export function ShiftsSection({ status }: { status: PluginStatus }) {
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
      <StuckShifts shifts={status.stuck_shifts} />
      <PaidWithoutSession shifts={status.paid_without_session ?? []} />
    </Section>
  )
}
