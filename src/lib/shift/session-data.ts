/**
 * The payment session `data` this provider stores. Medusa shows it to the paying shopper, so it holds
 * what a storefront needs to display and follow the payment, and nothing secret.
 */
export type CryptoSwapSessionData = {
  mode: "shift" | "checkout"
  session_id: string
  /** Amount due in the store currency, as an exact decimal string. */
  amount: string
  currency_code: string
  shift_id?: string
  shift_type?: "fixed" | "variable"
  quote_id?: string
  deposit_coin?: string
  deposit_network?: string
  deposit_address?: string
  deposit_memo?: string
  /** Exact amount to send (fixed shifts and checkout shifts). */
  deposit_amount?: string
  /** Range a variable shift accepts, and the deposit the live rate asks for to cover the amount due. */
  deposit_min?: string
  deposit_max?: string
  deposit_estimate?: string
  settle_coin: string
  settle_network: string
  settle_amount: string
  rate?: string
  expires_at?: string
  status: string
  issue?: string
  deposit_hash?: string
  settle_hash?: string
  refund_address?: string
  refund_memo?: string
  checkout_id?: string
  pay_url?: string
  customer_ip?: string
  /** What counts toward `amount` besides this shift: settled top-ups, a shortfall the merchant accepted (mirrored by the ledger). */
  credit?: string
  /**
   * Set by the ledger before the payment's money goes back to the shopper (refunded instead of placing
   * its order, or held and refunded): the provider then never authorizes it, by whatever route.
   */
  given_back?: boolean
  /** Set when a cancel arrives before the service allows cancel-order; reconciliation cancels later. */
  cancel_requested_at?: string
  canceled_at?: string
}
