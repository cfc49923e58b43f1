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
  /** Set when a cancel arrives before the service allows cancel-order; reconciliation cancels later. */
  cancel_requested_at?: string
  canceled_at?: string
  refunds?: RefundRecord[]
}

export type RefundRecord = {
  id: string
  /** In the store currency, as Medusa asked. */
  amount: string
  /** What the merchant must send back, in the settle coin (pegged to the store currency). */
  settle_coin_amount: string
  refund_coin: string
  refund_network: string
  refund_address?: string
  refund_memo?: string
  /**
   * As recorded when the refund was asked for: owed, or address_needed (the shopper must give an
   * address first). Its progress after that (the refund shift, settled, paid manually) is kept in the
   * ledger, keyed by this record's id.
   */
  status: "owed" | "address_needed"
  requested_at: string
}
