import type { Knex } from "@medusajs/framework/mikro-orm/knex"
import { DEPOSIT_SEEN_STATUSES } from "../../lib/shift/shift-actions"
import type { CryptoSwapOptions } from "../../lib/options"
import { topUpAmount } from "../../lib/shift/ledger-fields"
import { addDecimals } from "../../lib/money"
import { flagSet, hasFlag, HELD_REFUND_RECORDED_SQL, PAID_WITHOUT_SESSION_SQL, REFUND_SHORT_SQL, REFUND_TO_FUND_SQL } from "./payments-query"

/**
 * What the settings page shows, read in SQL: counts and the rows that need the merchant, never the
 * ledger itself. The lists with no paging are rare rows (money no order holds), capped all the same.
 */
const RARE_ROWS_CAP = 1000

/** A shift is stuck when it outlived its deadline by this much, or keeps failing to sync. */
const STUCK_AFTER_MS = 60 * 60 * 1000
const STUCK_FAILURES = 5

export type Page = { limit: number; offset: number }

const shifts = (knex: Knex) => knex.from({ s: "crypto_swap_shift" }).whereNull("s.deleted_at")

/** Open shifts by status: one index-only count over (terminal, status). */
export async function openShiftCounts(knex: Knex) {
  const rows = (await shifts(knex).where("s.terminal", false).select("s.status").count({ count: "*" }).groupBy("s.status").orderBy("s.status")) as Array<{
    status: string
    count: string
  }>
  const byStatus = Object.fromEntries(rows.map((row) => [row.status, Number(row.count)]))
  return { total: rows.reduce((total, row) => total + Number(row.count), 0), by_status: byStatus }
}

/**
 * One page of the shifts that keep failing to sync, and of the open ones long past their deadline, oldest deadline
 * first, and how many in all. A shift that is over is synced only while something is left to do (a status to copy
 * into its session, a late deposit to watch for): failing, it is as stuck as an open one.
 */
export async function stuckShifts(knex: Knex, page: Page, now = new Date()) {
  // Each arm whole, so each is a range of its own index (the rare failing rows, the waiting ones by deadline).
  const stuck = () =>
    shifts(knex).where((where) =>
      where
        .where("s.sync_failures", ">=", STUCK_FAILURES)
        .orWhere((late) => late.where("s.terminal", false).where("s.status", "waiting").where("s.expires_at", "<", new Date(now.getTime() - STUCK_AFTER_MS)))
    )
  const [rows, [{ count }]] = await Promise.all([
    stuck()
      .select("s.id", "s.status", "s.sync_failures", "s.expires_at")
      .orderByRaw("s.expires_at asc nulls last, s.id asc")
      .limit(page.limit)
      .offset(page.offset),
    stuck().count<Array<{ count: string }>>({ count: "*" }),
  ])
  return { shifts: rows as Array<{ id: string; status: string; sync_failures: number; expires_at: Date | null }>, count: Number(count) }
}

/** One page of the actions that stopped retrying, latest first, with their shift; and how many in all. */
export async function attentionActions(knex: Knex, page: Page) {
  const stopped = () => knex.from("crypto_swap_shift_action").whereNull("deleted_at").where("state", "attention")
  // The page is cut before its shifts are joined: each of its rows then costs one primary-key read.
  const onPage = stopped()
    .select("id", "swap_shift_id", "kind", "attempts", "last_error", "updated_at")
    .orderBy([{ column: "updated_at", order: "desc" }, { column: "id", order: "desc" }])
    .limit(page.limit)
    .offset(page.offset)
    .as("a")
  const [rows, [{ count }]] = await Promise.all([
    knex
      .from(onPage)
      .leftJoin({ s: "crypto_swap_shift" }, (join) => join.on("s.id", "a.swap_shift_id").andOnNull("s.deleted_at"))
      .select(
        "a.swap_shift_id as id",
        knex.raw("coalesce(s.status, 'unknown') as status"),
        "s.order_id",
        "s.cart_id",
        "a.kind as action",
        "a.attempts",
        "a.last_error",
        "a.updated_at as since",
        // A refund's shift waiting for the merchant to approve what it costs: approved, not retried.
        knex.raw("s.flags->>'refund_cost_asked' as refund_cost_asked"),
        "s.deposit_coin as refund_cost_coin"
      )
      .orderBy([{ column: "a.updated_at", order: "desc" }, { column: "a.id", order: "desc" }]),
    stopped().count<Array<{ count: string }>>({ count: "*" }),
  ])
  return { items: rows, count: Number(count) }
}

/**
 * Deposits no order holds and not being refunded: paid into the shift of a replaced session (`paid_without_session`), and variable
 * deposits short of the amount due that are not being refunded yet (`underpaid`; `held` once the wait for a
 * top-up ran out and it waits for the merchant to accept it as paid or refund it). `underpaid` also lists
 * an order placed on a deposit that then settled short (with its `order_id`): never captured on its own.
 */
export async function orderlessDeposits(knex: Knex) {
  const deposits = () =>
    shifts(knex)
      .where("s.kind", "payment")
      .whereIn("s.status", [...DEPOSIT_SEEN_STATUSES])
      .select("s.id", "s.status", "s.deposit_amount", "s.deposit_coin", "s.deposit_network", "s.cart_id", "s.refund_address")
      .orderBy("s.id")
      .limit(RARE_ROWS_CAP)
  const [paidWithoutSession, underpaid] = await Promise.all([
    deposits().whereRaw(`${hasFlag("paid_without_session")} and ${PAID_WITHOUT_SESSION_SQL}`),
    // A canceled payment too: the service sent its deposit back, then the shopper paid its address again, short.
    deposits()
      .whereNull("s.captured_at")
      .whereNull("s.refund_owed")
      .select("s.order_id", "s.amount_due", "s.currency_code", "s.credit", knex.raw("s.flags->>'underpaid' as underpaid"), knex.raw(`${flagSet("underpaid_held")} as held`))
      .whereRaw(`${hasFlag("underpaid")} and ${flagSet("underpaid")} and not ${flagSet("paid_without_session")} and not ${flagSet("accepted_short")}`)
      .whereRaw(`not ${HELD_REFUND_RECORDED_SQL}`),
  ])
  return { paid_without_session: paidWithoutSession, underpaid }
}

/**
 * Payments owed back after their order was canceled, not being refunded yet, each with `owed_total`: what
 * "Refund via shift" gives back, its top-ups with it (as refundHeldMoney counts them), in the payment's
 * settle coin. A top-up settled in another coin (the settlement changed in between) is refunded in its own.
 */
async function owedBack(knex: Knex, optionsOf: (providerId: string) => CryptoSwapOptions) {
  const owed: Array<{ id: string; refund_owed: string; settle_coin: string | null; settle_network: string | null }> = await shifts(knex)
    .where("s.kind", "payment")
    .whereNotNull("s.refund_owed")
    .whereRaw(`not ${HELD_REFUND_RECORDED_SQL}`)
    .select("s.id", "s.status", "s.order_id", "s.cart_id", "s.refund_owed", "s.settle_coin", "s.settle_network", "s.refund_address")
    .orderBy("s.id")
    .limit(RARE_ROWS_CAP)
  const topUps: Array<Parameters<typeof topUpAmount>[0] & { top_up_of: string; provider_id: string; settle_coin: string | null; settle_network: string | null }> =
    owed.length
      ? await shifts(knex)
          .where("s.kind", "top_up")
          .whereIn("s.top_up_of", owed.map((row) => row.id))
          // One refunded on its own already (refund_excess) is among the refunds.
          .whereRaw(`not ${HELD_REFUND_RECORDED_SQL}`)
          .select(
            ...["top_up_of", "provider_id", "kind", "status", "type", "amount_due", "credit", "settle_amount", "deposit_amount", "rate", "deposits", "flags", "settle_coin", "settle_network"].map(
              (column) => `s.${column}`
            )
          )
      : []
  return owed.map((row) => {
    const amounts = topUps
      .filter((topUp) => topUp.top_up_of === row.id && topUp.settle_coin === row.settle_coin && topUp.settle_network === row.settle_network)
      .map((topUp) => topUpAmount(topUp, optionsOf(topUp.provider_id)))
      .filter((amount): amount is string => Boolean(amount))
    return { ...row, owed_total: addDecimals(row.refund_owed, ...amounts) }
  })
}

/** Money owed back after a canceled order, refunds still to reach the shopper, and confirmed deposits no order holds. */
export async function moneyToResolve(knex: Knex, optionsOf: (providerId: string) => CryptoSwapOptions) {
  const [refundOwed, refunds, paidNoOrder] = await Promise.all([
    owedBack(knex, optionsOf),
    shifts(knex)
      // A refund paid short is found from the flags' GIN index.
      .whereRaw(`((${REFUND_TO_FUND_SQL}) or (${hasFlag("refund_short")} and ${REFUND_SHORT_SQL}))`)
      // One list: knex reads only the first argument when it is an array.
      .select([
        ...[
          "id", "status", "order_id", "refund_id", "amount_due", "currency_code", "deposit_amount", "deposit_coin",
          "deposit_network", "deposit_address", "deposit_memo", "deposit_estimate", "expires_at", "refund_address", "settle_coin", "settle_network",
        ].map((column) => `s.${column}`),
        knex.raw("s.flags->>'refund_short' as refund_short"),
        knex.raw("s.flags->>'sent_back' as sent_back"),
        // What it is still owed in: the shopper's coin when the store pays the fees (refund_target), else the store's.
        knex.raw("case when s.flags->'refund_target'->>'settle_amount' is not null then s.settle_coin else s.deposit_coin end as refund_short_coin"),
      ])
      .orderBy([{ column: "s.created_at", order: "asc" }, { column: "s.id", order: "asc" }])
      .limit(RARE_ROWS_CAP),
    shifts(knex)
      .where("s.kind", "payment")
      .whereNotNull("s.paid_no_order_since")
      // Placing the order is the shift's `authorize` action: its attempts and last error say why it failed.
      .leftJoin({ a: "crypto_swap_shift_action" }, (join) => join.on("a.swap_shift_id", "s.id").andOnVal("a.kind", "authorize").andOnNull("a.deleted_at"))
      .select(
        ...["id", "status", "cart_id", "paid_no_order_since", "deposit_coin", "deposit_network", "deposit_amount", "amount_due", "currency_code"].map((column) => `s.${column}`),
        knex.raw("coalesce(a.attempts, 0) as attempts"),
        "a.last_error",
        "a.next_attempt_at"
      )
      .orderBy("s.paid_no_order_since")
      .limit(RARE_ROWS_CAP),
  ])
  return { refund_owed: refundOwed, refunds, paid_no_order: paidNoOrder }
}
