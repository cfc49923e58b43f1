import { model } from "@medusajs/framework/utils"
import { SwapShift } from "./swap-shift"

/** Append-only history of a shift: each status change with when and how the plugin learnt it. */
export const SwapShiftEvent = model.define("crypto_swap_shift_event", {
  id: model.id({ prefix: "csevt" }).primaryKey(),
  swap_shift: model.belongsTo(() => SwapShift, { mappedBy: "events" }),
  from_status: model.text().nullable(),
  to_status: model.text(),
  issue: model.text().nullable(),
  source: model.enum(["create", "poll", "webhook", "storefront", "admin"]),
  /** What the plugin did about it: authorized, captured, canceled, flagged ... */
  action: model.text().nullable(),
  detail: model.json().nullable(),
  occurred_at: model.dateTime(),
})
