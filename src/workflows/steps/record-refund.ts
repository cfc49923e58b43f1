import type { CryptoSwapModuleService } from "../../modules/crypto-swap"
import { recordNewShift } from "./record-new-shift"

type PaymentRow = Awaited<ReturnType<CryptoSwapModuleService["retrieveSwapShift"]>>

/**
 * One refund the store owes a shopper, as a ledger row of kind refund: unique by `refund_id` (Medusa's
 * refund id, or the payment row's for money no order holds), so however many ticks or processes find
 * it, it is recorded once. Its refund shift is made by the sync: the merchant deposits the settle coin,
 * the service pays the shopper's original coin to their refund address. Waits as `address_needed`
 * until someone gives that address (the sync asks the shopper for it).
 */
export async function recordRefund(
  ledger: CryptoSwapModuleService,
  input: { refund_id: string; amount: string; payment_id: string | null; of: PaymentRow; address?: string | null; memo?: string | null }
): Promise<boolean> {
  const { of } = input
  const address = input.address ?? of.refund_address
  const memo = input.address ? input.memo ?? null : of.refund_memo
  return recordNewShift(
    ledger,
    {
      kind: "refund",
      refund_id: input.refund_id,
      type: "fixed",
      provider_id: of.provider_id,
      payment_id: input.payment_id,
      order_id: of.order_id,
      cart_id: of.cart_id,
      refund_of_shift_id: of.shift_id,
      deposit_coin: of.settle_coin,
      deposit_network: of.settle_network,
      settle_coin: of.deposit_coin,
      settle_network: of.deposit_network,
      refund_address: address ?? null,
      refund_memo: memo ?? null,
      customer_ip: of.customer_ip,
      amount_due: input.amount,
      currency_code: of.currency_code,
      status: address ? "creating" : "address_needed",
      flags: address ? null : { address_needed: true },
      // Read at once either way: to make the shift, or to ask the shopper where it goes.
      next_sync_at: new Date(),
    },
    "create"
  )
}

/**
 * A Medusa refund of a crypto payment the ledger has no row for (removed, or lost in a restore): no refund
 * shift can be made without the coins and address the payment's row holds, so it waits as
 * `payment_unknown` for the merchant to pay it back by other means and mark it paid. Recorded once, like any.
 */
export async function recordUnknownPaymentRefund(
  ledger: CryptoSwapModuleService,
  input: { refund_id: string; amount: string; payment_id: string; provider_id: string; currency_code: string; order_id: string | null }
): Promise<boolean> {
  return recordNewShift(
    ledger,
    {
      kind: "refund",
      refund_id: input.refund_id,
      provider_id: input.provider_id,
      payment_id: input.payment_id,
      order_id: input.order_id,
      amount_due: input.amount,
      currency_code: input.currency_code,
      status: "payment_unknown",
      // Nothing at the service to follow: never read.
      terminal: true,
      next_sync_at: null,
    },
    "create"
  )
}
