import { model } from "@medusajs/framework/utils"

/**
 * Everything a sync may do about a shift, once per shift (a repeatable one is planned again only when there
 * is more to do); the names are the plan's, in snake case.
 */
export const SHIFT_ACTION_KINDS = [
  "authorize",
  "capture",
  "cancel_expired",
  "cancel_refunded",
  "set_refund_address",
  "cancel_abandoned",
  "create_refund_shift",
  "credit_top_up",
  "settle_underpayment",
  "refund_excess",
  "refund_canceled_capture",
] as const
export type ShiftActionKind = (typeof SHIFT_ACTION_KINDS)[number]

/**
 * One action a shift's transition called for, kept apart from the observation that called for it: a
 * failure is recorded here (attempts, when to try again, why it failed) and never undoes what the
 * service was seen to say. After too many attempts it waits in `attention` for an admin.
 */
export const SwapShiftAction = model
  .define("crypto_swap_shift_action", {
    id: model.id({ prefix: "csact" }).primaryKey(),
    swap_shift_id: model.text(),
    kind: model.enum([...SHIFT_ACTION_KINDS]),
    state: model.enum(["pending", "done", "attention"]).default("pending"),
    attempts: model.number().default(0),
    next_attempt_at: model.dateTime().nullable(),
    last_error: model.text().nullable(),
    /** What the action came to, e.g. refund_owed when a capture found the payment canceled. */
    outcome: model.text().nullable(),
    done_at: model.dateTime().nullable(),
    /**
     * Since when it has waited on another action (not tried: a capture waits for the order). One that waits
     * too long is put in `attention` (see BLOCKED_ACTION_ATTENTION_MS) and still runs once it can.
     */
    blocked_since: model.dateTime().nullable(),
  })
  .indexes([
    { on: ["swap_shift_id", "kind"], unique: true },
    { on: ["state"] },
  ])
