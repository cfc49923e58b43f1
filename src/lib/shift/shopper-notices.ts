import { text, type ShopperText } from "../i18n"
import { stillMissing } from "./underpayment"

/** What the shopper is told, and by which of the plugin's events. */
export type ShopperNotice = "payment_received" | "payment_short" | "refund_address_needed" | "refunded" | "payment_expired"

const NOTICE_OF_EVENT: Record<string, ShopperNotice> = {
  "crypto-swap.shift.deposit_detected": "payment_received",
  "crypto-swap.shift.deposit_confirmed": "payment_received",
  "crypto-swap.shift.underpaid": "payment_short",
  "crypto-swap.shift.refund_address_needed": "refund_address_needed",
  "crypto-swap.shift.refunded": "refunded",
  "crypto-swap.shift.expired": "payment_expired",
}

export const SHOPPER_NOTICE_EVENTS = Object.keys(NOTICE_OF_EVENT)

/**
 * The notice an event of a ledger row means for the shopper, if any. A payment's shift tells them it
 * arrived, that an address is needed, that it expired, or that the service sent it back; a refund tells
 * them that it needs their address and that they were refunded (its shift's own expiry is the merchant's
 * business); a top-up's everything but its expiry.
 */
export function shopperNotice(event: string, kind: "payment" | "refund" | "top_up"): ShopperNotice | undefined {
  const notice = NOTICE_OF_EVENT[event]
  if (kind === "refund") return notice === "refunded" || notice === "refund_address_needed" ? notice : undefined
  // An unpaid top-up running out leaves the payment as it was: the page offers another. One short is its
  // payment's shortfall, which the payment's row tells.
  if (kind === "top_up" && (notice === "payment_expired" || notice === "payment_short")) return undefined
  return notice
}

/** The ledger columns a notice tells of. */
type NoticeRow = {
  kind: "payment" | "refund" | "top_up"
  cart_id: string | null
  order_id: string | null
  payment_session_id: string | null
  amount_due: string | null
  currency_code: string | null
  deposit_coin: string | null
  deposit_network: string | null
  deposit_amount: string | null
  settle_coin: string | null
  settle_network: string | null
  settle_amount: string | null
  refund_address: string | null
  /** A short payment's `underpaid` figure (what arrived, in the store currency) and what else counts toward it. */
  flags: Record<string, unknown> | null
  credit: string | null
}

/** The storefront's payment page of the row's cart, from the store's `notifications.paymentPageUrl`. */
function paymentPage(template: string | undefined, row: NoticeRow): string | undefined {
  const values = { "{cart_id}": row.cart_id, "{payment_session_id}": row.payment_session_id }
  if (!template || Object.entries(values).some(([placeholder, value]) => template.includes(placeholder) && !value)) return undefined
  return Object.entries(values).reduce((url, [placeholder, value]) => url.replaceAll(placeholder, encodeURIComponent(value ?? "")), template)
}

/** What a message may say: amounts, coins, the cart and the payment session. Never a shift id. */
export function noticeData(notice: ShopperNotice, row: NoticeRow, paymentPageUrl?: string) {
  const about = { cart_id: row.cart_id, order_id: row.order_id, amount: row.amount_due, currency_code: row.currency_code }
  switch (notice) {
    case "payment_received":
      return { notice, ...about, payment_session_id: row.payment_session_id, deposit_coin: row.deposit_coin, deposit_network: row.deposit_network, deposit_amount: row.deposit_amount }
    case "payment_short": {
      // What arrived and what is missing, in the store currency; the payment page offers to pay the rest.
      const received = typeof row.flags?.underpaid === "string" ? row.flags.underpaid : null
      return {
        notice,
        ...about,
        payment_session_id: row.payment_session_id,
        received,
        missing: stillMissing(row, received ?? undefined),
        payment_page_url: paymentPage(paymentPageUrl, row) ?? null,
      }
    }
    case "refund_address_needed":
      // The page where the shopper gives it is the storefront's payment page for this session. A refund the
      // store makes (`store_refund`) pays the shopper's coin, its settle coin, and its amount is the refund's.
      return {
        notice,
        ...about,
        payment_session_id: row.payment_session_id,
        deposit_coin: row.kind === "refund" ? row.settle_coin : row.deposit_coin,
        deposit_network: row.kind === "refund" ? row.settle_network : row.deposit_network,
        payment_page_url: paymentPage(paymentPageUrl, row) ?? null,
        store_refund: row.kind === "refund",
      }
    case "refunded":
      // A refund shift pays the shopper its settle coin; a payment the service sent back, its deposit coin.
      return row.kind === "refund"
        ? { notice, ...about, refund_coin: row.settle_coin, refund_network: row.settle_network, refund_amount: row.settle_amount, refund_address: row.refund_address }
        : { notice, ...about, refund_coin: row.deposit_coin, refund_network: row.deposit_network, refund_address: row.refund_address }
    case "payment_expired":
      return { notice, ...about, payment_session_id: row.payment_session_id }
  }
}

export type NoticeData = ReturnType<typeof noticeData>

/** A coin with its amount where known ("0.0015 BTC"), else the coin alone. */
const coinAmount = (amount: string | null | undefined, coin: string | null) => (amount ? `${amount} ${coin ?? ""}` : coin ?? "")

/**
 * A notice's subject and plain text, from its data alone, so that a message says nothing the data does
 * not (no shift id). The refund address text links to the storefront's payment page where the store
 * named it (`notifications.paymentPageUrl`), else says where to give the address.
 */
export function noticeTexts(data: NoticeData): { subject: ShopperText; text: ShopperText } {
  const order = { amount: data.amount ?? "", currency: data.currency_code?.toUpperCase() ?? "" }
  switch (data.notice) {
    case "payment_received":
      return {
        subject: text("notice.payment_received.subject"),
        text: text("notice.payment_received.text", { ...order, deposit: coinAmount(data.deposit_amount, data.deposit_coin), network: data.deposit_network ?? "" }),
      }
    case "payment_short": {
      const short = { ...order, received: data.received ?? "", missing: data.missing ?? "" }
      return {
        subject: text("notice.payment_short.subject"),
        text: data.payment_page_url ? text("notice.payment_short.text_with_link", { ...short, url: data.payment_page_url }) : text("notice.payment_short.text", short),
      }
    }
    case "refund_address_needed": {
      const notice = data.store_refund ? "notice.store_refund_address_needed" : "notice.refund_address_needed"
      const where = { ...order, coin: data.deposit_coin ?? "", network: data.deposit_network ?? "" }
      return {
        subject: text(`${notice}.subject`),
        text: data.payment_page_url ? text(`${notice}.text_with_link`, { ...where, url: data.payment_page_url }) : text(`${notice}.text`, where),
      }
    }
    case "refunded": {
      const where = { ...order, network: data.refund_network ?? "", address: data.refund_address ?? "" }
      return {
        subject: text("notice.refunded.subject"),
        text:
          "refund_amount" in data
            ? text("notice.refunded.text", { ...where, refund: coinAmount(data.refund_amount, data.refund_coin) })
            : text("notice.refunded.sent_back", { ...where, coin: data.refund_coin ?? "" }),
      }
    }
    case "payment_expired":
      return { subject: text("notice.payment_expired.subject"), text: text("notice.payment_expired.text", order) }
  }
}
