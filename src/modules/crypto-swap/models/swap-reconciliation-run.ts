import { model } from "@medusajs/framework/utils"

/** One reconciliation tick, for the health route: when, how long, and what it found. */
export const SwapReconciliationRun = model.define("crypto_swap_reconciliation_run", {
  id: model.id({ prefix: "csrun" }).primaryKey(),
  started_at: model.dateTime().index(),
  duration_ms: model.number(),
  discovered: model.number().default(0),
  /**
   * Discovery's watermark: the tick's time. Payment sessions made before it have been read; the next
   * tick reads those within the overlap before it once more (see discovery-window.ts).
   */
  discovered_through: model.dateTime().nullable(),
  /** The same for Medusa's refunds of crypto payments. */
  refunds_through: model.dateTime().nullable(),
  due: model.number().default(0),
  read: model.number().default(0),
  changed: model.number().default(0),
  failed: model.number().default(0),
  deferred: model.number().default(0),
})
