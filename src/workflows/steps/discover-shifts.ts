import { createStep, StepResponse } from "@medusajs/framework/workflows-sdk"
import { ContainerRegistrationKeys, Modules } from "@medusajs/framework/utils"
import type { FilterablePaymentSessionProps } from "@medusajs/framework/types"
import { CRYPTO_SWAP_MODULE, type CryptoSwapModuleService } from "../../modules/crypto-swap"
import { providerRegistry } from "../../lib/provider-registry"
import { ledgerRowFromSession, recordNewShift } from "./record-new-shift"
import { collectionPayer } from "./collection-payer"
import { discoveryOverlapMs, readSinceWatermark } from "./discovery-window"

/** What a tick found, what it cost (sessions read by id, and read whole), and where the next one starts. */
export type Discovery = { discovered: number; read: number; loaded: number; discovered_through: string | null }

/**
 * The fallback behind the provider's creation event: payment sessions of a crypto-swap provider made
 * since the last tick's watermark that the ledger does not know (their event was lost, or another
 * workflow made them). However long no tick ran, it starts where the last one stopped. Only ids are
 * read for the window; a session is read whole only when the ledger does not know it.
 */
export const discoverShiftsStep = createStep("crypto-swap-discover-shifts", async (_: void, { container }) => {
  const configModule = container.resolve(ContainerRegistrationKeys.CONFIG_MODULE)
  const registry = providerRegistry(configModule)
  const providerIds = [...registry.keys()]
  const ledger = container.resolve<CryptoSwapModuleService>(CRYPTO_SWAP_MODULE)
  const [lastRun] = await ledger.listSwapReconciliationRuns(
    { discovered_through: { $ne: null } },
    { select: ["discovered_through"], order: { started_at: "DESC" }, take: 1 }
  )
  const watermark = lastRun?.discovered_through ? new Date(lastRun.discovered_through) : null
  if (!providerIds.length) {
    return new StepResponse<Discovery>({ discovered: 0, read: 0, loaded: 0, discovered_through: watermark?.toISOString() ?? null })
  }

  const payments = container.resolve(Modules.PAYMENT)
  const query = container.resolve(ContainerRegistrationKeys.QUERY)
  const logger = container.resolve(ContainerRegistrationKeys.LOGGER)
  let [discovered, loaded] = [0, 0]
  const { read, through } = await readSinceWatermark({
    watermark,
    overlapMs: discoveryOverlapMs(registry.values()),
    prefix: "payses",
    readPage: (id, take) =>
      payments.listPaymentSessions({ provider_id: providerIds, id } as unknown as FilterablePaymentSessionProps, { select: ["id"], take, order: { id: "ASC" } }),
    // Sessions already in the ledger (nearly all: their creation recorded them) are re-read harmlessly, and cheaply.
    onPage: async (page) => {
      const known = await ledger.listSwapShifts({ payment_session_id: page.map((session) => session.id) }, { select: ["payment_session_id"] })
      const knownIds = new Set(known.map((row) => row.payment_session_id))
      const unknown = page.filter((session) => !knownIds.has(session.id)).map((session) => session.id)
      if (!unknown.length) return
      loaded += unknown.length
      const sessions = await payments.listPaymentSessions({ id: unknown }, { select: ["id", "provider_id", "data", "payment_collection_id"] })
      const fresh = sessions.filter((session) => session.data?.shift_id || session.data?.checkout_id)
      if (!fresh.length) return
      const { data: carts } = await query.graph({
        entity: "cart_payment_collection",
        fields: ["cart_id", "payment_collection_id"],
        filters: { payment_collection_id: fresh.map((session) => session.payment_collection_id) },
      })
      const cartOf = new Map(carts.map((link) => [link.payment_collection_id, link.cart_id]))
      for (const session of fresh) {
        try {
          const payer = await collectionPayer(container, session.payment_collection_id, cartOf.get(session.payment_collection_id) ?? null)
          const row = ledgerRowFromSession(session as Parameters<typeof ledgerRowFromSession>[0], payer)
          if (await recordNewShift(ledger, row, "create")) discovered += 1
        } catch (error) {
          // One session the ledger can't take must not stop the tick (discovery runs before the syncs): the next tick tries it again.
          logger.warn(`crypto-swap: could not record payment session ${session.id} found by discovery: ${(error as Error).message}`)
        }
      }
    },
  })
  return new StepResponse<Discovery>({ discovered, read, loaded, discovered_through: through.toISOString() })
})
