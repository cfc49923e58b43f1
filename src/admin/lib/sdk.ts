import Medusa from "@medusajs/js-sdk"
import type {
  ExportFormat,
  OrderShiftsResponse,
  PaymentFilters,
  PaymentsResponse,
  PaymentTotals,
  PluginStatus,
  RefundAddressInput,
  RegisterWebhookInput,
  Shift,
  ShiftActionResponse,
  StatusPages,
  Webhook,
} from "./types"

/**
 * The backend URL the store's admin build defines. `import.meta.env.VITE_BACKEND_URL` would be frozen
 * into this plugin's bundle at `plugin:build` time instead (Medusa's docs: plugins use `__BACKEND_URL__`).
 * The typeof guard keeps the module loadable where nothing defines it (tests, storybooks).
 */
const backendUrl = typeof __BACKEND_URL__ !== "undefined" && __BACKEND_URL__ ? __BACKEND_URL__ : "/"

/** The admin's session cookie authenticates these calls, as it does the dashboard's own. */
export const sdk = new Medusa({
  baseUrl: backendUrl,
  auth: { type: "session" },
})

const BASE = "/admin/crypto-swap"

/** Rows per page of the settings page's stuck and attention lists. */
export const STATUS_PAGE_SIZE = 20

/** Ledger ids are ours, but encoding keeps a stray character from changing the route. */
const segment = (id: string) => encodeURIComponent(id)

/** Filters as query parameters: empty ones left out (the routes refuse an empty value). */
function filterQuery(filters: PaymentFilters): Record<string, string> {
  return Object.fromEntries(Object.entries(filters).filter((entry): entry is [string, string] => typeof entry[1] === "string" && entry[1].trim() !== ""))
}

/** The file name the export route gives in its Content-Disposition, or one of the same form. */
function attachmentName(response: Response, fallback: string): string {
  const match = /filename="([^"]+)"/.exec(response.headers.get("content-disposition") ?? "")
  return match?.[1] ?? fallback
}

function post<T>(path: string, body: Record<string, unknown>): Promise<T> {
  return sdk.client.fetch<T>(path, { method: "POST", body })
}

/** Typed calls to the plugin's admin routes (src/api/admin/crypto-swap). */
export const cryptoSwapApi = {
  orderShifts: (orderId: string) => sdk.client.fetch<OrderShiftsResponse>(`${BASE}/orders/${segment(orderId)}`),

  syncShift: (ledgerId: string) => post<ShiftActionResponse>(`${BASE}/shifts/${segment(ledgerId)}/sync`, {}),

  cancelShift: (ledgerId: string) => post<ShiftActionResponse>(`${BASE}/shifts/${segment(ledgerId)}/cancel`, {}),

  setRefundAddress: (ledgerId: string, input: RefundAddressInput) =>
    post<ShiftActionResponse>(`${BASE}/shifts/${segment(ledgerId)}/refund-address`, {
      address: input.address,
      // The route is strict: an empty memo is refused, an absent one is fine.
      ...(input.memo ? { memo: input.memo } : {}),
    }),

  /** The manual refund mode: the merchant paid the shopper back by other means. */
  markRefunded: (ledgerId: string) => post<ShiftActionResponse>(`${BASE}/shifts/${segment(ledgerId)}/mark-refunded`, {}),

  /** A refund paid twice (marked paid by other means, and funded too): the merchant dealt with it. */
  resolvePaidTwice: (ledgerId: string) => post<ShiftActionResponse>(`${BASE}/shifts/${segment(ledgerId)}/resolve-paid-twice`, {}),

  /** A refund shift expired before it was funded: a new one for the same refund. */
  renewRefund: (ledgerId: string) => post<ShiftActionResponse>(`${BASE}/shifts/${segment(ledgerId)}/renew-refund`, {}),

  retryShift: (ledgerId: string) => post<ShiftActionResponse>(`${BASE}/shifts/${segment(ledgerId)}/retry`, {}),

  refundInstead: (ledgerId: string) => post<ShiftActionResponse>(`${BASE}/shifts/${segment(ledgerId)}/refund-instead`, {}),

  /** A refund's shift asking more than its value allows: the merchant approves that cost (`cost`, as shown), and it is made. */
  approveRefundCost: (ledgerId: string, cost?: string) => post<ShiftActionResponse>(`${BASE}/shifts/${segment(ledgerId)}/approve-refund-cost`, { cost }),

  /** A short payment taken as paid: its order is placed and captured. */
  acceptUnderpayment: (ledgerId: string) => post<ShiftActionResponse>(`${BASE}/shifts/${segment(ledgerId)}/accept-underpayment`, {}),

  refundHeld: (ledgerId: string) =>
    post<{ refund: Shift; sync_error: string | null }>(`${BASE}/shifts/${segment(ledgerId)}/refund`, {}).then(({ refund, sync_error }) => ({
      shift: refund,
      sync_error,
    })),

  /** The plugin's health, with the stuck and attention lists from the given offsets (a page each). */
  status: (pages: StatusPages) =>
    sdk.client.fetch<PluginStatus>(`${BASE}/status`, {
      query: { stuck_limit: STATUS_PAGE_SIZE, stuck_offset: pages.stuck_shifts, attention_limit: STATUS_PAGE_SIZE, attention_offset: pages.attention },
    }),

  /** One page of every payment, top-up and refund shift, newest first. */
  payments: (filters: PaymentFilters, page: { limit: number; offset: number }) =>
    sdk.client.fetch<PaymentsResponse>(`${BASE}/payments`, {
      query: { ...filterQuery(filters), limit: page.limit, offset: page.offset },
    }),

  paymentTotals: (filters: PaymentFilters) => sdk.client.fetch<PaymentTotals>(`${BASE}/payments/totals`, { query: filterQuery(filters) }),

  /**
   * The accounting export of a date range as a file. Read through the SDK (the session cookie, and the
   * backend's URL when the admin is served elsewhere); a non-JSON `accept` makes it hand back the response.
   */
  exportFile: async (range: { from: string; to: string }, format: ExportFormat) => {
    const response = (await sdk.client.fetch<Response>(`${BASE}/export`, {
      query: { from: range.from, to: range.to, format },
      headers: { accept: format === "csv" ? "text/csv" : "application/octet-stream" },
    })) as unknown as Response
    return { blob: await response.blob(), fileName: attachmentName(response, `crypto-payments-${range.from}-${range.to}.${format}`) }
  },

  registerWebhook: (input: RegisterWebhookInput) => post<{ webhook: Webhook }>(`${BASE}/webhooks`, input),
}

/** The fields the refund form needs: each payment with what was already refunded. */
const ORDER_PAYMENT_FIELDS =
  "id,currency_code,*payment_collections,*payment_collections.payments,*payment_collections.payments.refunds"

/** Medusa's own routes, through the SDK's typed admin client. */
export const medusaApi = {
  orderPayments: (orderId: string) => sdk.admin.order.retrieve(orderId, { fields: ORDER_PAYMENT_FIELDS }),

  /** Medusa's standard refund: the provider records it and the plugin then makes the refund shift. */
  refundPayment: (paymentId: string, amount: number) => sdk.admin.payment.refund(paymentId, { amount }),
}

/** Routes answer errors as `{ message }`, which the SDK throws as a FetchError (an Error) with that message. */
export function errorMessage(error: unknown): string {
  return error instanceof Error && error.message ? error.message : "The request failed"
}
