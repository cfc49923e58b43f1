import { Badge, Tooltip } from "@medusajs/ui"
import type { BadgeColor } from "../../../lib/format"
import { humanize } from "../../../lib/format"
import type { Shift } from "../../../lib/types"

const KNOWN_FLAGS: Record<string, { label: string; color: BadgeColor }> = {
  review: { label: "In review", color: "red" },
  address_needed: { label: "Refund address needed", color: "orange" },
  refunded: { label: "Refunded", color: "purple" },
  refund_short: { label: "Refund short: the rest is owed", color: "red" },
  underpaid: { label: "Underpaid", color: "red" },
  overpaid: { label: "Overpaid", color: "orange" },
  paid_without_session: { label: "Paid after the shopper switched: pay back", color: "red" },
  underpaid_held: { label: "Underpaid: waiting for your decision", color: "orange" },
  accepted_short: { label: "Accepted short", color: "orange" },
  underpayment_settled: { label: "Short payment: wait for the rest over", color: "grey" },
  held_refund: { label: "Being refunded (no order)", color: "purple" },
  paid_after_given_back: { label: "Paid again after it was given back: refunded", color: "orange" },
  paid_after_credit: { label: "Top-up paid again after its credit: refunded", color: "orange" },
  paid_manually: { label: "Paid by other means", color: "purple" },
  paid_twice: { label: "Funded after it was paid by other means: the shopper was paid twice", color: "red" },
  sent_back: { label: "Your deposit is sent back to you", color: "orange" },
  refunded_by_medusa: { label: "Refunded by Medusa (no order held it)", color: "purple" },
}

/** A raised flag's detail (an object or a string) as a tooltip: the badge stays short. */
function flagDetail(value: unknown): string | undefined {
  if (value === true) return undefined
  if (typeof value === "string") return value
  try {
    return JSON.stringify(value)
  } catch {
    return undefined
  }
}

/** Bookkeeping the plugin keeps among the flags (when a wait began, which top-ups it counted), not facts for the merchant. */
const BOOKKEEPING = new Set(["underpaid_since", "top_up_at", "credited_top_ups", "held_amount", "credited_amount", "refund_target", "refund_cost_approved"])

/**
 * The ledger's flags. A null value is a flag that was raised and cleared since, so only truthy ones
 * show. `review` carries the service's issue, which is why it is the one worth reading at a glance.
 */

export function ShiftFlags({ shift }: { shift: Shift }) {
  const raised = Object.entries(shift.flags ?? {}).filter(([flag, value]) => Boolean(value) && !BOOKKEEPING.has(flag))
  if (!raised.length) return null
  return (
    <div className="flex flex-wrap gap-1" data-testid="crypto-swap-flags">
      {raised.map(([flag, value]) => {
        const known = KNOWN_FLAGS[flag]
        const label = flag === "review" && shift.issue ? `In review: ${shift.issue}` : known?.label ?? humanize(flag)
        const detail = flagDetail(value)
        const badge = (
          <Badge key={flag} size="2xsmall" color={known?.color ?? "grey"} data-testid={`crypto-swap-flag-${flag}`}>
            {label}
          </Badge>
        )
        return detail ? (
          <Tooltip key={flag} content={detail}>
            {badge}
          </Tooltip>
        ) : (
          badge
        )
      })}
    </div>
  )
}
