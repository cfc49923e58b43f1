/**
 * The shapes the plugin's admin routes answer with (src/api/admin/crypto-swap). Kept by hand: the
 * admin bundle can't import server code. Dates arrive as ISO strings, amounts as exact decimal strings.
 */

/** A top-up pays the rest of an underpaid payment, for the same order. */
export type ShiftKind = "payment" | "refund" | "top_up"

/** The service's status, plus the ledger's own (address_needed, paid_manually, payment_unknown); unknown strings pass through. */
export type ShiftStatus =
  | "waiting"
  | "pending"
  | "processing"
  | "settling"
  | "settled"
  | "review"
  | "refund"
  | "refunding"
  | "refunded"
  | "expired"
  | "multiple"
  | "address_needed"
  | "paid_manually"
  | "payment_unknown"
  | (string & {})

export type EventSource = "create" | "poll" | "webhook" | "storefront" | "admin"

export type ShiftEvent = {
  id: string
  from_status: string | null
  to_status: string
  issue: string | null
  source: EventSource
  /** authorized, captured, canceled, flagged, marked_refunded ... or null when nothing was done. */
  action: string | null
  occurred_at: string
}

export type TransactionLink = { hash: string; url: string | null }

export type ShiftView = {
  headline: string
  next_step: string
  payment_uri: string | null
  /** A wallet link with the amount (EIP-681, Solana Pay, BIP-21); null where no standard fits. */
  wallet_uri: string | null
  /** Generated server-side by the `qrcode` library from the payment URI. */
  qr_svg: string | null
  /** The QR code's text alternative: coin, amount and address. */
  qr_alt: string | null
  transactions: {
    deposit: TransactionLink | null
    settle: TransactionLink | null
    /** Once a deposit goes back, the service's refund transaction (on the deposit network). */
    refund?: TransactionLink | null
  }
  /** The EVM re-sweep caveat: there the deposit hash may be the service's sweep transaction. */
  sweep_note: string | null
  refund?: { address_needed: boolean; address: string | null }
  /** A variable shift's estimate: about what to send (for a refund, what pays the shopper their share). */
  deposit?: { estimate: string | null }
}

/** Flag values are truthy when raised; null means the flag was raised once and cleared since. */
export type ShiftFlags = {
  review?: unknown
  address_needed?: unknown
  refunded?: unknown
  underpaid?: unknown
  overpaid?: unknown
  [flag: string]: unknown
}

/** One ledger row as `GET /admin/crypto-swap/orders/:id` answers it. */
export type Shift = {
  /** Ledger id: what the shift routes take. */
  id: string
  /** The service's id; null until a hosted checkout's payer picked a coin, or a refund has its address. */
  shift_id: string | null
  kind: ShiftKind
  type: string | null
  provider_id: string | null
  payment_id?: string | null
  payment_session_id?: string | null
  status: ShiftStatus
  issue: string | null
  terminal?: boolean
  deposit_coin: string | null
  deposit_network: string | null
  deposit_address: string | null
  deposit_memo: string | null
  deposit_amount: string | null
  deposit_min: string | null
  deposit_max: string | null
  settle_coin: string | null
  settle_network: string | null
  settle_address: string | null
  settle_amount: string | null
  refund_address: string | null
  refund_memo?: string | null
  /** What the order is owed, in the store currency. */
  amount_due: string | null
  currency_code: string | null
  expires_at: string | null
  deposit_hash: string | null
  settle_hash: string | null
  deposits: unknown[] | null
  flags: ShiftFlags | null
  authorized_at: string | null
  captured_at: string | null
  canceled_at: string | null
  last_synced_at: string | null
  last_error: string | null
  events: ShiftEvent[]
  view: ShiftView
}

export type OrderShiftsResponse = { order_id: string; shifts: Shift[] }

/** `POST /admin/crypto-swap/shifts/:id/{sync,cancel,refund-address}`. */
export type ShiftActionResponse = { shift: Shift; sync_error: string | null }

export type RefundAddressInput = { address: string; memo?: string }

export type ProviderHealth = {
  provider_id: string
  mode: string
  settlement: Record<string, { coin: string; network: string; address: string; memo?: string | null }>
  /** `valid: null` means the check could not be made (the service did not answer), not that the key is bad. */
  credentials: { valid: boolean | null; error: string | null; checked_with?: string | null }
  permissions: { create_shift: boolean | null; for_ip?: string | null }
  catalogue_age_seconds: number | null
}

export type ReconciliationRun = {
  started_at: string
  duration_ms: number
  discovered: number
  due: number
  read: number
  changed: number
  failed: number
  deferred: number
}

export type StuckShift = { id: string; status: string; sync_failures: number; expires_at: string | null }

/** A shift paid after the shopper switched to another session: the merchant owes the money back. */
export type PaidWithoutSession = {
  id: string
  status: string
  deposit_amount: string | null
  deposit_coin: string | null
  deposit_network: string | null
  cart_id: string | null
  refund_address: string | null
}

/**
 * A variable deposit that settles (or settled) short of the amount due: no order was placed, or (`order_id`)
 * one was placed on the amount expected before it settled short. `credit`: what its top-ups brought;
 * `held`: its wait for a top-up ran out and it waits for the merchant's decision.
 */
export type Underpaid = PaidWithoutSession & {
  underpaid: string
  amount_due: string | null
  currency_code: string | null
  credit: string | null
  held: boolean
  order_id: string | null
}

export type Webhook = { id: string; provider_id: string; hook_id: string; target_url: string; enabled: boolean }

export type RequestMetrics = { count: number; errors: number; errorRate: number; p50Ms: number; p95Ms: number }

/**
 * Upstream calls of the answering process, per `METHOD /path/:template`. The recorder names the map
 * `byEndpoint`; `byPath` is accepted too so the page reads either.
 */
export type UpstreamMetrics = RequestMetrics & {
  byEndpoint?: Record<string, RequestMetrics>
  byPath?: Record<string, RequestMetrics>
}

/** `GET /admin/crypto-swap/status`. */
export type PluginStatus = {
  providers: ProviderHealth[]
  reconciliation: { last_run: ReconciliationRun | null }
  open_shifts: { total: number; by_status: Record<string, number> }
  stuck_shifts: StuckShift[]
  paid_without_session: PaidWithoutSession[]
  underpaid: Underpaid[]
  attention: AttentionItem[]
  paid_no_order: PaidNoOrder[]
  refund_owed: RefundOwed[]
  refunds: OpenRefund[]
  webhooks: Webhook[]
  upstream: UpstreamMetrics
  /** How many stuck shifts and stopped actions there are in all, and which page of each was sent. */
  pages: Record<PagedStatusList, { count: number; limit: number; offset: number }>
}

/** The status route's lists that come a page at a time. */
export type PagedStatusList = "stuck_shifts" | "attention"

/** Where each paged list of the status starts. */
export type StatusPages = Record<PagedStatusList, number>

/** An action of a shift that stopped retrying after too many failed attempts. */
export type AttentionItem = {
  id: string
  status: string
  order_id: string | null
  cart_id: string | null
  action: string
  attempts: number
  last_error: string | null
  since: string
  /** A refund's shift that would ask this much of its deposit coin: waits for the merchant to approve it, not for a retry. */
  refund_cost_asked: string | null
  refund_cost_coin: string | null
}

/** A confirmed deposit whose order could not be placed: retry placing it, or refund instead. */
export type PaidNoOrder = {
  id: string
  status: string
  cart_id: string | null
  paid_no_order_since: string
  deposit_coin: string | null
  deposit_network: string | null
  deposit_amount: string | null
  amount_due: string | null
  currency_code: string | null
  attempts: number
  last_error: string | null
  next_attempt_at: string | null
}

/** A shift that settled after its payment was canceled: the merchant holds money no order keeps. */
export type RefundOwed = {
  id: string
  status: string
  order_id: string | null
  cart_id: string | null
  refund_owed: string
  /** With the top-ups credited to it, which go back with it. */
  owed_total: string
  settle_coin: string | null
  settle_network: string | null
  refund_address: string | null
}

/** A refund still to reach the shopper: the refund shift to fund, or one that expired unfunded. */
export type OpenRefund = {
  id: string
  status: string
  order_id: string | null
  refund_id: string | null
  amount_due: string | null
  currency_code: string | null
  deposit_amount: string | null
  deposit_coin: string | null
  deposit_network: string | null
  deposit_address: string | null
  deposit_memo: string | null
  expires_at: string | null
  refund_address: string | null
  /** A variable-rate refund shift: about what to send (no exact amount). */
  deposit_estimate: string | null
  /** A variable-rate refund shift paid the shopper less than owed: what is still owed, in `refund_short_coin`. */
  refund_short: string | null
  refund_short_coin: string | null
  /** Where the merchant's deposit to the refund shift stands when it goes back (`refunded`: all of it is back). */
  sent_back: string | null
}

export type RegisterWebhookInput = { provider_id: string; backend_url: string }

/** Why a ledger row needs the merchant (`GET /admin/crypto-swap/payments`), first reason first. */
export type AttentionReason =
  | "refund_paid_twice"
  | "refund_cost_asked"
  | "action_stopped"
  | "paid_no_order"
  | "paid_without_session"
  | "underpaid_held"
  | "short_after_order"
  | "order_unpaid"
  | "deposit_address_needed"
  | "refund_owed"
  | "refund_payment_unknown"
  | "refund_address_needed"
  | "refund_expired"
  | "refund_sent_back"
  | "refund_short"

/** One payment, top-up or refund shift as the payments list answers it: a line of the accounting export. */
export type PaymentLine = {
  /** A refund's shift that would ask this much of its deposit coin, waiting for the merchant's approval. */
  refund_cost_asked: string | null
  id: string
  kind: ShiftKind
  order_display_id: number | null
  order_id: string | null
  created_at: string
  captured_at: string | null
  expires_at: string | null
  /** fixed, variable, or checkout. */
  type: string | null
  status: ShiftStatus
  attention: AttentionReason | null
  amount_due: string | null
  currency_code: string | null
  deposit_coin: string | null
  deposit_network: string | null
  deposit_amount: string | null
  deposit_hash: string | null
  deposit_tx_url: string | null
  settle_coin: string | null
  settle_network: string | null
  settle_amount: string | null
  settle_hash: string | null
  settle_tx_url: string | null
  rate: string | null
  /** A settled payment or top-up: settled less due, in the store currency. */
  difference: string | null
  shift_id: string | null
  refund_id: string | null
  refund_of_shift_id: string | null
}

export type PaymentsResponse = { payments: PaymentLine[]; count: number; limit: number; offset: number }

/** The payments page's filters, as the list and totals routes take them (absent: no filter). */
export type PaymentFilters = {
  status?: string
  kind?: string
  /** "true", "false" or a reason. */
  attention?: string
  coin?: string
  /** A day (YYYY-MM-DD, UTC); `to` includes that whole day. */
  from?: string
  to?: string
  q?: string
}

export type PaymentTotals = {
  by_currency: Array<{ currency_code: string; due: string; received: string; refunded: string; outstanding: string }>
  by_settle_coin: Array<{ coin: string; network: string | null; received: string; refunded: string; outstanding: string }>
}

export type ExportFormat = "csv" | "json"
