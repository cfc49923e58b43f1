import { createStep, StepResponse } from "@medusajs/framework/workflows-sdk"
import { ContainerRegistrationKeys } from "@medusajs/framework/utils"
import { CRYPTO_SWAP_MODULE, type CryptoSwapModuleService } from "../../modules/crypto-swap"
import { providerRegistry } from "../../lib/provider-registry"
import { ledgerRowFromSession, recordNewShift } from "./record-new-shift"

/** Sessions read per tick at most; a longer backlog is worked through over the next ticks. */
const BATCH_SIZE = 1000
/**
 * Changes are read again for this long after they were first seen: a transaction stamps its rows when
 * it starts, so one that commits late can land behind a watermark already moved past its stamp.
 */
const COMMIT_SKEW_MS = 60 * 1000

export type Discovery = { discovered: number; discovered_through: string | null }

/**
 * The fallback behind the provider's creation event: payment sessions of a crypto-swap provider that
 * changed since the last tick's watermark and that the ledger does not know (their event was lost, or
 * another workflow made them). However long no tick ran, it starts where the last one stopped.
 */
export const discoverShiftsStep = createStep("crypto-swap-discover-shifts", async (_: void, { container }) => {
  const configModule = container.resolve(ContainerRegistrationKeys.CONFIG_MODULE)
  const providerIds = [...providerRegistry(configModule).keys()]
  const ledger = container.resolve<CryptoSwapModuleService>(CRYPTO_SWAP_MODULE)
  const [lastRun] = await ledger.listSwapReconciliationRuns(
    { discovered_through: { $ne: null } },
    { select: ["discovered_through"], order: { started_at: "DESC" }, take: 1 }
  )
  const watermark = lastRun?.discovered_through ? new Date(lastRun.discovered_through) : null
  if (!providerIds.length) return new StepResponse<Discovery>({ discovered: 0, discovered_through: watermark?.toISOString() ?? null })

  const query = container.resolve(ContainerRegistrationKeys.QUERY)
  const startedAt = Date.now()
  const { data: sessions } = await query.graph({
    entity: "payment_session",
    fields: ["id", "provider_id", "data", "payment_collection_id", "updated_at"],
    filters: { provider_id: providerIds, ...(watermark ? { updated_at: { $gte: watermark } } : {}) },
    pagination: { take: BATCH_SIZE, order: { updated_at: "ASC" } },
  })
  // All read: the mark moves to a skew before now. A full batch moves it to its last change, to make progress.
  const through =
    sessions.length === BATCH_SIZE
      ? new Date(sessions[sessions.length - 1].updated_at as string | Date)
      : new Date(Math.max(watermark?.getTime() ?? 0, startedAt - COMMIT_SKEW_MS))
  const answer = (discovered: number) => new StepResponse<Discovery>({ discovered, discovered_through: through.toISOString() })

  const withPayment = sessions.filter((session) => session.data?.shift_id || session.data?.checkout_id)
  if (!withPayment.length) return answer(0)
  const known = await ledger.listSwapShifts(
    { payment_session_id: withPayment.map((session) => session.id) },
    { select: ["payment_session_id"] }
  )
  const knownIds = new Set(known.map((row) => row.payment_session_id))
  const fresh = withPayment.filter((session) => !knownIds.has(session.id))
  if (!fresh.length) return answer(0)

  const { data: carts } = await query.graph({
    entity: "cart_payment_collection",
    fields: ["cart_id", "payment_collection_id"],
    filters: { payment_collection_id: fresh.map((session) => session.payment_collection_id) },
  })
  const cartOf = new Map(carts.map((link) => [link.payment_collection_id, link.cart_id]))
  let recorded = 0
  for (const session of fresh) {
    const row = ledgerRowFromSession(session as Parameters<typeof ledgerRowFromSession>[0], cartOf.get(session.payment_collection_id) ?? null)
    if (await recordNewShift(ledger, row, "create")) recorded += 1
  }
  return answer(recorded)
})
