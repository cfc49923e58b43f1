import type { CryptoSwapOptions } from "../options"
import { decideStatus, statusPolicy, type ShiftLike, type StatusDecision } from "./status-map"
import type { Shift } from "../swap-service"
import { isTerminal } from "./shift-actions"
import { paidFigures, refundShortfall } from "./refund-quote"
import { creditedAmount } from "./underpayment"

const toDate = (value: string | null | undefined) => (value ? new Date(value) : null)

/**
 * The ledger columns a shift as the service describes it fills. A deposit address is kept once
 * known: the service may recycle it and answer null long after the shift ended. What the row knew of
 * another shift (a hosted checkout's payer switched coins) is not carried over: that address and the
 * refund address given for it belong to the other shift's coin.
 */
export function ledgerFieldsFromShift(shift: Shift, row: {
    kind?: "payment" | "refund" | "top_up" | null
    shift_id?: string | null
    deposit_address?: string | null
    type?: string | null
    refund_address?: string | null
    refund_memo?: string | null
  } = {}) {
  const known: typeof row = row.shift_id && row.shift_id !== shift.id ? { type: row.type } : row
  // A refund shift funded in several deposits (`multiple`, whose top-level figures the service leaves out):
  // what the merchant sent and the shopper got, in all, for its totals and its notice.
  const refundPaid = row.kind === "refund" && shift.status === "multiple" ? paidFigures({ status: shift.status, deposits: shift.deposits, deposit_amount: null, settle_amount: null }) : null
  return {
    shift_id: shift.id,
    type: known.type === "checkout" ? "checkout" : shift.type ?? known.type ?? null,
    deposit_coin: shift.depositCoin ?? null,
    deposit_network: shift.depositNetwork ?? null,
    deposit_address: known.deposit_address ?? shift.depositAddress ?? null,
    deposit_memo: shift.depositMemo ?? null,
    deposit_amount: refundPaid?.deposit_amount ?? shift.depositAmount ?? null,
    deposit_min: shift.depositMin ?? null,
    deposit_max: shift.depositMax ?? null,
    settle_coin: shift.settleCoin ?? null,
    settle_network: shift.settleNetwork ?? null,
    settle_address: shift.settleAddress ?? null,
    settle_memo: shift.settleMemo ?? null,
    settle_amount: refundPaid?.settle_amount ?? shift.settleAmount ?? null,
    // An address the shopper gave us stays until the service has one of its own. A refund shift's is
    // where the refund goes (the shift's settle address): its own refund address is the merchant's.
    ...(row.kind === "refund"
      ? { refund_address: row.refund_address ?? shift.settleAddress ?? null, refund_memo: row.refund_memo ?? shift.settleMemo ?? null }
      : { refund_address: shift.refundAddress ?? known.refund_address ?? null, refund_memo: shift.refundMemo ?? known.refund_memo ?? null }),
    rate: shift.rate ?? null,
    expires_at: toDate(shift.expiresAt),
    status: shift.status,
    issue: shift.issue ?? null,
    deposits: (shift.deposits as unknown as Record<string, unknown>) ?? null,
    deposit_hash: shift.depositHash ?? null,
    settle_hash: shift.settleHash ?? null,
    snapshot: shift as unknown as Record<string, unknown>,
    terminal: isTerminal(shift),
  }
}

type RowKind = { kind?: "payment" | "refund" | "top_up" | null; amount_due: string | null; credit?: string | null; flags?: Record<string, unknown> | null }

/**
 * What a shift's status means for the ledger row it belongs to. A refund shift pays the shopper's coin,
 * so nothing is "due" in it to fall short of; once it settles, the shopper is refunded. When the service
 * sends its deposit back instead (a wrong amount, too late), that is the merchant's money going home:
 * nothing reached the shopper, and the refund is still owed.
 */
export function decideShift(shift: ShiftLike, row: RowKind, options: CryptoSwapOptions): StatusDecision {
  if (row.kind !== "refund") {
    const forgiven = typeof row.flags?.accepted_short === "string" ? row.flags.accepted_short : null
    return decideStatus(shift, statusPolicy(options, row.amount_due ?? "0", row.credit, forgiven))
  }
  const decision = decideStatus(shift, statusPolicy(options, "0"))
  if (decision.stage === "settled") {
    // A variable-rate refund pays the shopper what the merchant sent: short of its target, it is still owed.
    const refundShort = refundShortfall(shift, row.flags)
    if (refundShort === "unknown") return { ...decision, stage: "unknown" }
    return refundShort ? { ...decision, stage: "underpaid", refundShort } : { ...decision, stage: "refunded" }
  }
  return decision.stage === "refunded" ? { ...decision, stage: "refund" } : decision
}

/** Where a ledger row's payment (or refund) stands, decided from what the service last said. */
export function decideLedgerRow(
  row: RowKind & {
    status: string
    type: string | null
    settle_amount: string | null
    deposit_amount?: string | null
    rate?: string | null
    deposits: unknown
  },
  options: CryptoSwapOptions
) {
  return decideShift(
    {
      status: row.status,
      type: row.type,
      settleAmount: row.settle_amount,
      depositAmount: row.deposit_amount,
      rate: row.rate,
      deposits: row.deposits as ShiftLike["deposits"],
    },
    row,
    options
  )
}

/**
 * What a top-up brings its payment: what it counted once credited (a deposit to its address since is apart,
 * refunded on its own), else what it settled. Counted toward the payment, and given back with it.
 */
export function topUpAmount(topUp: Parameters<typeof decideLedgerRow>[0], options: CryptoSwapOptions): string | null {
  return creditedAmount(topUp) ?? decideLedgerRow(topUp, options).settledAmount ?? null
}
