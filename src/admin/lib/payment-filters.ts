import { useCallback, useEffect, useMemo, useRef } from "react"
import { useSearchParams } from "react-router-dom"
import type { AttentionReason, PaymentFilters } from "./types"

/** The payments page's filters live in the URL query, so a filtered view can be reloaded and shared. */
export const FILTER_KEYS = ["q", "kind", "status", "attention", "coin", "from", "to"] as const satisfies ReadonlyArray<keyof PaymentFilters>

export const PAGE_SIZE = 20

export const KINDS = [
  { value: "payment", label: "Payment" },
  { value: "top_up", label: "Top-up" },
  { value: "refund", label: "Refund" },
]

/** The service's statuses and the ledger's own, as the list filters on them. */
export const STATUSES = [
  "waiting",
  "pending",
  "processing",
  "settling",
  "settled",
  "review",
  "refund",
  "refunding",
  "refunded",
  "expired",
  "multiple",
  "address_needed",
  "creating",
  "paid_manually",
  "payment_unknown",
]

/** What each reason asks of the merchant, as the list's attention column and filter name it. */
export const ATTENTION_LABELS: Record<AttentionReason, string> = {
  refund_paid_twice: "Refund paid twice",
  refund_cost_asked: "Refund costs more than its value",
  action_stopped: "Action stopped retrying",
  paid_no_order: "Paid, no order placed",
  paid_without_session: "Paid after switching coins",
  underpaid_held: "Underpayment held",
  short_after_order: "Order placed, settled short",
  order_unpaid: "Order placed, deposit sent back",
  deposit_address_needed: "Deposit waits for a refund address",
  refund_owed: "Paid after cancel: owed",
  refund_payment_unknown: "Refund of an unknown payment",
  refund_address_needed: "Refund needs an address",
  refund_expired: "Refund shift expired",
  refund_sent_back: "Refund deposit sent back",
  refund_short: "Refund paid short",
}

const DAY = /^\d{4}-\d{2}-\d{2}$/

/** The filters and the page offset from the URL query; anything malformed is left out, not sent. */
export function usePaymentFilters() {
  const [params, setParams] = useSearchParams()

  const filters = useMemo(() => {
    const read: PaymentFilters = {}
    for (const key of FILTER_KEYS) {
      const value = params.get(key)?.trim()
      if (!value) continue
      if ((key === "from" || key === "to") && !DAY.test(value)) continue
      read[key] = value
    }
    return read
  }, [params])
  const offset = Math.max(0, Math.floor(Number(params.get("offset") ?? 0)) || 0)
  // Rows a page: 20, or `?limit=` (1-500, as the route takes) for a longer page.
  const limit = Math.min(500, Math.max(1, Math.floor(Number(params.get("limit") ?? PAGE_SIZE)) || PAGE_SIZE))

  /**
   * The query the page last asked for. The router hands `setParams` the query of the render it was
   * made in, and renders a navigation later, so two changes before that render (two date fields filled
   * in a row) would lose the first: each change starts from the last one asked for instead. A render
   * of a query the page did not ask for (the back button, a link) starts over from it.
   */
  const current = params.toString()
  const latest = useRef({ wanted: current, pending: [] as string[] })
  // In an effect, not while rendering: the router renders a navigation as a transition, which React may
  // set aside for a more urgent render of the query before it; only a committed query counts.
  useEffect(() => {
    const asked = latest.current.pending.indexOf(current)
    latest.current =
      asked >= 0 ? { wanted: latest.current.wanted, pending: latest.current.pending.slice(asked + 1) } : { wanted: current, pending: [] }
  }, [current])

  const update = useCallback(
    (change: (next: URLSearchParams) => void, replace: boolean) => {
      const next = new URLSearchParams(latest.current.wanted)
      change(next)
      latest.current.wanted = next.toString()
      latest.current.pending = [...latest.current.pending, next.toString()].slice(-20)
      setParams(next, { replace })
    },
    [setParams]
  )

  /** Sets (or clears, with "") one or more filters; the list goes back to its first page. */
  const setFilters = useCallback(
    (changes: Partial<Record<(typeof FILTER_KEYS)[number], string>>) =>
      update((next) => {
        for (const [key, value] of Object.entries(changes)) {
          if (value) next.set(key, value)
          else next.delete(key)
        }
        next.delete("offset")
      }, true),
    [update]
  )

  const setOffset = useCallback(
    (value: number) =>
      update((next) => {
        if (value > 0) next.set("offset", String(value))
        else next.delete("offset")
      }, false),
    [update]
  )

  const clear = useCallback(() => update((next) => [...FILTER_KEYS, "offset"].forEach((key) => next.delete(key)), true), [update])

  return { filters, offset, limit, setFilters, setOffset, clear }
}

/** Today as a UTC day (the export's and filters' days are UTC). */
export function todayUtc(): string {
  return new Date().toISOString().slice(0, 10)
}

/**
 * The date range the export covers: the one shown. An open start is the beginning of time for the
 * ledger; an open end is today, which (as a day) includes all of it.
 */
export function exportRange(filters: PaymentFilters): { from: string; to: string } {
  return { from: filters.from ?? "2000-01-01", to: filters.to ?? todayUtc() }
}
