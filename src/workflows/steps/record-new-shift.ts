import type { InferTypeOf } from "@medusajs/framework/types"
import type { CryptoSwapModuleService } from "../../modules/crypto-swap"
import type { SwapShift } from "../../modules/crypto-swap/models/swap-shift"
import type { CryptoSwapSessionData } from "../../lib/shift/session-data"
import type { CollectionPayer } from "./collection-payer"

type NewLedgerRow = Omit<Partial<InferTypeOf<typeof SwapShift>>, "id" | "events"> & { status: string }

/**
 * Adds a shift to the ledger with its first history entry. Another process may have recorded it a
 * moment earlier (the shift and checkout ids are unique): then this one leaves it be.
 */
export async function recordNewShift(
  ledger: CryptoSwapModuleService,
  row: NewLedgerRow,
  source: "create" | "storefront" | "admin"
): Promise<boolean> {
  try {
    await ledger.recordNewSwapShift(row as never, { from_status: null, to_status: row.status, source, occurred_at: new Date() })
    return true
  } catch (error) {
    if (/already exists|unique/i.test((error as Error).message)) return false
    throw error
  }
}

/** Ledger columns for a payment session the provider created. */
export function ledgerRowFromSession(
  session: { id: string; provider_id: string; data: Record<string, unknown> | null; payment_collection_id?: string },
  payer: CollectionPayer
) {
  const data = (session.data ?? {}) as Partial<CryptoSwapSessionData>
  // A hosted checkout's payer picks the coin on the service's page: an address typed before is for no coin
  // yet (Medusa keeps what the storefront sent in the session's data), so the pick's refund asks for one.
  const checkout = data.mode === "checkout"
  return {
    shift_id: data.shift_id ?? null,
    checkout_id: data.checkout_id ?? null,
    kind: "payment" as const,
    type: checkout ? "checkout" : data.shift_type ?? null,
    provider_id: session.provider_id,
    payment_session_id: session.id,
    payment_collection_id: session.payment_collection_id ?? null,
    cart_id: payer.cart_id,
    order_id: payer.order_id,
    deposit_coin: data.deposit_coin ?? null,
    deposit_network: data.deposit_network ?? null,
    deposit_address: data.deposit_address ?? null,
    deposit_memo: data.deposit_memo ?? null,
    deposit_amount: data.deposit_amount ?? null,
    deposit_min: data.deposit_min ?? null,
    deposit_max: data.deposit_max ?? null,
    deposit_estimate: data.deposit_estimate ?? null,
    settle_coin: data.settle_coin ?? null,
    settle_network: data.settle_network ?? null,
    settle_amount: data.settle_amount ?? null,
    refund_address: checkout ? null : data.refund_address ?? null,
    refund_memo: checkout ? null : data.refund_memo ?? null,
    customer_ip: data.customer_ip ?? null,
    rate: data.rate ?? null,
    amount_due: data.amount ?? null,
    currency_code: data.currency_code ?? null,
    expires_at: data.expires_at ? new Date(data.expires_at) : null,
    status: data.status ?? "waiting",
    next_sync_at: new Date(),
  }
}
