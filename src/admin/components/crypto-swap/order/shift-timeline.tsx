import { Badge, Table, Text } from "@medusajs/ui"
import { formatDateTime, humanize } from "../../../lib/format"
import type { ShiftEvent } from "../../../lib/types"

function StatusChange({ event }: { event: ShiftEvent }) {
  // A first event has no previous status; an action on an unchanged status repeats it.
  if (!event.from_status || event.from_status === event.to_status) return <>{humanize(event.to_status)}</>
  return (
    <>
      {humanize(event.from_status)} → {humanize(event.to_status)}
    </>
  )
}

/** The ledger's history of the shift, oldest first as the route sends it. */
export function ShiftTimeline({ events }: { events: ShiftEvent[] }) {
  if (!events.length) {
    return (
      <Text size="small" className="text-ui-fg-muted" data-testid="crypto-swap-timeline">
        No history yet.
      </Text>
    )
  }
  return (
    <div className="overflow-x-auto" data-testid="crypto-swap-timeline">
      <Table>
        <Table.Header>
          <Table.Row>
            <Table.HeaderCell>When</Table.HeaderCell>
            <Table.HeaderCell>Status</Table.HeaderCell>
            <Table.HeaderCell>Learnt from</Table.HeaderCell>
            <Table.HeaderCell>Action</Table.HeaderCell>
            <Table.HeaderCell>Issue</Table.HeaderCell>
          </Table.Row>
        </Table.Header>
        <Table.Body>
          {events.map((event) => (
            <Table.Row key={event.id} data-testid="crypto-swap-timeline-event" data-status={event.to_status}>
              <Table.Cell className="whitespace-nowrap">{formatDateTime(event.occurred_at)}</Table.Cell>
              <Table.Cell>
                <StatusChange event={event} />
              </Table.Cell>
              <Table.Cell>{event.source}</Table.Cell>
              <Table.Cell>
                {event.action ? (
                  <Badge size="2xsmall" color="blue">
                    {humanize(event.action)}
                  </Badge>
                ) : (
                  "-"
                )}
              </Table.Cell>
              <Table.Cell>{event.issue ?? "-"}</Table.Cell>
            </Table.Row>
          ))}
        </Table.Body>
      </Table>
    </div>
  )
}
