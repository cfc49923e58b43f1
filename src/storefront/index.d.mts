/** The texts the component shows beside the server's, by language code and key; change or extend before it renders. */
export declare const messages: Record<string, Record<string, string>>

export declare const TAG: "crypto-swap-checkout"
export declare const EVENTS: { update: "crypto-swap-update"; orderPlaced: "crypto-swap-order-placed"; paid: "crypto-swap-paid" }

/** The payment as the store route `GET /store/crypto-swap/payment-sessions/:id` gives it (`payment`). */
export type CryptoSwapPayment = {
  stage: string
  status: string
  headline: string
  next_step: string
  order_id: string | null
  /** The money pays no order and comes back to the shopper (its order canceled, or refunded instead). */
  given_back: boolean
  deposit: { coin: string | null; network: string | null; address: string | null; amount: string | null; estimate: string | null; [key: string]: unknown }
  top_up: (CryptoSwapPayment & { shift_id: string; amount_due: string }) | null
  [key: string]: unknown
}

export type CryptoSwapUpdateDetail = { cartId: string; session: { id: string; data?: Record<string, unknown> }; payment: CryptoSwapPayment }
export type CryptoSwapOrderDetail = { cartId: string; orderId: string; payment: CryptoSwapPayment }

export declare function formatMoney(amount: number | string, currency: string, locale?: string): string

export declare class CryptoSwapCheckout extends HTMLElement {
  static observedAttributes: string[]
  /** Reads the payment again now. */
  refresh(): void
}

declare global {
  interface HTMLElementTagNameMap {
    "crypto-swap-checkout": CryptoSwapCheckout
  }
  interface HTMLElementEventMap {
    "crypto-swap-update": CustomEvent<CryptoSwapUpdateDetail>
    "crypto-swap-order-placed": CustomEvent<CryptoSwapOrderDetail>
    "crypto-swap-paid": CustomEvent<CryptoSwapOrderDetail>
  }
}
