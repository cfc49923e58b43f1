import type { Knex } from "@medusajs/framework/mikro-orm/knex"

/** Rows per statement: a few thousand bind parameters, well under PostgreSQL's limit. */
const CHUNK = 1000

export type QuietSync = {
  id: string
  /** When the row was last written, as the tick loaded it. */
  loaded_updated_at: Date
  /** When the read that found nothing new was sent. */
  observed_at: Date
  next_sync_at: Date | null
}

/**
 * Records reads that found nothing new: one UPDATE per chunk for the whole tick's quiet rows, each with
 * its own next read, instead of an ORM update per row. Nothing else of the row changes (the last full
 * answer, `snapshot`, is written by the syncs that find a change). These writes take no shift lock: a
 * row written since the tick loaded it (a webhook's or the shopper's sync, an admin's action) is left as
 * that writer left it, and its own next read stands.
 */
export async function recordQuietSyncs(knex: Knex, rows: QuietSync[], writtenAt: Date): Promise<void> {
  for (let start = 0; start < rows.length; start += CHUNK) {
    const chunk = rows.slice(start, start + CHUNK)
    const values = chunk.map(() => "(?, ?::timestamptz, ?::timestamptz, ?::timestamptz)").join(", ")
    // Compared within a millisecond: the tick holds JavaScript dates, the column microseconds.
    await knex.raw(
      `update crypto_swap_shift as s
          set last_synced_at = v.observed_at, sync_failures = 0, next_sync_at = v.next_sync_at, updated_at = ?
         from (values ${values}) as v(id, loaded_updated_at, observed_at, next_sync_at)
        where s.id = v.id
          and s.updated_at > v.loaded_updated_at - interval '1 millisecond'
          and s.updated_at < v.loaded_updated_at + interval '1 millisecond'`,
      [writtenAt, ...chunk.flatMap((row) => [row.id, row.loaded_updated_at, row.observed_at, row.next_sync_at])]
    )
  }
}
