/** Emitted by the provider with every shift or hosted checkout it creates: the ledger records it at once. */
export const SHIFT_CREATED_EVENT = "crypto-swap.payment.shift_created"

/**
 * A `crypto-swap.shift.*` event as a sync sends it: the ledger row (never the shift id, which is sensitive), its
 * status and stage then; an action's, the action and what it found.
 */
export type ShiftEventMessage = { name: string; data: { id: string; status: string; stage?: string } & Record<string, unknown> }

/** What a ledger row still has to send of the transitions it recorded (`unsent_events`). */
export function unsentEvents(row: { unsent_events?: unknown }): ShiftEventMessage[] {
  return Array.isArray(row.unsent_events) ? (row.unsent_events as ShiftEventMessage[]) : []
}

/** The row's unsent events with those of the transitions recorded now, to be written with the flags that record them. */
export function withNewEvents(
  row: { id: string; unsent_events?: unknown },
  names: string[],
  at: { status: string; stage?: string }
): ShiftEventMessage[] {
  return [...unsentEvents(row), ...names.map((name) => ({ name, data: { id: row.id, status: at.status, ...(at.stage ? { stage: at.stage } : {}) } }))]
}

/** The `unsent_events` column for these events (a JSON column, typed by the ORM as an object). */
export function unsentColumn(events: ShiftEventMessage[]): Record<string, unknown> | null {
  return events.length ? (events as unknown as Record<string, unknown>) : null
}
