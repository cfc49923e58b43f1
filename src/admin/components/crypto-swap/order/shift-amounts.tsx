import { coinAmount, coinLabel, formatDateTime, moneyAmount } from "../../../lib/format"
import type { Shift } from "../../../lib/types"
import { DetailRow } from "../detail-row"

/** A variable-rate shift has a range until something is deposited; a fixed one an exact amount. */
function depositAmountText(shift: Shift): string {
  if (shift.deposit_amount) return coinAmount(shift.deposit_amount, shift.deposit_coin)
  if (shift.deposit_min || shift.deposit_max) {
    return `${shift.deposit_min ?? "?"} – ${shift.deposit_max ?? "?"} ${shift.deposit_coin ?? ""}`.trim()
  }
  return "-"
}

/**
 * What goes in and what comes out. For a payment the shopper deposits and the store is settled; for a
 * refund shift it is the other way round, so the labels say who.
 */
export function ShiftAmounts({ shift }: { shift: Shift }) {
  const refund = shift.kind === "refund"
  return (
    <div data-testid="crypto-swap-amounts">
      <DetailRow label={refund ? "Store owes" : "Order amount due"}>{moneyAmount(shift.amount_due, shift.currency_code)}</DetailRow>
      <DetailRow label={refund ? "Store deposits" : "Shopper deposits"} testId="crypto-swap-deposit">
        {depositAmountText(shift)} · {coinLabel(shift.deposit_coin, shift.deposit_network)}
      </DetailRow>
      <DetailRow label={refund ? "Shopper receives" : "Store receives"} testId="crypto-swap-settle">
        {/* A refund shift is variable-rate: what the shopper gets is known once the store's deposit converts. */}
        {refund && !shift.settle_amount ? "What the store's deposit converts to" : coinAmount(shift.settle_amount, shift.settle_coin)} ·{" "}
        {coinLabel(shift.settle_coin, shift.settle_network)}
      </DetailRow>
      {shift.settle_address ? (
        <DetailRow label={refund ? "Shopper's address" : "Settlement address"} copy={shift.settle_address}>
          {shift.settle_address}
        </DetailRow>
      ) : null}
      {shift.expires_at && shift.status === "waiting" ? (
        <DetailRow label="Deposit deadline">{formatDateTime(shift.expires_at)}</DetailRow>
      ) : null}
    </div>
  )
}
