import { StatusBadge } from "@medusajs/ui"
import { humanize, statusColor } from "../../../lib/format"

/** The service's status as is (unknown ones included), coloured by what it means for the merchant. */
export function ShiftStatusBadge({ status }: { status: string }) {
  return (
    <StatusBadge color={statusColor(status)} data-testid="crypto-swap-status-badge" data-status={status}>
      {humanize(status)}
    </StatusBadge>
  )
}
