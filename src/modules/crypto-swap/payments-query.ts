import type { Knex } from "@medusajs/framework/mikro-orm/knex"
import { DEPOSIT_SEEN_STATUSES } from "../../lib/shift/shift-actions"
import { heldRefundId, OPEN_REFUND_STATUSES } from "../../lib/shift/refund-ids"
import type { AttentionReason, LedgerMovement } from "../../lib/accounting-export"

/** What the payments page and the export narrow the ledger to; every field optional. */
export type MovementFilters = {
  status?: string[]
  kind?: Array<"payment" | "refund" | "top_up">
  /** true: anything needing the merchant; false: nothing; a reason: that one. */
  attention?: boolean | AttentionReason
  /** A deposit or settle coin ticker, any case. */
  coin?: string
  /** created_at >= from and < to. */
  from?: Date
  to?: Date
  /** An order's display id (with or without #), a ledger or service shift id, or a transaction hash: exact. */
  q?: string
}

/**
 * The flag's key is present (implied by `flagSet`): read from the flags' GIN index, which finds the few
 * flagged rows however many rows have none. `\\?` is knex's escape for the `?` operator, which it takes
 * out only in a WHERE clause: never in a selected expression.
 */
export const hasFlag = (name: string) => `s.flags \\? '${name}'`

export const flagSet = (name: string) => `(s.flags->>'${name}' is not null and s.flags->>'${name}' <> 'false')`
const list = (values: Iterable<string>) => [...values].map((value) => `'${value}'`).join(", ")

/**
 * A payment whose held money's refund is recorded ("Refund via shift"): among the refunds from then on. Read
 * from the refund row (its unique refund id), not from the `held_refund` mark, set first: a crash between the
 * two would leave the money in neither list, when asking again (or the payment's sync, its mark pending) finishes it.
 */
export const HELD_REFUND_RECORDED_SQL = `exists (select 1 from crypto_swap_shift r where r.refund_id = '${heldRefundId("")}' || s.id and r.deleted_at is null)`

/**
 * Money paid into the shift of a session the shopper replaced, held by no order (none was placed on it: a payment
 * of an order's own collection names its order all the same), and not being refunded yet.
 */
export const PAID_WITHOUT_SESSION_SQL = `${flagSet("paid_without_session")} and s.authorized_at is null and not ${HELD_REFUND_RECORDED_SQL}`

/** A refund that reached the shopper (as refundReachedShopper judges it). */
const REFUNDED_SQL = `s.kind = 'refund' and (s.status = 'paid_manually' or ${flagSet("refunded")})`
/** A refund whose variable-rate shift paid the shopper less than owed. */
export const REFUND_SHORT_SQL = `s.kind = 'refund' and ${flagSet("refund_short")}`
/**
 * A refund still to fund: waiting for its shift or the store's deposit, sent back, or with several deposits
 * not yet judged paid in full (the (kind, status) index finds them).
 */
export const REFUND_TO_FUND_SQL = `s.kind = 'refund' and (s.status in (${list(OPEN_REFUND_STATUSES)}) or (s.status = 'multiple' and not ${flagSet("refunded")}))`
/** A refund still to reach the shopper in full: to fund, or paid short. */
const REFUND_OPEN_SQL = `((${REFUND_TO_FUND_SQL}) or (${REFUND_SHORT_SQL}))`

/**
 * Why a row needs the merchant, first reason first, as the settings page resolves each: an action
 * that stopped retrying, a paid shift whose order could not be placed, money paid after switching
 * coins or held short, an order placed on money that then settled short (never captured on its own),
 * an order placed on a deposit the service is sending back (until the order is canceled), a shopper's deposit the
 * service holds until someone gives it a refund address,
 * money owed after a canceled order (none of these once it is being refunded),
 * a refund waiting for an address, expired unfunded, or whose deposit the service sent back to the
 * merchant. Written in SQL so the page filters on it.
 */
const ATTENTION_SQL = `case
  when s.kind = 'refund' and s.status = 'paid_manually' and ${flagSet("paid_twice")} and not ${flagSet("paid_twice_resolved")} then 'refund_paid_twice'
  when s.kind = 'refund' and s.status = 'creating' and s.shift_id is null and ${flagSet("refund_cost_asked")} then 'refund_cost_asked'
  when exists (select 1 from crypto_swap_shift_action a where a.swap_shift_id = s.id and a.state = 'attention' and a.deleted_at is null) then 'action_stopped'
  when s.kind = 'payment' and s.paid_no_order_since is not null then 'paid_no_order'
  when s.kind = 'payment' and ${PAID_WITHOUT_SESSION_SQL} and s.status in (${list(DEPOSIT_SEEN_STATUSES)}) then 'paid_without_session'
  when s.kind = 'payment' and ${flagSet("underpaid_held")} and not ${flagSet("accepted_short")} and s.refund_owed is null and not ${HELD_REFUND_RECORDED_SQL} then 'underpaid_held'
  when s.kind = 'payment' and s.authorized_at is not null and s.captured_at is null and s.canceled_at is null and s.refund_owed is null and s.status in (${list(DEPOSIT_SEEN_STATUSES)}) and ${flagSet("underpaid")} and not ${flagSet("accepted_short")} then 'short_after_order'
  when s.kind = 'payment' and s.authorized_at is not null and s.captured_at is null and s.order_canceled_at is null and s.refund_owed is null and s.status in ('refund', 'refunding', 'refunded') then 'order_unpaid'
  when s.kind in ('payment', 'top_up') and ${flagSet("address_needed")} then 'deposit_address_needed'
  when s.kind = 'payment' and s.refund_owed is not null and not ${HELD_REFUND_RECORDED_SQL} then 'refund_owed'
  when s.kind = 'refund' and s.status = 'payment_unknown' then 'refund_payment_unknown'
  when s.kind = 'refund' and s.status = 'address_needed' then 'refund_address_needed'
  when s.kind = 'refund' and s.status = 'expired' then 'refund_expired'
  when s.kind = 'refund' and (s.status in ('refund', 'refunding', 'refunded') or (s.status = 'multiple' and s.flags->>'sent_back' = 'refunded')) then 'refund_sent_back'
  when s.kind = 'refund' and ${flagSet("refund_short")} then 'refund_short'
end`

/** The ledger's columns a movement shows, with its order's display id (same database, read in the same query). */
const MOVEMENT_COLUMNS = [
  "s.id", "s.kind", "s.shift_id", "s.order_id", "s.refund_id", "s.refund_of_shift_id", "s.status", "s.created_at", "s.captured_at", "s.expires_at", "s.type",
  "s.amount_due", "s.currency_code", "s.deposit_coin", "s.deposit_network", "s.deposit_amount", "s.deposit_hash",
  "s.settle_coin", "s.settle_network", "s.settle_amount", "s.settle_hash", "s.rate", "s.credit", "o.display_id as order_display_id",
]

/** The shortfall the merchant accepted as paid, counted in `credit` beside the top-ups; and a refund's cost waiting for approval. */
const FLAG_COLUMNS = (knex: Knex) => [knex.raw("s.flags->>'accepted_short' as accepted_short"), knex.raw("s.flags->>'refund_cost_asked' as refund_cost_asked")]

/** The filtered rows, not yet ordered or paged: each filter a WHERE on the ledger table (indexed where it matters). */
function filtered(knex: Knex, filters: MovementFilters) {
  const query = knex
    .from({ s: "crypto_swap_shift" })
    .leftJoin({ o: "order" }, "o.id", "s.order_id")
    .whereNull("s.deleted_at")
  if (filters.status?.length) query.whereIn("s.status", filters.status)
  if (filters.kind?.length) query.whereIn("s.kind", filters.kind)
  if (filters.from) query.where("s.created_at", ">=", filters.from)
  if (filters.to) query.where("s.created_at", "<", filters.to)
  if (filters.coin) {
    const coin = filters.coin.toUpperCase()
    query.where((where) => where.whereRaw("upper(s.deposit_coin) = ?", [coin]).orWhereRaw("upper(s.settle_coin) = ?", [coin]))
  }
  if (filters.attention === true) query.whereRaw(`(${ATTENTION_SQL}) is not null`)
  else if (filters.attention === false) query.whereRaw(`(${ATTENTION_SQL}) is null`)
  else if (filters.attention) query.whereRaw(`(${ATTENTION_SQL}) = ?`, [filters.attention])
  if (filters.q) {
    const q = filters.q
    const displayId = /^#?(\d{1,9})$/.exec(q)?.[1]
    query.where((where) => {
      where.where("s.id", q).orWhere("s.shift_id", q).orWhere("s.deposit_hash", q).orWhere("s.settle_hash", q)
      if (displayId) where.orWhere("o.display_id", Number(displayId))
    })
  }
  return query
}

type MovementRow = Omit<LedgerMovement, "created_at" | "captured_at" | "expires_at" | "attention"> & {
  created_at: Date
  captured_at: Date | null
  expires_at: Date | null
  attention: string | null
}

function toMovement(row: MovementRow): LedgerMovement {
  return {
    ...row,
    attention: row.attention as AttentionReason | null,
    created_at: new Date(row.created_at).toISOString(),
    captured_at: row.captured_at ? new Date(row.captured_at).toISOString() : null,
    expires_at: row.expires_at ? new Date(row.expires_at).toISOString() : null,
  }
}

/** One page of the payments page, newest first, and how many rows match in all. */
export async function listMovements(knex: Knex, filters: MovementFilters, page: { limit: number; offset: number }) {
  const [rows, [{ count }]] = await Promise.all([
    filtered(knex, filters)
      .select([...MOVEMENT_COLUMNS, ...FLAG_COLUMNS(knex), knex.raw(`${ATTENTION_SQL} as attention`)])
      .orderBy([{ column: "s.created_at", order: "desc" }, { column: "s.id", order: "desc" }])
      .limit(page.limit)
      .offset(page.offset),
    filtered(knex, filters).count<Array<{ count: string }>>({ count: "*" }),
  ])
  return { movements: (rows as MovementRow[]).map(toMovement), count: Number(count) }
}

/**
 * Every matching row oldest first, a page at a time: keyset on (created_at, id), so each page is one
 * indexed read and memory holds one page, however long the range.
 */
export async function* movementPages(knex: Knex, filters: MovementFilters, pageSize = 1000): AsyncGenerator<LedgerMovement[]> {
  // The cursor keeps the column's microseconds as text: a JavaScript date would round them to milliseconds
  // and repeat (or, for a thousand rows written at one instant, loop over) the rows at a page's edge.
  let after: { created_at: string; id: string } | undefined
  for (;;) {
    const query = filtered(knex, filters)
      .select([...MOVEMENT_COLUMNS, ...FLAG_COLUMNS(knex), knex.raw(`${ATTENTION_SQL} as attention`), knex.raw("s.created_at::text as created_at_cursor")])
      .orderBy([{ column: "s.created_at", order: "asc" }, { column: "s.id", order: "asc" }])
      .limit(pageSize)
    if (after) query.whereRaw("(s.created_at, s.id) > (?::timestamptz, ?)", [after.created_at, after.id])
    const rows = (await query) as Array<MovementRow & { created_at_cursor: string }>
    if (rows.length) yield rows.map(({ created_at_cursor: _cursor, ...row }) => toMovement(row))
    if (rows.length < pageSize) return
    const last = rows[rows.length - 1]
    after = { created_at: last.created_at_cursor, id: last.id }
  }
}

const sum = (condition: string, column: string) => `coalesce(sum(case when ${condition} then nullif(${column}, '')::numeric end), 0)::text`

/**
 * Totals of the matching rows, summed in SQL as exact decimals. Per store currency (amounts due):
 * due and received (captured) of payments, refunded and still to refund. Per settlement coin (what
 * the merchant's wallet saw): received by settled payments and top-ups, sent into settled refund
 * shifts, and still to send into open ones (a refund shift's deposit is the settlement coin).
 */
export async function movementTotals(knex: Knex, filters: MovementFilters) {
  const byCurrency = await filtered(knex, filters)
    .whereNotNull("s.currency_code")
    .select("s.currency_code")
    .select(
      knex.raw(`${sum("s.kind = 'payment'", "s.amount_due")} as due`),
      knex.raw(`${sum("s.kind = 'payment' and s.captured_at is not null", "s.amount_due")} as received`),
      knex.raw(`${sum(REFUNDED_SQL, "s.amount_due")} as refunded`),
      knex.raw(`${sum(REFUND_OPEN_SQL, "s.amount_due")} as outstanding`)
    )
    .groupBy("s.currency_code")
    .orderBy("s.currency_code")
  const coin = "case when s.kind = 'refund' then s.deposit_coin else s.settle_coin end"
  const network = "case when s.kind = 'refund' then s.deposit_network else s.settle_network end"
  const bySettleCoin = await filtered(knex, filters)
    .whereRaw(`${coin} is not null`)
    .select(knex.raw(`${coin} as coin`), knex.raw(`${network} as network`))
    .select(
      knex.raw(`${sum("s.kind <> 'refund' and s.status = 'settled'", "s.settle_amount")} as received`),
      // What the merchant sent (a short refund's deposit included) and what it still must send into open shifts.
      knex.raw(`${sum(`(${REFUNDED_SQL}) or (${REFUND_SHORT_SQL})`, "s.deposit_amount")} as refunded`),
      // A refund paid short with the rest on its way (`multiple`): what it holds was sent, not owed.
      knex.raw(`${sum(`(${REFUND_TO_FUND_SQL}) and not (${REFUND_SHORT_SQL})`, "s.deposit_amount")} as outstanding`)
    )
    .groupByRaw("1, 2")
    .orderByRaw("1, 2")
  return {
    by_currency: byCurrency as Array<{ currency_code: string; due: string; received: string; refunded: string; outstanding: string }>,
    by_settle_coin: bySettleCoin as Array<{ coin: string; network: string | null; received: string; refunded: string; outstanding: string }>,
  }
}
