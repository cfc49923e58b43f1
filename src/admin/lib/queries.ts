import { useCallback, useEffect, useState } from "react"
import { keepPreviousData, useMutation, useQuery, useQueryClient } from "@tanstack/react-query"
import { toast } from "@medusajs/ui"
import { cryptoSwapApi, errorMessage, medusaApi } from "./sdk"
import type {
  ExportFormat,
  OrderShiftsResponse,
  PaymentFilters,
  RefundAddressInput,
  RegisterWebhookInput,
  Shift,
  ShiftActionResponse,
  StatusPages,
} from "./types"

/**
 * React Query hooks over the SDK helpers. The dashboard provides the QueryClient (the plugin build
 * leaves `@tanstack/react-query` external, so the store's single copy is used).
 */
export const cryptoSwapKeys = {
  all: ["crypto-swap"] as const,
  order: (orderId: string) => ["crypto-swap", "order", orderId] as const,
  orderPayments: (orderId: string) => ["crypto-swap", "order-payments", orderId] as const,
  /** The status under every paging: all refetched after an action. */
  status: () => ["crypto-swap", "status"] as const,
  statusPage: (pages: StatusPages) => ["crypto-swap", "status", pages] as const,
  /** The payments page's list and totals: every key under it is refetched after an action. */
  payments: () => ["crypto-swap", "payments"] as const,
  paymentList: (filters: PaymentFilters, page: { limit: number; offset: number }) => ["crypto-swap", "payments", "list", filters, page] as const,
  paymentTotals: (filters: PaymentFilters) => ["crypto-swap", "payments", "totals", filters] as const,
}

/** Open shifts move on their own (the reconciliation job syncs them), so the widget follows along. */
const OPEN_SHIFT_POLL_MS = 15_000
/** Right after a refund the refund shift is made by a subscriber, a moment later: look sooner. */
const AFTER_REFUND_POLL_MS = 3_000

/** How long to look sooner for a refund shift before falling back to the normal cadence. */
const AFTER_REFUND_WINDOW_MS = 30_000

/**
 * The order's shifts, refetched while any is open. `expectNewShift()` (after recording a refund)
 * polls faster until a new shift appears or the window passes.
 */
export function useOrderShifts(orderId: string) {
  // The number of shifts when a refund was recorded; null when no new shift is expected.
  const [baseline, setBaseline] = useState<number | null>(null)
  const query = useQuery({
    queryKey: cryptoSwapKeys.order(orderId),
    queryFn: () => cryptoSwapApi.orderShifts(orderId),
    refetchInterval: (current) => {
      if (baseline !== null) return AFTER_REFUND_POLL_MS
      const shifts = current.state.data?.shifts ?? []
      return shifts.some((shift) => shift.terminal === false) ? OPEN_SHIFT_POLL_MS : false
    },
  })
  const count = query.data?.shifts.length ?? 0

  useEffect(() => {
    if (baseline !== null && count > baseline) setBaseline(null)
  }, [baseline, count])
  useEffect(() => {
    if (baseline === null) return
    const timer = setTimeout(() => setBaseline(null), AFTER_REFUND_WINDOW_MS)
    return () => clearTimeout(timer)
  }, [baseline])

  const expectNewShift = useCallback(() => setBaseline(count), [count])
  return { query, expectNewShift }
}

export function useOrderPayments(orderId: string, enabled: boolean) {
  return useQuery({
    queryKey: cryptoSwapKeys.orderPayments(orderId),
    queryFn: () => medusaApi.orderPayments(orderId).then(({ order }) => order),
    enabled,
  })
}

/** Puts a shift a route answered with into the cached list, so the card updates without a refetch. */
function replaceShift(previous: OrderShiftsResponse | undefined, shift: Shift): OrderShiftsResponse | undefined {
  if (!previous) return previous
  return { ...previous, shifts: previous.shifts.map((existing) => (existing.id === shift.id ? shift : existing)) }
}

type ShiftAction =
  | { kind: "sync"; ledgerId: string }
  | { kind: "cancel"; ledgerId: string }
  | { kind: "refund-address"; ledgerId: string; input: RefundAddressInput }
  | { kind: "mark-refunded"; ledgerId: string }
  | { kind: "renew-refund"; ledgerId: string }
  | { kind: "approve-refund-cost"; ledgerId: string; cost: string }

function runShiftAction(action: ShiftAction): Promise<ShiftActionResponse> {
  switch (action.kind) {
    case "sync":
      return cryptoSwapApi.syncShift(action.ledgerId)
    case "cancel":
      return cryptoSwapApi.cancelShift(action.ledgerId)
    case "refund-address":
      return cryptoSwapApi.setRefundAddress(action.ledgerId, action.input)
    case "mark-refunded":
      return cryptoSwapApi.markRefunded(action.ledgerId)
    case "renew-refund":
      return cryptoSwapApi.renewRefund(action.ledgerId)
    case "approve-refund-cost":
      return cryptoSwapApi.approveRefundCost(action.ledgerId, action.cost)
  }
}

const DONE_MESSAGE: Record<ShiftAction["kind"], string> = {
  sync: "Shift synced",
  cancel: "Shift canceled",
  "refund-address": "Refund address saved",
  "mark-refunded": "Refund recorded as paid by other means",
  "renew-refund": "Refund shift renewed",
  "approve-refund-cost": "Cost approved",
}

/** An approval whose retry did not make the shift (a dearer quote asked again, or the service refused): the error says why. */
const COST_APPROVED_NOT_MADE = "Cost approved, but the refund shift is not made yet"

/**
 * Sync, cancel and refund-address all answer `{ shift, sync_error }`: the action may have worked
 * while the follow-up read from the service failed, which is a warning, not an error.
 */
export function useShiftAction(orderId: string) {
  const queryClient = useQueryClient()
  return useMutation({
    mutationFn: runShiftAction,
    onSuccess: ({ shift, sync_error }, action) => {
      queryClient.setQueryData<OrderShiftsResponse>(cryptoSwapKeys.order(orderId), (previous) => replaceShift(previous, shift))
      if (action.kind === "approve-refund-cost" && sync_error) toast.warning(COST_APPROVED_NOT_MADE, { description: sync_error })
      else if (sync_error) toast.warning(DONE_MESSAGE[action.kind], { description: `The service could not be read: ${sync_error}` })
      else toast.success(DONE_MESSAGE[action.kind], { description: `Status: ${shift.status}` })
      // An action can authorize, capture or cancel the Medusa payment: the order page must show it.
      void queryClient.invalidateQueries({ queryKey: ["orders"] })
    },
    onError: (error) => {
      toast.error("The action failed", { description: errorMessage(error) })
      // A refusal may come from a state the page does not show yet (a cost asked again): it is read again.
      void queryClient.invalidateQueries({ queryKey: cryptoSwapKeys.order(orderId) })
    },
  })
}

export function useRefundViaShift(orderId: string) {
  const queryClient = useQueryClient()
  return useMutation({
    mutationFn: ({ paymentId, amount }: { paymentId: string; amount: number }) => medusaApi.refundPayment(paymentId, amount),
    onSuccess: () => {
      toast.success("Refund recorded", { description: "The refund shift appears below once the plugin has made it." })
      void queryClient.invalidateQueries({ queryKey: cryptoSwapKeys.order(orderId) })
      void queryClient.invalidateQueries({ queryKey: cryptoSwapKeys.orderPayments(orderId) })
      // The dashboard's own order queries ("orders", ...) hold the Payments section.
      void queryClient.invalidateQueries({ queryKey: ["orders"] })
    },
    onError: (error) => toast.error("The refund failed", { description: errorMessage(error) }),
  })
}

/** The plugin's status with each paged list from its offset; the page shown stays while the next loads. */
export function usePluginStatus(pages: StatusPages) {
  return useQuery({ queryKey: cryptoSwapKeys.statusPage(pages), queryFn: () => cryptoSwapApi.status(pages), placeholderData: keepPreviousData })
}

/** `cost`: the refund cost an approval is for (approve-refund-cost only). */
type StatusActionRun = (ledgerId: string, cost?: string) => Promise<ShiftActionResponse>

const STATUS_SHIFT_ACTIONS = {
  sync: { run: cryptoSwapApi.syncShift, done: "Shift synced" },
  retry: { run: cryptoSwapApi.retryShift, done: "Tried again" },
  "refund-instead": { run: cryptoSwapApi.refundInstead, done: "Recorded as owed to the shopper" },
  "refund-held": { run: cryptoSwapApi.refundHeld, done: "Refund shift made: fund it from the refunds list" },
  "accept-underpayment": { run: cryptoSwapApi.acceptUnderpayment, done: "Accepted as paid: the order is placed" },
  "renew-refund": { run: cryptoSwapApi.renewRefund, done: "Refund shift renewed" },
  "mark-refunded": { run: cryptoSwapApi.markRefunded, done: "Refund recorded as paid by other means" },
  "resolve-paid-twice": { run: cryptoSwapApi.resolvePaidTwice, done: "Refund paid twice marked resolved" },
  "approve-refund-cost": { run: cryptoSwapApi.approveRefundCost, done: "Cost approved" },
} satisfies Record<string, { run: StatusActionRun; done: string }>
export type StatusShiftAction = keyof typeof STATUS_SHIFT_ACTIONS

/** After an action from the settings or payments page, both read their lists again. */
function refreshLists(queryClient: ReturnType<typeof useQueryClient>) {
  void queryClient.invalidateQueries({ queryKey: cryptoSwapKeys.status() })
  void queryClient.invalidateQueries({ queryKey: cryptoSwapKeys.payments() })
}

/** Settings and payments page actions on a shift that needs an admin: the lists are read again after. */
export function useStatusShiftAction() {
  const queryClient = useQueryClient()
  return useMutation({
    mutationFn: ({ kind, ledgerId, cost }: { kind: StatusShiftAction; ledgerId: string; cost?: string }) => (STATUS_SHIFT_ACTIONS[kind].run as StatusActionRun)(ledgerId, cost),
    onSuccess: ({ shift, sync_error }, { kind }) => {
      const done = STATUS_SHIFT_ACTIONS[kind].done
      if (sync_error) toast.warning(kind === "approve-refund-cost" ? COST_APPROVED_NOT_MADE : done, { description: sync_error })
      else toast.success(done, { description: `Status: ${shift.status}` })
      refreshLists(queryClient)
    },
    onError: (error) => {
      toast.error("The action failed", { description: errorMessage(error) })
      refreshLists(queryClient)
    },
  })
}

/** A refund address given from a list (a refund shift waiting for one): the lists are read again after. */
export function useListRefundAddress() {
  const queryClient = useQueryClient()
  return useMutation({
    mutationFn: ({ ledgerId, input }: { ledgerId: string; input: RefundAddressInput }) => cryptoSwapApi.setRefundAddress(ledgerId, input),
    onSuccess: ({ shift, sync_error }) => {
      if (sync_error) toast.warning("Refund address saved", { description: `The service could not be read: ${sync_error}` })
      else toast.success("Refund address saved", { description: `Status: ${shift.status}` })
      refreshLists(queryClient)
    },
    onError: (error) => toast.error("The action failed", { description: errorMessage(error) }),
  })
}

/** One page of the payments list; the previous page stays on screen while the next loads. */
export function usePayments(filters: PaymentFilters, page: { limit: number; offset: number }) {
  return useQuery({
    queryKey: cryptoSwapKeys.paymentList(filters, page),
    queryFn: () => cryptoSwapApi.payments(filters, page),
    placeholderData: keepPreviousData,
  })
}

export function usePaymentTotals(filters: PaymentFilters) {
  return useQuery({
    queryKey: cryptoSwapKeys.paymentTotals(filters),
    queryFn: () => cryptoSwapApi.paymentTotals(filters),
    placeholderData: keepPreviousData,
  })
}

/** Saves a Blob under a name, as a link the browser downloads. */
function saveFile(blob: Blob, fileName: string) {
  const url = URL.createObjectURL(blob)
  const link = document.createElement("a")
  link.href = url
  link.download = fileName
  document.body.appendChild(link)
  link.click()
  link.remove()
  // The download has its own copy once started; the URL can go after this task.
  setTimeout(() => URL.revokeObjectURL(url), 0)
}

/** Downloads the accounting export of a date range. */
export function useDownloadExport() {
  return useMutation({
    mutationFn: ({ from, to, format }: { from: string; to: string; format: ExportFormat }) => cryptoSwapApi.exportFile({ from, to }, format),
    onSuccess: ({ blob, fileName }) => saveFile(blob, fileName),
    onError: (error) => toast.error("The export failed", { description: errorMessage(error) }),
  })
}

export function useRegisterWebhook() {
  const queryClient = useQueryClient()
  return useMutation({
    mutationFn: (input: RegisterWebhookInput) => cryptoSwapApi.registerWebhook(input),
    onSuccess: ({ webhook }) => {
      toast.success("Webhook registered", { description: `Hook ${webhook.hook_id}` })
      void queryClient.invalidateQueries({ queryKey: cryptoSwapKeys.status() })
    },
    onError: (error) => toast.error("Registering the webhook failed", { description: errorMessage(error) }),
  })
}
