import { model } from "@medusajs/framework/utils"
import { SwapShiftEvent } from "./swap-shift-event"

/**
 * Every shift the plugin creates or learns of, as the service last described it, plus what the
 * plugin has done about it. Amounts are the service's exact decimal strings.
 */
export const SwapShift = model
  .define("crypto_swap_shift", {
    id: model.id({ prefix: "csshift" }).primaryKey(),
    /** Null until a hosted checkout's payer has picked a coin. */
    shift_id: model.text().unique().nullable(),
    /** A top-up is a second shift for what an underpaid payment still misses: it pays that payment's order. */
    kind: model.enum(["payment", "refund", "top_up"]).default("payment"),
    /** fixed, variable or checkout (a hosted checkout's shift). */
    type: model.text().nullable(),
    provider_id: model.text().nullable(),
    payment_session_id: model.text().index().nullable(),
    payment_collection_id: model.text().nullable(),
    payment_id: model.text().index().nullable(),
    cart_id: model.text().index().nullable(),
    order_id: model.text().index().nullable(),
    checkout_id: model.text().unique().nullable(),
    /** For refund shifts: the payment shift whose deposit is paid back, and the refund it pays. */
    refund_of_shift_id: model.text().index().nullable(),
    refund_id: model.text().unique().nullable(),
    /** For top-ups: the ledger row of the underpaid payment whose rest it pays. */
    top_up_of: model.text().index().nullable(),
    /**
     * What counts toward the amount due besides this shift's own deposit: settled top-ups, and a shortfall
     * the merchant accepted. Mirrored into the payment session's data, where the provider decides from it.
     */
    credit: model.text().nullable(),
    deposit_coin: model.text().nullable(),
    deposit_network: model.text().nullable(),
    deposit_address: model.text().nullable(),
    deposit_memo: model.text().nullable(),
    deposit_amount: model.text().nullable(),
    deposit_min: model.text().nullable(),
    deposit_max: model.text().nullable(),
    /** A variable shift's deposit that pays the order at the rate when it was made, fees included. */
    deposit_estimate: model.text().nullable(),
    settle_coin: model.text().nullable(),
    settle_network: model.text().nullable(),
    settle_address: model.text().nullable(),
    settle_memo: model.text().nullable(),
    settle_amount: model.text().nullable(),
    refund_address: model.text().nullable(),
    refund_memo: model.text().nullable(),
    /** The shopper's IP: the service wants it with every shift made for them, refund shifts included. */
    customer_ip: model.text().nullable(),
    /**
     * A refund shift's quote, recorded before the shift is asked for: a retry after a lost answer uses it
     * again, and the service then answers with the shift it made ("Quote has already been accepted").
     */
    refund_quote: model.json().nullable(),
    rate: model.text().nullable(),
    /** What the order is owed, in the store currency. */
    amount_due: model.text().nullable(),
    currency_code: model.text().nullable(),
    expires_at: model.dateTime().nullable(),
    status: model.text(),
    issue: model.text().nullable(),
    deposits: model.json().nullable(),
    /** Indexed: the payments page finds a movement by its transaction hash. */
    deposit_hash: model.text().index().nullable(),
    settle_hash: model.text().index().nullable(),
    /** The service's last full answer: nothing it told us is lost. */
    snapshot: model.json().nullable(),
    terminal: model.boolean().default(false),
    /** review, address_needed, underpaid, overpaid, cancel_requested ... */
    flags: model.json().nullable(),
    /**
     * Events of transitions recorded with the flags that keep them from being planned again, not sent yet: the
     * sync sends them at its end, and the next one those a sync stopped before sending (an outbox).
     */
    unsent_events: model.json().nullable(),
    authorized_at: model.dateTime().nullable(),
    captured_at: model.dateTime().nullable(),
    canceled_at: model.dateTime().nullable(),
    order_canceled_at: model.dateTime().nullable(),
    /**
     * Settle-coin amount the merchant received and owes back: the shift settled after Medusa's payment
     * was canceled (the order was canceled while the deposit was on its way), so nothing was captured.
     */
    refund_owed: model.text().nullable(),
    /**
     * Since when the deposit is confirmed but the order could not be placed (the cart can't be
     * completed, e.g. sold out meanwhile): the money is the store's and no order holds it.
     */
    paid_no_order_since: model.dateTime().nullable(),
    /** When the shopper's payment page last asked about it (at most once a minute): idle variable shifts are cancelled. */
    last_viewed_at: model.dateTime().nullable(),
    last_synced_at: model.dateTime().nullable(),
    next_sync_at: model.dateTime().index().nullable(),
    sync_failures: model.number().default(0),
    last_error: model.text().nullable(),
    events: model.hasMany(() => SwapShiftEvent, { mappedBy: "swap_shift" }),
  })
  .cascades({ delete: ["events"] })
  // What the settings page reads, each list from its own index however large the ledger: open shifts counted by
  // status (index-only) and the waiting ones past their deadline; deposits and open refunds no order holds by
  // kind and status; and the rare rows that keep failing to sync, are owed back, or are paid with no order.
  .indexes([
    { on: ["terminal", "status", "expires_at"] },
    { on: ["kind", "status", "order_id"] },
    // Flags (`?`): money paid after switching coins, or short of the amount due, with no order yet.
    { on: ["flags"], type: "GIN" },
    { on: ["sync_failures"], where: "sync_failures > 0" },
    { on: ["refund_owed"], where: "refund_owed IS NOT NULL" },
    { on: ["paid_no_order_since"], where: "paid_no_order_since IS NOT NULL" },
  ])
