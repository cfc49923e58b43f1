import { createStep, StepResponse } from "@medusajs/framework/workflows-sdk"
import { ContainerRegistrationKeys } from "@medusajs/framework/utils"
import type { InferTypeOf } from "@medusajs/framework/types"
import { CRYPTO_SWAP_MODULE, type CryptoSwapModuleService } from "../../modules/crypto-swap"
import type { SwapShift } from "../../modules/crypto-swap/models/swap-shift"
import { providerRegistry } from "../../lib/provider-registry"
import type { CryptoSwapSessionData } from "../../providers/crypto-swap/session-data"

/** How far back a tick looks for payment sessions the ledger does not know yet. */
const LOOKBACK_MS = 60 * 60 * 1000

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
    const [created] = await ledger.createSwapShifts([row] as never[])
    await ledger.createSwapShiftEvents({
      swap_shift_id: created.id,
      from_status: null,
      to_status: created.status,
      source,
      occurred_at: new Date(),
    })
    return true
  } catch (error) {
    if (/already exists|unique/i.test((error as Error).message)) return false
    throw error
  }
}

/** Ledger columns for a payment session the provider created. */
export function ledgerRowFromSession(
  session: { id: string; provider_id: string; data: Record<string, unknown> | null; payment_collection_id?: string },
  cartId: string | null
) {
  const data = (session.data ?? {}) as Partial<CryptoSwapSessionData>
  return {
    shift_id: data.shift_id ?? null,
    checkout_id: data.checkout_id ?? null,
    kind: "payment" as const,
    type: data.mode === "checkout" ? "checkout" : data.shift_type ?? null,
    provider_id: session.provider_id,
    payment_session_id: session.id,
    payment_collection_id: session.payment_collection_id ?? null,
    cart_id: cartId,
    deposit_coin: data.deposit_coin ?? null,
    deposit_network: data.deposit_network ?? null,
    deposit_address: data.deposit_address ?? null,
    deposit_memo: data.deposit_memo ?? null,
    deposit_amount: data.deposit_amount ?? null,
    deposit_min: data.deposit_min ?? null,
    deposit_max: data.deposit_max ?? null,
    settle_coin: data.settle_coin ?? null,
    settle_network: data.settle_network ?? null,
    settle_amount: data.settle_amount ?? null,
    refund_address: data.refund_address ?? null,
    refund_memo: data.refund_memo ?? null,
    rate: data.rate ?? null,
    amount_due: data.amount ?? null,
    currency_code: data.currency_code ?? null,
    expires_at: data.expires_at ? new Date(data.expires_at) : null,
    status: data.status ?? "waiting",
    next_sync_at: new Date(),
  }
}

/**
 * Puts every recent payment session of a crypto-swap provider into the ledger, however it was
 * created (storefront, admin, another workflow), so reconciliation follows it from the next tick.
 */
export const discoverShiftsStep = createStep("crypto-swap-discover-shifts", async (_: void, { container }) => {
  const configModule = container.resolve(ContainerRegistrationKeys.CONFIG_MODULE)
  const providerIds = [...providerRegistry(configModule).keys()]
  if (!providerIds.length) return new StepResponse(0)
  const query = container.resolve(ContainerRegistrationKeys.QUERY)
  const ledger = container.resolve<CryptoSwapModuleService>(CRYPTO_SWAP_MODULE)

  const { data: sessions } = await query.graph({
    entity: "payment_session",
    fields: ["id", "provider_id", "data", "payment_collection_id", "created_at"],
    filters: { provider_id: providerIds, created_at: { $gte: new Date(Date.now() - LOOKBACK_MS) } },
  })
  const withPayment = sessions.filter((session) => session.data?.shift_id || session.data?.checkout_id)
  if (!withPayment.length) return new StepResponse(0)

  const known = await ledger.listSwapShifts(
    { payment_session_id: withPayment.map((session) => session.id) },
    { select: ["payment_session_id"] }
  )
  const knownIds = new Set(known.map((row) => row.payment_session_id))
  const fresh = withPayment.filter((session) => !knownIds.has(session.id))
  if (!fresh.length) return new StepResponse(0)

  const { data: carts } = await query.graph({
    entity: "cart_payment_collection",
    fields: ["cart_id", "payment_collection_id"],
    filters: { payment_collection_id: fresh.map((session) => session.payment_collection_id) },
  })
  const cartOf = new Map(carts.map((link) => [link.payment_collection_id, link.cart_id]))
  let recorded = 0
  for (const session of fresh) {
    const row = ledgerRowFromSession(session as any, cartOf.get(session.payment_collection_id) ?? null)
    if (await recordNewShift(ledger, row, "create")) recorded += 1
  }
  return new StepResponse(recorded)
})
