import type { ShiftView } from "../shift-view"
import type { Checkout } from "../state"
import { html, type HtmlFragment } from "./html"

export type DepositOption = { value: string; label: string }

export type PayPageModel = {
  checkout: Checkout
  /** The checkout's latest shift, if the payer already picked a coin. */
  shift?: ShiftView
  depositOptions: DepositOption[]
  error?: string
}

/** Statuses in which the payer may still pick (another) coin. */
const CAN_CHOOSE_COIN = new Set(["waiting", "expired", "refunded"])
/** Statuses that change by themselves soon: the page reloads to show progress. */
const MOVING = new Set(["pending", "processing", "settling", "refunding"])

const STYLE = `
  body { font-family: system-ui, sans-serif; max-width: 40rem; margin: 2rem auto; padding: 0 1rem; color: #1a1a1a; }
  .sandbox { background: #fff3cd; border: 1px solid #e0c36c; padding: .5rem .75rem; border-radius: .25rem; }
  .error { background: #f8d7da; border: 1px solid #e4a1a8; padding: .5rem .75rem; border-radius: .25rem; }
  dl { display: grid; grid-template-columns: max-content 1fr; gap: .25rem 1rem; }
  dt { font-weight: 600; } dd { margin: 0; word-break: break-all; }
  form { margin: 1rem 0; } label { display: block; margin: .5rem 0; }
`

const checkoutPath = (checkout: Checkout, action = "") => `/checkout/${encodeURIComponent(checkout.id)}${action}`

function shiftSection(checkout: Checkout, shift: ShiftView): HtmlFragment {
  return html`<section>
    <h2>Send exactly ${shift.depositAmount} ${shift.depositCoin} on ${shift.depositNetwork}</h2>
    <dl>
      <dt>Deposit address</dt><dd><code>${shift.depositAddress}</code></dd>
      ${shift.depositMemo && html`<dt>Memo (required)</dt><dd><code>${shift.depositMemo}</code></dd>`}
      <dt>Amount</dt><dd>${shift.depositAmount} ${shift.depositCoin}</dd>
      <dt>Pay before</dt><dd>${shift.expiresAt}</dd>
      <dt>Status</dt><dd id="status">${shift.status}</dd>
      ${shift.issue && html`<dt>Issue</dt><dd>${shift.issue}</dd>`}
      <dt>Order</dt><dd><code>${shift.id}</code></dd>
    </dl>
    ${shift.status === "waiting" && html`<form method="post" action="${checkoutPath(checkout, "/simulate-deposit")}">
      <button type="submit">Simulate deposit</button>
      <small>Sandbox only: pretends the payer sent exactly this amount. No real funds move.</small>
    </form>`}
    ${shift.status === "refund" && !shift.refundAddress && html`<form method="post" action="${checkoutPath(checkout, "/refund-address")}">
      <label>Your ${shift.depositCoin} refund address <input name="address" required></label>
      <button type="submit">Refund me</button>
    </form>`}
  </section>`
}

function coinForm(checkout: Checkout, options: DepositOption[]): HtmlFragment {
  if (options.length === 0) {
    return html`<p>No coin can pay this checkout right now.</p>`
  }
  return html`<form method="post" action="${checkoutPath(checkout, "/shifts")}">
    <label>Pay with
      <select name="deposit">${options.map((option) => html`<option value="${option.value}">${option.label}</option>`)}</select>
    </label>
    <label>Refund address (optional) <input name="refundAddress"></label>
    <button type="submit">Get a deposit address</button>
  </form>`
}

/** The hosted pay page: self-contained HTML, no external assets, everything escaped. */
export function renderPayPage({ checkout, shift, depositOptions, error }: PayPageModel): string {
  const status = shift?.status
  const settled = status === "settled"
  return html`<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <meta name="viewport" content="width=device-width, initial-scale=1">
  ${status && MOVING.has(status) && html`<meta http-equiv="refresh" content="3">`}
  <title>Pay ${checkout.settleAmount} ${checkout.settle.coin.coin}</title>
  <style>${STYLE}</style>
</head>
<body>
  <p class="sandbox"><strong>SANDBOX</strong>: a local stand-in of the swap service. No real funds move.</p>
  <h1>Pay ${checkout.settleAmount} ${checkout.settle.coin.coin}</h1>
  <p>The merchant receives ${checkout.settleAmount} ${checkout.settle.coin.coin} on ${checkout.settle.network}. Pay with any coin below.</p>
  ${error && html`<p class="error" role="alert">${error}</p>`}
  ${shift && shiftSection(checkout, shift)}
  ${(!status || CAN_CHOOSE_COIN.has(status)) && coinForm(checkout, depositOptions)}
  ${settled && html`<p>Payment complete. <a id="success" href="${checkout.successUrl}">Return to the merchant</a></p>`}
  ${!settled && html`<p><a id="cancel" href="${checkout.cancelUrl}">Cancel and return to the merchant</a></p>`}
</body>
</html>`.markup
}

export function renderCheckoutNotFound(): string {
  return html`<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Checkout not found</title></head>
<body><h1>Checkout not found</h1></body></html>`.markup
}
