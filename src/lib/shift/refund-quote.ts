import BigNumber from "bignumber.js"
import type { QuoteRequest } from "../swap-service/client"
import type { CryptoSwapOptions } from "../options"
import { addDecimals, compareDecimals, morePercent, roundUp } from "../money"
import { settledDeposits, type ShiftDepositLike, type ShiftLike } from "./status-map"

/** A refund: the store deposits its settlement coin, the shopper receives the coin they paid with. */
type RefundRow = {
  amount_due: string | null
  deposit_coin: string | null
  deposit_network: string | null
  settle_coin: string | null
  settle_network: string | null
}

/**
 * The payment refunded: what the shopper deposited in their coin, and what it settled to; for a refund of
 * its order, what the order charged for it (`charged`, the amount due).
 */
type PaidRow = { deposit_amount: string | null; settle_amount: string | null; charged?: string | null }

/** A paid ledger row: a `multiple` one (paid again, or re-swept) keeps its figures only deposit by deposit. */
type PaidShiftRow = PaidRow & { status?: string; deposits?: unknown }

/** What a shift was paid and settled to, in all: the sum of its settled deposits when it has several. */
export function paidFigures(row: PaidShiftRow): PaidRow {
  if (row.status !== "multiple") return { deposit_amount: row.deposit_amount, settle_amount: row.settle_amount }
  const settled = settledDeposits({ deposits: Array.isArray(row.deposits) ? (row.deposits as ShiftDepositLike[]) : null })
  if (!settled.length || settled.some((deposit) => !deposit.depositAmount || !deposit.settleAmount)) return { deposit_amount: null, settle_amount: null }
  return {
    deposit_amount: addDecimals(...settled.map((deposit) => deposit.depositAmount!)),
    settle_amount: addDecimals(...settled.map((deposit) => deposit.settleAmount!)),
  }
}

/**
 * What of a top-up its payment counted (`credited_amount`): a deposit sent to it after its credit is refunded
 * apart, so a refund of the order shares only the counted part, at the top-up's own rate.
 */
export function countedFigures(row: PaidShiftRow, credited: string | null): PaidRow {
  const figures = paidFigures(row)
  if (!credited || !figures.deposit_amount || !figures.settle_amount || !new BigNumber(figures.settle_amount).gt(credited)) return figures
  return { deposit_amount: new BigNumber(figures.deposit_amount).times(credited).div(figures.settle_amount).toFixed(), settle_amount: credited }
}

/**
 * A payment with the top-ups that paid its rest: what the shopper deposited in all (top-ups are in the
 * same coin) and what it all settled to, so a refund of the order gives back a share of every deposit.
 */
export function withTopUps(paidRow: PaidShiftRow, topUpRows: PaidShiftRow[]): PaidRow | undefined {
  const [paid, ...topUps] = [paidRow, ...topUpRows].map(paidFigures)
  const known = [paid, ...topUps].filter((row) => row.deposit_amount && row.settle_amount)
  // Unknown figures are not guessed at: the refund can't be priced (and says so) until they are known.
  if (known.length !== topUps.length + 1) return undefined
  const sum = (field: keyof PaidRow) => known.reduce((total, row) => total.plus(row[field]!), new BigNumber(0)).toFixed()
  return { deposit_amount: sum("deposit_amount"), settle_amount: sum("settle_amount") }
}

/**
 * The quote a refund shift is made from, which fixes one side exactly. `store` pays the fees: the shopper
 * receives the refunded share of the coin they deposited (20 of 49.99 settled gives back 20/49.99 of the
 * deposit), rounded up to the coin's precision so they never get less. `shopper` pays them: the store
 * deposits the refunded value in its settlement coin, which the store currency maps onto one to one.
 */
export function refundQuoteRequest(
  refund: RefundRow,
  paid: PaidRow | undefined,
  refundFees: CryptoSwapOptions["refundFees"],
  decimals: { deposit: number; settle: number }
): QuoteRequest {
  const pair = {
    depositCoin: refund.deposit_coin!,
    depositNetwork: refund.deposit_network!,
    settleCoin: refund.settle_coin!,
    settleNetwork: refund.settle_network!,
  }
  if (!refund.amount_due) throw new Error("The refund has no amount")
  // An order charged more than arrived (a shortfall the merchant accepted): each of its refunds is a share of
  // what the order charged, so all of them together give back no more than the shopper paid.
  const shortOfCharged = paid?.charged && paid.settle_amount && new BigNumber(paid.charged).gt(paid.settle_amount)
  if (refundFees === "shopper") {
    const value = shortOfCharged ? new BigNumber(refund.amount_due).times(paid!.settle_amount!).div(paid!.charged!) : new BigNumber(refund.amount_due)
    return { ...pair, depositAmount: roundUp(value.toFixed(), decimals.deposit) }
  }
  if (!paid?.deposit_amount || !paid.settle_amount || new BigNumber(paid.settle_amount).isZero()) {
    throw new Error("The refunded payment's deposit is not known: the refund can't be priced in the shopper's coin")
  }
  const base = shortOfCharged ? paid.charged! : paid.settle_amount
  // Multiplied before dividing, and never more than was deposited.
  const share = BigNumber.min(new BigNumber(paid.deposit_amount).times(refund.amount_due).div(base), paid.deposit_amount)
  return { ...pair, settleAmount: roundUp(share.toFixed(), decimals.settle) }
}

/**
 * What a variable-rate refund shift must reach, kept from its pricing (no quote fixes it): the shopper's
 * coin they receive (`store` pays the fees), or the store's coin it sends (`shopper` pays them).
 */
export type RefundTarget = { settle_amount: string } | { deposit_amount: string }

export function refundTarget(request: QuoteRequest): RefundTarget {
  return request.settleAmount ? { settle_amount: request.settleAmount } : { deposit_amount: request.depositAmount! }
}

/** A row's kept target, if it has one (a fixed refund shift's quote fixed the amount instead). */
export function refundTargetOf(flags: Record<string, unknown> | null | undefined): RefundTarget | null {
  const target = flags?.refund_target as Partial<Record<"settle_amount" | "deposit_amount", unknown>> | null | undefined
  if (typeof target?.settle_amount === "string") return { settle_amount: target.settle_amount }
  if (typeof target?.deposit_amount === "string") return { deposit_amount: target.deposit_amount }
  return null
}

/**
 * What a settled variable-rate refund shift still owes the shopper against its target, in the target's coin:
 * null when it reached it (or has no target), "unknown" while the service leaves out a figure it needs (never
 * guessed: a zero would have the merchant pay again). The merchant may send any amount within the range, more
 * than once while the shift is open: all that settled counts.
 */
export function refundShortfall(shift: ShiftLike, flags: Record<string, unknown> | null | undefined): string | "unknown" | null {
  const target = refundTargetOf(flags)
  if (!target) return null
  const paid = paidFigures({ status: shift.status, deposits: shift.deposits, deposit_amount: shift.depositAmount ?? null, settle_amount: shift.settleAmount ?? null })
  const [wanted, got] = "settle_amount" in target ? [target.settle_amount, paid.settle_amount] : [target.deposit_amount, paid.deposit_amount]
  if (!got) return "unknown"
  const missing = new BigNumber(wanted).minus(got)
  return missing.gt(0) ? missing.toFixed() : null
}

/**
 * How far (percent) a new price may exceed the cost the merchant approved: a variable refund's estimate is
 * priced afresh at each attempt, and would otherwise ask again at every tick of the rate.
 */
const APPROVED_COST_MARGIN_PERCENT = "1"

/**
 * What a refund shift would ask the store to deposit (`deposit`, the refunded payment's settle coin, which
 * the plugin counts 1:1 with the store currency) when it is more than the refund's value allows (more than
 * `limit.percent` above it, and more than `limit.allowance` above it) and more than the merchant approved
 * for it: that cost, for the merchant to approve first; else null.
 */
export function refundCostToApprove(
  refund: { amount_due: string | null; flags?: Record<string, unknown> | null },
  deposit: string,
  limit: { percent: string; allowance: string }
): string | null {
  if (!refund.amount_due) return null
  const allowed = BigNumber.max(morePercent(refund.amount_due, limit.percent), addDecimals(refund.amount_due, limit.allowance))
  if (allowed.gte(deposit)) return null
  const approved = refund.flags?.refund_cost_approved
  if (typeof approved === "string" && compareDecimals(deposit, morePercent(approved, APPROVED_COST_MARGIN_PERCENT)) <= 0) return null
  return deposit
}
