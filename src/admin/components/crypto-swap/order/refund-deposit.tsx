import { Text } from "@medusajs/ui"
import { moneyAmount } from "../../../lib/format"
import type { Shift } from "../../../lib/types"
import { DetailRow } from "../detail-row"

/** Fixed size whatever the SVG says; the SVG has only a viewBox, so it fills the box's width. */
const QR_BOX = { width: 168, height: 168 }

/**
 * A fixed refund shift takes its exact amount. A variable one takes anything within the service's range: the
 * guide is the estimate of what pays the shopper their share (or, paid short, the rest its headline names).
 */
function amountToSend(shift: Shift): string {
  const coin = shift.deposit_coin ?? ""
  if (shift.type !== "variable") return `${shift.deposit_amount ?? "?"} ${coin}`.trim()
  const range = `${shift.deposit_min ?? "?"} – ${shift.deposit_max ?? "?"} ${coin}`.trim()
  if (shift.flags?.refund_short) return `the rest, as above (accepted: ${range})`
  const estimate = shift.view.deposit?.estimate
  if (estimate) return `about ${estimate} ${coin} (accepted: ${range})`
  return shift.amount_due ? `the value of ${moneyAmount(shift.amount_due, shift.currency_code)} (accepted: ${range})` : range
}

/**
 * What the merchant sends to fund a refund: address, memo, range and a QR code for a wallet app.
 * Anything sent wrongly goes back to the store's settlement address, which is why only this address counts.
 */
export function RefundDeposit({ shift }: { shift: Shift }) {
  if (!shift.deposit_address) return null
  return (
    <div className="bg-ui-bg-subtle rounded-lg p-3" data-testid="crypto-swap-refund-deposit">
      <Text size="small" weight="plus" className="pb-2">
        Fund the refund
      </Text>
      <div className="flex flex-col gap-4 sm:flex-row">
        <div className="min-w-0 flex-1">
          <DetailRow label="Send" testId="crypto-swap-refund-deposit-range">
            {amountToSend(shift)} on {shift.deposit_network ?? "?"}
          </DetailRow>
          <DetailRow label="To address" copy={shift.deposit_address} testId="crypto-swap-refund-deposit-address">
            {shift.deposit_address}
          </DetailRow>
          {shift.deposit_memo ? (
            <DetailRow label="Memo (required)" copy={shift.deposit_memo} testId="crypto-swap-refund-deposit-memo">
              {shift.deposit_memo}
            </DetailRow>
          ) : null}
          {shift.view.wallet_uri ? (
            <DetailRow label="Wallet link" copy={shift.view.wallet_uri}>
              <a href={shift.view.wallet_uri} className="text-ui-fg-interactive hover:text-ui-fg-interactive-hover">
                Open in wallet
              </a>
            </DetailRow>
          ) : null}
          <Text size="xsmall" className="text-ui-fg-muted pt-1">
            {shift.view.next_step}
          </Text>
        </div>
        {shift.view.qr_svg ? (
          // The SVG is made server-side by the `qrcode` library from the payment URI, not from user input.
          <div
            className="shrink-0 overflow-hidden rounded-md bg-white p-1"
            style={QR_BOX}
            data-testid="crypto-swap-qr"
            role="img"
            aria-label={shift.view.qr_alt ?? "QR code of the deposit address"}
            dangerouslySetInnerHTML={{ __html: shift.view.qr_svg }}
          />
        ) : null}
      </div>
    </div>
  )
}
