import type { MedusaContainer } from "@medusajs/framework/types"
import { ContainerRegistrationKeys } from "@medusajs/framework/utils"

/**
 * Every table a payment can change: the plugin's ledger and its history, and Medusa's carts,
 * payment collections and sessions, payments, captures, refunds and orders. A test snapshots them
 * before an attack and after, and expects them equal.
 */
export const STATE_TABLES = [
  "crypto_swap_shift",
  "crypto_swap_shift_event",
  "crypto_swap_webhook",
  "cart",
  "cart_payment_collection",
  "payment_collection",
  "payment_session",
  "payment",
  "capture",
  "refund",
  "order",
  "order_cart",
  "order_payment_collection",
  "order_transaction",
  "order_summary",
  "reservation_item",
]

/**
 * Bookkeeping, not state: when a row was last touched or read, and when the next read is due. A
 * notification may cost a (bounded) read of the shift; it must not change anything else.
 * Medusa's own webhook route re-runs its capture workflow when a real settlement notification is
 * replayed: no second capture (the capture table is compared), but it restamps the collection's
 * completed_at.
 */
const BOOKKEEPING = new Set(["updated_at", "last_synced_at", "next_sync_at", "payment_collection.completed_at"])

export type StateSnapshot = Record<string, Array<Record<string, unknown>>>

export async function stateSnapshot(container: MedusaContainer): Promise<StateSnapshot> {
  const knex = container.resolve(ContainerRegistrationKeys.PG_CONNECTION)
  const { rows: present } = await knex.raw(
    "select table_name from information_schema.tables where table_schema = current_schema() and table_name = any(?)",
    [STATE_TABLES]
  )
  const snapshot: StateSnapshot = {}
  for (const { table_name: table } of present as Array<{ table_name: string }>) {
    const { rows } = await knex.raw("select * from ?? order by id", [table])
    snapshot[table] = (rows as Array<Record<string, unknown>>).map((row) =>
      Object.fromEntries(
        Object.entries(row)
          .filter(([column]) => !BOOKKEEPING.has(column) && !BOOKKEEPING.has(`${table}.${column}`))
          .map(([column, value]) => [column, value instanceof Date ? value.toISOString() : value])
      )
    )
  }
  return snapshot
}

/** How many rows each table holds, for the report ("state covered"). */
export function snapshotSize(snapshot: StateSnapshot): number {
  return Object.values(snapshot).reduce((sum, rows) => sum + rows.length, 0)
}

/** A shift's status changes in order, each starting where the previous one ended. */
export function historyGaps(events: Array<{ from_status: string | null; to_status: string; action?: string | null }>): string[] {
  const changes = events.filter((event) => !event.action)
  const gaps: string[] = []
  changes.forEach((event, i) => {
    if (i === 0 && event.from_status !== null) gaps.push(`first change starts at ${event.from_status}, not at creation`)
    if (i > 0 && event.from_status !== changes[i - 1].to_status) {
      gaps.push(`${changes[i - 1].from_status}->${changes[i - 1].to_status} then ${event.from_status}->${event.to_status}`)
    }
    if (event.from_status === event.to_status) gaps.push(`a change from ${event.from_status} to itself`)
  })
  return gaps
}
