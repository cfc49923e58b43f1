import { z } from "@medusajs/framework/zod"
import { explorerTxUrl } from "./explorers"
import { addDecimals, subtractDecimals } from "./money"

/** Why a ledger row needs the merchant (see the ledger's payments query for each rule). */
export const ATTENTION_REASONS = [
  "refund_paid_twice",
  "refund_cost_asked",
  "action_stopped",
  "paid_no_order",
  "paid_without_session",
  "underpaid_held",
  "short_after_order",
  "order_unpaid",
  "deposit_address_needed",
  "refund_owed",
  "refund_payment_unknown",
  "refund_address_needed",
  "refund_expired",
  "refund_sent_back",
  "refund_short",
] as const
export type AttentionReason = (typeof ATTENTION_REASONS)[number]

/** One ledger row as the payments page and the export read it: a payment, top-up or refund shift. */
export type LedgerMovement = {
  id: string
  kind: "payment" | "refund" | "top_up"
  shift_id: string | null
  order_id: string | null
  order_display_id: number | null
  refund_id: string | null
  refund_of_shift_id: string | null
  status: string
  attention: AttentionReason | null
  created_at: string
  captured_at: string | null
  /** The shift's deadline and rate type (not exported: what the payments page's buttons need). */
  expires_at: string | null
  type: string | null
  amount_due: string | null
  currency_code: string | null
  deposit_coin: string | null
  deposit_network: string | null
  deposit_amount: string | null
  deposit_hash: string | null
  settle_coin: string | null
  settle_network: string | null
  settle_amount: string | null
  settle_hash: string | null
  rate: string | null
  /** What counted toward a payment's amount due besides its own deposit (top-ups, a shortfall accepted), and that shortfall (not exported). */
  credit: string | null
  accepted_short: string | null
  /** A refund's shift waiting for the merchant to approve what it costs (not exported: the payments page's button needs it). */
  refund_cost_asked: string | null
}

/** The export's columns, in order: the CSV header and the JSON keys. */
export const EXPORT_COLUMNS = [
  "id", "kind", "order_display_id", "order_id", "created_at", "captured_at", "status", "attention",
  "amount_due", "currency_code",
  "deposit_coin", "deposit_network", "deposit_amount", "deposit_hash", "deposit_tx_url",
  "settle_coin", "settle_network", "settle_amount", "settle_hash", "settle_tx_url",
  "rate", "difference", "shift_id", "refund_id", "refund_of_shift_id",
] as const
export type ExportLine = Record<(typeof EXPORT_COLUMNS)[number], string | number | null>

/**
 * A movement with its explorer links and, for a settled payment, what it received (its top-ups with it)
 * less what was due: the settlement coin is the store currency's own (the plugin judges amounts 1:1), so
 * the difference is in the store currency, and a shortfall the merchant accepted shows as short. A top-up
 * is part of its payment's line, and a refund shift is never judged against an amount due.
 */
export function exportLine(row: LedgerMovement): ExportLine {
  const { credit, accepted_short, ...line } = row
  const judged = row.kind === "payment" && row.status === "settled" && row.settle_amount && row.amount_due
  const topUps = credit ? subtractDecimals(credit, accepted_short ?? "0") : "0"
  return {
    ...line,
    deposit_tx_url: explorerTxUrl(row.deposit_network, row.deposit_hash),
    settle_tx_url: explorerTxUrl(row.settle_network, row.settle_hash),
    difference: judged ? subtractDecimals(addDecimals(row.settle_amount!, topUps), row.amount_due!) : null,
  }
}

/** A decimal amount, which may be negative (a difference): left as it is. */
const DECIMAL = /^-?\d+(\.\d+)?$/

/**
 * RFC 4180: a field holding a comma, quote or line break is quoted, its quotes doubled. A text a
 * spreadsheet would run as a formula (a hash or memo from the service starting with = + - @) is
 * prefixed with an apostrophe, so opening the export never runs what a third party wrote.
 */
export function csvField(value: string | number | null): string {
  const raw = value === null ? "" : String(value)
  const text = /^[=+\-@\t\r]/.test(raw) && !DECIMAL.test(raw) ? `'${raw}` : raw
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text
}

const csvRecord = (values: Array<string | number | null>) => `${values.map(csvField).join(",")}\r\n`

/**
 * A range bound: a day (`2026-01-31`, UTC) or an instant with its offset. A day given as the end
 * covers that whole day, so `--from 2026-01-01 --to 2026-01-31` is January; an instant as the end
 * is excluded.
 */
export const dateBound = (end: boolean) =>
  z.union([z.iso.date(), z.iso.datetime({ offset: true })]).transform((text) => {
    if (text.length !== 10) return new Date(text)
    const day = new Date(`${text}T00:00:00Z`)
    if (end) day.setUTCDate(day.getUTCDate() + 1)
    return day
  })

/** A range whose start is not after its end. */
export const orderedRange: [(range: { from?: Date; to?: Date }) => boolean, { message: string; path: string[] }] = [
  (range) => !range.from || !range.to || range.from < range.to,
  { message: "from must be before to", path: ["to"] },
]

/** What an export covers, from the admin route's query or the command's flags alike. */
export const exportRangeSchema = z
  .object({ from: dateBound(false), to: dateBound(true), format: z.enum(["csv", "json"]).default("csv") })
  .strict()
  .refine(...orderedRange)

export type ExportFormat = z.output<typeof exportRangeSchema>["format"]

/**
 * The export as text chunks, one per page of movements read: a CSV file with its header, or a JSON
 * array of objects. Consumed as it is produced (a response, a file), so memory holds one page.
 */
export async function* exportChunks(pages: AsyncIterable<LedgerMovement[]>, format: ExportFormat): AsyncGenerator<string> {
  if (format === "csv") yield csvRecord([...EXPORT_COLUMNS])
  else yield "["
  let first = true
  for await (const page of pages) {
    const lines = page.map(exportLine)
    if (format === "csv") {
      yield lines.map((line) => csvRecord(EXPORT_COLUMNS.map((column) => line[column]))).join("")
    } else {
      const objects = lines.map((line) => JSON.stringify(Object.fromEntries(EXPORT_COLUMNS.map((column) => [column, line[column]]))))
      yield `${first ? "" : ","}\n${objects.join(",\n")}`
    }
    first = false
  }
  if (format === "json") yield "\n]\n"
}

/** The file name an export is saved under. */
export function exportFileName(from: string, to: string, format: ExportFormat): string {
  return `crypto-payments-${from}-${to}.${format}`
}
