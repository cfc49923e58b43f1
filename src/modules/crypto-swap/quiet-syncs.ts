import type { Knex } from "@medusajs/framework/mikro-orm/knex"

/** Rows per statement: a few thousand bind parameters, well under PostgreSQL's limit. */
const CHUNK = 1000

/**
 * Records reads that found nothing new: one UPDATE per chunk for the whole tick's quiet rows, each with
 * its own next read, instead of an ORM update per row. Nothing else of the row changes (the last full
 * answer, `snapshot`, is written by the syncs that find a change).
 */
export async function recordQuietSyncs(knex: Knex, rows: Array<{ id: string; next_sync_at: Date | null }>, syncedAt: Date): Promise<void> {
  for (let start = 0; start < rows.length; start += CHUNK) {
    const chunk = rows.slice(start, start + CHUNK)
    const values = chunk.map(() => "(?, ?::timestamptz)").join(", ")
    await knex.raw(
      `update crypto_swap_shift as s
          set last_synced_at = ?, sync_failures = 0, next_sync_at = v.next_sync_at, updated_at = ?
         from (values ${values}) as v(id, next_sync_at)
        where s.id = v.id`,
      [syncedAt, syncedAt, ...chunk.flatMap((row) => [row.id, row.next_sync_at])]
    )
  }
}
