import type { Knex } from "@medusajs/framework/mikro-orm/knex"
import type { InferTypeOf } from "@medusajs/framework/types"
import { SwapShift } from "./models/swap-shift"

/** Every column a tick decides on: all but the shift's last full answer (`snapshot`, most of a row's size). */
const DUE_COLUMNS = Object.keys(SwapShift.schema).filter((column) => column !== "snapshot" && column !== "events")

export type DueShift = Omit<InferTypeOf<typeof SwapShift>, "snapshot" | "events">

/** Where the previous page ended, in due order. */
export type DueCursor = { at: Date; id: string }

/**
 * One page of the rows due by `until` that this tick has not synced yet (one whose next read fell due
 * again within the tick is not taken twice), in due order (keyset on next_sync_at, id), from the
 * next_sync_at index. Plain rows from SQL, not ORM entities: hydrating and serializing a tick's
 * thousands of rows through the ORM was half of what the tick allocated.
 */
export async function dueShiftPage(knex: Knex, { until, tickStart, after, limit }: { until: Date; tickStart: Date; after?: DueCursor; limit: number }): Promise<DueShift[]> {
  const query = knex("crypto_swap_shift")
    .select(DUE_COLUMNS)
    .whereNull("deleted_at")
    .where("next_sync_at", "<=", until)
    .where((notYetSynced) => notYetSynced.whereNull("last_synced_at").orWhere("last_synced_at", "<", tickStart))
    .orderBy([{ column: "next_sync_at" }, { column: "id" }])
    .limit(limit)
  if (after) query.where((later) => later.where("next_sync_at", ">", after.at).orWhere((same) => same.where("next_sync_at", after.at).where("id", ">", after.id)))
  return (await query) as DueShift[]
}
