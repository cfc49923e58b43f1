import { refundTargetOf } from "./refund-quote"
import { refundSentBack } from "./refund-ids"
import type { PaymentStage } from "./status-map"
import { addDecimals, depositFor } from "../money"
import { missingAmount, paymentClosed, underpaymentUndecided } from "./underpayment"
import { givenBackToShopper } from "./shift-actions"
import { checkoutPickExpired } from "./sync-cadence"
import { isEvmNetwork } from "../chain-networks"
import { depositToken } from "../deposit-token"
import { explorerTxUrl } from "../explorers"
import { qrCodeSvg, walletLink } from "../payment-uri"
import type { Coin } from "../swap-service"
import { english, text, type MessageKey, type Say, type ShopperText } from "../i18n"

type LedgerRowView = {
  /** A refund shift is the store's to fund: its words are for the merchant, not the shopper. */
  kind?: "payment" | "refund" | "top_up" | null
  status: string
  issue: string | null
  type: string | null
  deposit_coin: string | null
  deposit_network: string | null
  deposit_address: string | null
  deposit_memo: string | null
  deposit_amount: string | null
  deposit_min: string | null
  deposit_max: string | null
  /** Variable shifts: what to send to pay the order, fees included (absent on rows made before it existed). */
  deposit_estimate?: string | null
  settle_coin: string | null
  settle_network: string | null
  settle_amount: string | null
  rate: string | null
  expires_at: Date | string | null
  deposit_hash: string | null
  settle_hash: string | null
  refund_address: string | null
  order_id: string | null
  /** What the order is owed, and what counts toward it besides this shift (settled top-ups). */
  amount_due?: string | null
  currency_code?: string | null
  credit?: string | null
  /** Settled money owed back instead of captured (its order was canceled): nothing more to pay. */
  refund_owed?: string | null
  /** What the plugin did with the payment: one placed, captured or canceled takes no top-up. */
  authorized_at?: Date | string | null
  captured_at?: Date | string | null
  created_at?: Date | string | null
  canceled_at?: Date | string | null
  /** Its order was canceled: a shift still waiting for a deposit must not be paid. */
  order_canceled_at?: Date | string | null
  flags: Record<string, unknown> | null
  /** `deposits[]` of a `multiple` shift, as the service gave them. */
  deposits?: unknown
  /** Money given back whose refunds all reached the shopper: the last one's transaction (the store routes read it). */
  refund_sent?: { settle_hash: string | null; settle_network: string | null } | null
  /** A refund the store made of this payment that waits for the shopper's address (the store routes read it). */
  refund_waiting?: { amount_due: string | null; currency_code: string | null; settle_coin: string | null; settle_network: string | null } | null
}

type DepositLike = { status?: string; depositHash?: string | null }

function depositsOf(row: LedgerRowView): DepositLike[] {
  return row.status === "multiple" && Array.isArray(row.deposits) ? (row.deposits as DepositLike[]) : []
}

/** A later deposit of a `multiple` shift can wait for a refund address while the first one goes on. */
function addressNeeded(row: LedgerRowView): boolean {
  if (row.flags?.address_needed || row.refund_waiting) return true
  // Money no order holds is refunded through refund shifts, which need the shopper's address.
  if (row.flags?.held_refund && !row.refund_address) return true
  return !row.refund_address && depositsOf(row).some((deposit) => deposit.status === "refund")
}

/** The shopper's words for a stage: the catalogue's `view.headline.<stage>`. */
const headline = (stage: PaymentStage): ShopperText => text(`view.headline.${stage}`)

/** How to pay a waiting deposit: the exact amount (fixed rate), or about the estimate within the range (variable). */
function sendStep(row: LedgerRowView): ShopperText {
  const memo = row.deposit_memo ? "_memo" : ""
  const where = { coin: row.deposit_coin ?? "", network: row.deposit_network ?? "" }
  if (row.deposit_amount && row.type !== "variable") return text(`view.next.send_exact${memo}`, { ...where, amount: row.deposit_amount })
  const range = { ...where, min: row.deposit_min ?? "", max: row.deposit_max ?? "" }
  return row.deposit_estimate
    ? text(`view.next.send_about${memo}`, { ...range, estimate: row.deposit_estimate })
    : text(`view.next.send_range${memo}`, range)
}

/**
 * Money no order holds: being refunded through a refund shift (which needs the shopper's address), or owed
 * back (its order canceled, or refunded instead of placed) until the store makes that refund.
 */
function givenBackStep(row: LedgerRowView): ShopperText {
  if (!row.flags?.held_refund) return text("view.next.refund_owed")
  return row.refund_address
    ? text("view.next.held_refunding")
    : text("view.next.held_refund_address", { coin: row.deposit_coin ?? "", network: row.deposit_network ?? "" })
}

/** A refund the store made goes to the coin the shopper paid with, once they say where. */
function storeRefundStep(refund: NonNullable<LedgerRowView["refund_waiting"]>): ShopperText {
  const owed = { amount: refund.amount_due ?? "", currency: refund.currency_code?.toUpperCase() ?? "", coin: refund.settle_coin ?? "", network: refund.settle_network ?? "" }
  return text("view.next.store_refund_address", owed)
}

function nextStep(stage: PaymentStage, row: LedgerRowView): ShopperText {
  const where = { coin: row.deposit_coin ?? "", network: row.deposit_network ?? "" }
  switch (stage) {
    case "awaiting_deposit":
      // Hosted checkout before the payer picked a coin: there is no address or amount yet.
      return row.deposit_address ? sendStep(row) : text("view.next.choose_coin")
    case "deposit_detected":
    case "deposit_confirmed":
    case "unknown":
      return text("view.next.wait")
    case "settled":
      return text("view.next.settled")
    case "review":
      return text("view.next.review")
    case "refund":
      return addressNeeded(row) ? text("view.next.refund_address", where) : text("view.next.refund_on_its_way")
    case "refunded":
      return text("view.next.refunded")
    case "expired":
      // A checkout's page takes another pick; only a fixed-rate shift can be requoted; a variable payment starts over from the cart.
      if (checkoutPickExpired(row)) return text("view.next.choose_coin")
      return text(row.type === "fixed" ? "view.next.expired_requote" : "view.next.expired_restart")
    case "underpaid": {
      if (row.kind === "top_up") return text("view.next.top_up_short")
      const missing = missingOf(row)
      // No top-up yet only while the deposit is unconfirmed: one closed to money (its order placed, money going back) takes none.
      if (missing && underpaymentUndecided(row.flags) && !paymentClosed(row) && !missing.can_top_up) return text("view.next.top_up_later")
      if (!missing?.can_top_up) return text("view.next.contact_store")
      const owed = { amount: missing.amount, currency: missing.currency_code.toUpperCase() }
      return missing.deposit_about
        ? text("view.next.missing_about", { ...owed, about: missing.deposit_about, coin: row.deposit_coin ?? "" })
        : text("view.next.missing", owed)
    }
  }
}

/** A deposit the service confirmed: a top-up may pay the rest (statuses before it may still be sent back). */
const CONFIRMED_OR_SETTLED = new Set(["processing", "settling", "settled", "multiple"])

/**
 * What a short payment still misses, in the store currency and, at the shift's rate, about how much of the
 * shopper's coin (rounded up: a top-up of it covers the rest). Null when nothing is missing.
 */
function missingOf(row: LedgerRowView): { amount: string; currency_code: string; deposit_about: string | null; can_top_up: boolean } | null {
  const received = typeof row.flags?.underpaid === "string" ? row.flags.underpaid : null
  // A top-up's own shortfall is its payment's: the payment's view says what is missing.
  if (row.kind === "top_up") return null
  if (!received || !row.amount_due || !row.currency_code) return null
  const amount = missingAmount(row.amount_due, addDecimals(received, row.credit ?? "0"))
  if (!amount) return null
  return {
    amount,
    currency_code: row.currency_code,
    deposit_about: row.rate ? depositFor(amount, row.rate, 8) : null,
    // Once the deposit is confirmed, until the wait for the rest is over or the store decided (refund, hold, accept).
    // As the top-up route decides: never for a payment that takes no more money (an order placed, money going back).
    can_top_up:
      underpaymentUndecided(row.flags) &&
      !paymentClosed(row) &&
      CONFIRMED_OR_SETTLED.has(row.status),
  }
}

/** Why the service sends a deposit back (its `issue`), in the shopper's words. */
const SENT_BACK_BECAUSE: Record<string, MessageKey> = {
  "order expired": "view.because.order_expired",
  "incorrect amount": "view.because.incorrect_amount",
  "max 1 deposit": "view.because.max_one_deposit",
  "amount under min": "view.because.amount_under_min",
  "too many deposits": "view.because.too_many_deposits",
}

/** Stages in which the shopper's money reached the service and was not sent back by it. */
const MONEY_IN_STAGES = new Set<PaymentStage>(["deposit_detected", "deposit_confirmed", "review", "settled", "underpaid"])

/**
 * Money that pays no order and comes back to the shopper: given back (owed, refunded, refunded instead of
 * placing its order), or paid toward an order canceled before its capture, even while still on its way.
 */
function comesBack(row: LedgerRowView, stage: PaymentStage): boolean {
  return MONEY_IN_STAGES.has(stage) && (givenBackToShopper(row) || Boolean(row.order_canceled_at && !row.captured_at))
}

/**
 * The order was canceled for its expired payment (cancel-expired-payment cancels the payment, then its
 * order), not by the merchant before the payment expired (the payment is canceled after its order).
 */
function canceledOnExpiry(row: LedgerRowView): boolean {
  return Boolean(row.canceled_at && row.order_canceled_at && new Date(row.order_canceled_at) >= new Date(row.canceled_at))
}

/**
 * What a payment page says. A deposit the service sends back says why, and how to pay again: a fixed
 * rate is requoted in one action (the store route `requote`), anything else starts over from the cart.
 */
function paymentWording(stage: PaymentStage, row: LedgerRowView): { headline: ShopperText; next_step: ShopperText } {
  const because = (stage === "refund" || stage === "refunded") && row.issue ? SENT_BACK_BECAUSE[row.issue] : undefined
  // An order canceled before anything was paid (placed before payment): its address is about to close.
  // One the store canceled because its payment expired says how to buy again (no quote pays a canceled order).
  if (row.order_canceled_at && (stage === "awaiting_deposit" || stage === "expired")) {
    if (stage === "expired" && canceledOnExpiry(row)) return { headline: headline(stage), next_step: text("view.next.expired_order_canceled") }
    return { headline: text("view.headline.order_canceled"), next_step: text("view.next.order_canceled") }
  }
  // Money no order holds: whatever it settles to, what the shopper hears first is that it comes back.
  if (comesBack(row, stage)) {
    if (row.refund_sent) return { headline: text("view.headline.refunded"), next_step: text("view.next.refunded") }
    return { headline: text("view.headline.given_back"), next_step: row.refund_waiting ? storeRefundStep(row.refund_waiting) : givenBackStep(row) }
  }
  if (row.refund_waiting) return { headline: headline(stage), next_step: storeRefundStep(row.refund_waiting) }
  if (!because) return { headline: headline(stage), next_step: nextStep(stage, row) }
  const again = text(row.type === "fixed" ? "view.next.again_requote" : "view.next.again_restart")
  return {
    headline: text("view.headline.sent_back", { headline: headline(stage), because: text(because) }),
    next_step: text("view.next.sent_back", { step: nextStep(stage, row), again }),
  }
}

function sayWording(wording: { headline: ShopperText; next_step: ShopperText }, say: Say) {
  return { headline: say(wording.headline), next_step: say(wording.next_step) }
}

/**
 * A variable-rate refund shift takes deposits until it expires: the rest of what it paid the shopper short, or
 * another after the service sent the store's back.
 */
const refundTakesRest = (row: LedgerRowView, stage: PaymentStage, now: Date) =>
  row.kind === "refund" &&
  (stage === "underpaid" || (stage === "refund" && row.type === "variable" && refundSentBack(row))) &&
  Boolean(row.expires_at) &&
  new Date(row.expires_at!) > now

/**
 * What a refund paid short still owes: in the shopper's coin when the store pays the fees, else in the
 * store's. The rest can be no less than the shift's minimum deposit.
 */
function refundShortWording(row: LedgerRowView, now: Date): { headline: string; next_step: string } {
  const target = refundTargetOf(row.flags)
  const inShopperCoin = Boolean(target && "settle_amount" in target)
  const owed = `${row.flags?.refund_short ?? "?"} ${inShopperCoin ? `${row.settle_coin} on ${row.settle_network}` : `${row.deposit_coin} on ${row.deposit_network}`}`
  const rest = inShopperCoin ? `enough ${row.deposit_coin} for ${owed} to reach the shopper (at the rate when it arrives)` : owed
  const minimum = row.deposit_min ? ` (no less than ${row.deposit_min} ${row.deposit_coin})` : ""
  const headline = `Refund short: ${inShopperCoin ? "the shopper is still owed" : "still to send"} ${owed}`
  const next_step = refundTakesRest(row, "underpaid", now)
    ? `Send ${rest}${minimum} to the same address before ${new Date(row.expires_at!).toISOString()}; after that, pay the rest by other means and mark the refund paid.`
    : "The refund shift expired: pay the rest by other means, then mark the refund paid."
  return { headline, next_step }
}

/** What to send to a variable refund shift: about what pays the shopper their share (refund_target), else anything in its range. */
const variableRefundAmount = (row: LedgerRowView) =>
  row.deposit_estimate ? `about ${row.deposit_estimate}` : `between ${row.deposit_min} and ${row.deposit_max}`

/**
 * What a refund the store owes says until the service settles it: pending, and what to send where, so
 * nobody takes Medusa's "refunded" for money that reached the shopper.
 */
function refundWording(stage: PaymentStage, row: LedgerRowView, now: Date): { headline: string; next_step: string } {
  const destination = `${row.settle_coin} on ${row.settle_network} to ${row.refund_address ?? "the shopper's refund address"}`
  if (row.status === "address_needed") {
    return { headline: "Refund pending: waiting for the shopper's refund address", next_step: "Give a refund address, or ask the shopper for one on their payment page." }
  }
  if (row.status === "creating") {
    return {
      headline: "Refund pending: making the refund shift",
      next_step:
        "It appears here once the service has made it. If that keeps failing, the reason shows in the shift's actions: correct the refund address, retry, or mark the refund paid by other means.",
    }
  }
  if (row.status === "paid_manually") return { headline: "Refunded by other means", next_step: "Nothing to do." }
  if (row.status === "payment_unknown") {
    return {
      headline: "Refund not sent: no crypto payment to refund from",
      next_step: "The plugin has no record of the payment this refund is for, so no refund shift can pay it. Pay the shopper back by other means, then mark the refund paid.",
    }
  }
  switch (stage) {
    case "awaiting_deposit": {
      const amount = row.type === "variable" ? variableRefundAmount(row) : `exactly ${row.deposit_amount}`
      const deadline = row.type !== "variable" && row.expires_at ? ` before ${new Date(row.expires_at).toISOString()}` : ""
      return {
        headline: `Refund pending: send ${amount} ${row.deposit_coin} on ${row.deposit_network}`,
        next_step: `Send it to the address below${row.deposit_memo ? ", with the memo" : ""}${deadline}; the service pays ${destination}.`,
      }
    }
    case "deposit_detected":
    case "deposit_confirmed":
    case "review":
      return { headline: "Refund pending: your deposit is being swapped", next_step: `Nothing to do: the service pays ${destination} once it settles.` }
    case "underpaid":
      return refundShortWording(row, now)
    case "refunded":
      return { headline: "Refunded: the shopper was paid", next_step: `The service sent ${row.settle_amount ? `${row.settle_amount} ` : ""}${destination}.` }
    case "expired":
      return { headline: "Refund not sent: the refund shift expired unfunded", next_step: "Nothing reached the shopper. Renew the refund shift when you are ready to send, from an hour after it expired (a deposit already on its way may still reach it until then), or mark it paid by other means." }
    case "refund": {
      const why = row.issue ? ` (${row.issue})` : ""
      if (refundTakesRest(row, stage, now)) {
        const until = new Date(row.expires_at!).toISOString()
        return {
          headline: "Refund not sent: the service sent your deposit back",
          next_step: `Nothing reached the shopper${why}. Send ${variableRefundAmount(row)} ${row.deposit_coin} to the same address before ${until}, or pay by other means and mark the refund paid.`,
        }
      }
      return refundSentBack(row)
        ? { headline: "Refund not sent: the service sent your deposit back", next_step: `Nothing reached the shopper${why}. Renew the refund shift when you are ready to send the exact amount before its deadline, or mark it paid by other means.` }
        : { headline: "Refund not sent: the service is sending your deposit back", next_step: `Nothing reached the shopper${why}. Once your deposit is back, renew the refund shift or mark it paid by other means.` }
    }
    default:
      return sayWording({ headline: headline(stage), next_step: nextStep(stage, row) }, english)
  }
}

/**
 * The transaction that paid the shopper back: the service's own refund of the deposit (sent on the deposit
 * network), or the last refund shift of money given back.
 */
function refundTransaction(row: LedgerRowView, refunding: boolean) {
  if (row.settle_hash && refunding) return { hash: row.settle_hash, url: explorerTxUrl(row.deposit_network, row.settle_hash) }
  const sent = row.refund_sent
  return sent?.settle_hash ? { hash: sent.settle_hash, url: explorerTxUrl(sent.settle_network, sent.settle_hash) } : null
}

/** The QR code's text alternative: what a shopper who can't see it needs to pay (coin, amount, address). */
function qrAlt(row: LedgerRowView, address: string): ShopperText {
  const memo = row.deposit_memo ? "_memo" : ""
  const payment = { coin: row.deposit_coin ?? "", network: row.deposit_network ?? "", address, memo: row.deposit_memo ?? "" }
  return row.deposit_amount && row.type !== "variable"
    ? text(`view.qr_alt.exact${memo}`, { ...payment, amount: row.deposit_amount })
    : text(`view.qr_alt.range${memo}`, { ...payment, min: row.deposit_min ?? "", max: row.deposit_max ?? "" })
}

/** The live view a payment page polls: plain words, what to send where, and what happens next. */
export async function paymentView(
  row: LedgerRowView,
  stage: PaymentStage,
  /** The coins listing, for a token's contract and decimals in the wallet link. */
  catalogue: { get(): Promise<Coin[]> },
  now = new Date(),
  /** The shopper's language (the store routes); English for the admin. */
  say: Say = english
) {
  const expiresAt = row.expires_at ? new Date(row.expires_at) : null
  const address = row.deposit_address
  // Only a page still waiting for the deposit of an order not canceled shows how to pay (or a refund paid short,
  // whose rest goes to the same address while it is open): nothing else needs the listing.
  const takesDeposit = stage === "awaiting_deposit" || refundTakesRest(row, stage, now)
  const payable = takesDeposit && !row.order_canceled_at && address && row.deposit_coin && row.deposit_network ? address : null
  const wallet = payable
    ? walletLink({
        coin: row.deposit_coin!,
        network: row.deposit_network!,
        address: payable,
        amount: row.type === "variable" ? null : row.deposit_amount,
        memo: row.deposit_memo,
        token: await depositToken(catalogue, row.deposit_coin!, row.deposit_network!),
      })
    : null
  // Without a wallet link the QR code holds the address alone, which every wallet can scan.
  const uri = payable ? (wallet ?? payable) : null
  const evm = isEvmNetwork(row.deposit_network)
  // `multiple` has no top-level deposit hash: the first deposit's stands for it.
  const depositHash = row.deposit_hash ?? depositsOf(row).find((deposit) => deposit.depositHash)?.depositHash ?? null
  // Once a deposit goes back, `settleHash` is the refund transaction, sent on the deposit network.
  const refunding = row.status === "refunding" || row.status === "refunded"
  // A refund shift's words are the merchant's (the admin's), in English.
  const wording = row.kind === "refund" ? refundWording(stage, row, now) : sayWording(paymentWording(stage, row), say)
  return {
    status: row.status,
    stage,
    ...wording,
    issue: row.issue,
    deposit: {
      coin: row.deposit_coin,
      network: row.deposit_network,
      address,
      memo: row.deposit_memo,
      memo_required: Boolean(row.deposit_memo),
      memo_warning: row.deposit_memo ? say(text("view.memo_warning")) : null,
      amount: row.type === "variable" ? null : row.deposit_amount,
      min: row.type === "variable" ? row.deposit_min : null,
      max: row.type === "variable" ? row.deposit_max : null,
      estimate: row.type === "variable" ? row.deposit_estimate ?? null : null,
      rate: row.rate,
    },
    settle: { coin: row.settle_coin, network: row.settle_network, amount: row.settle_amount },
    expires_at: expiresAt?.toISOString() ?? null,
    // The service's clock decides expiry: once it says expired, no time is left whatever ours says.
    seconds_left: expiresAt
      ? stage === "expired"
        ? 0
        : Math.max(0, Math.floor((expiresAt.getTime() - now.getTime()) / 1000))
      : null,
    /** What the QR code holds: the wallet link, else the bare address. */
    payment_uri: uri,
    /** The "Open in wallet" link with the exact amount; null where no standard fits (memo networks…). */
    wallet_uri: wallet,
    qr_svg: uri ? await qrCodeSvg(uri) : null,
    qr_alt: payable ? say(qrAlt(row, payable)) : null,
    transactions: {
      deposit: depositHash ? { hash: depositHash, url: explorerTxUrl(row.deposit_network, depositHash) } : null,
      settle:
        row.settle_hash && !refunding ? { hash: row.settle_hash, url: explorerTxUrl(row.settle_network, row.settle_hash) } : null,
      refund: refundTransaction(row, refunding),
    },
    sweep_note: evm && depositHash ? say(text("view.sweep_note")) : null,
    refund: { address_needed: addressNeeded(row), address: row.refund_address },
    /** The money pays no order: it comes back to the shopper (a storefront never shows it as paid). */
    given_back: row.kind !== "refund" && comesBack(row, stage),
    /** A short payment: what is still missing, and whether the shopper may pay it with a top-up. */
    missing: stage === "underpaid" ? missingOf(row) : null,
    order_id: row.order_id,
  }
}

export type PaymentView = Awaited<ReturnType<typeof paymentView>>
