import type { MedusaNextFunction, MedusaRequest, MedusaResponse } from "@medusajs/framework/http"
import { ContainerRegistrationKeys } from "@medusajs/framework/utils"
import { providerRegistry } from "../../lib/provider-registry"
import { toDecimalString } from "../../lib/money"
import { reusableSession } from "../../lib/shift/reusable-session"
import { storefrontChoiceSchema } from "../../lib/shift/storefront-input"
import { CRYPTO_SWAP_MODULE, type CryptoSwapModuleService } from "../../modules/crypto-swap"
import { recordViewed } from "../store/crypto-swap/shopper-session"
import { requestedCollection } from "./requested-collection"

/** What Medusa's own route answers with when the storefront asks for no particular fields. */
const COLLECTION_FIELDS = ["id", "currency_code", "amount", "status", "payment_sessions.*"]

/**
 * `POST /store/payment-collections/:id/payment-sessions` asking again for what the collection's session
 * already pays (a reload, a double click, a storefront that creates the session on every render) is
 * answered with that session as Medusa would answer, before its workflow deletes it and spends a quote
 * and a shift at the service on a copy. Runs before the checks and the throttles (reusing costs nothing,
 * and its shift already holds its place in the variable pool): only well-formed data is compared.
 */
export async function reuseWaitingSession(req: MedusaRequest, res: MedusaResponse, next: MedusaNextFunction) {
  try {
    const body = req.body as { provider_id?: unknown; data?: unknown } | undefined
    const providerId = typeof body?.provider_id === "string" ? body.provider_id : undefined
    const provider = providerId ? providerRegistry(req.scope.resolve(ContainerRegistrationKeys.CONFIG_MODULE)).get(providerId) : undefined
    const choice = provider && provider.options.mode === "shift" ? storefrontChoiceSchema.safeParse(body!.data) : undefined
    if (!choice?.success) return next()
    const collection = await requestedCollection(req)
    if (!collection) return next()
    const reused = reusableSession(collection.payment_sessions ?? [], providerId!, choice.data, toDecimalString(collection.amount))
    if (!reused) return next()
    // The session's copy of the status is best effort: the ledger says whether its shift still waits.
    const ledger = req.scope.resolve<CryptoSwapModuleService>(CRYPTO_SWAP_MODULE)
    const [row] = await ledger.listSwapShifts({ shift_id: (reused.data as { shift_id: string }).shift_id }, { take: 1 })
    const [cancelling] = row ? await ledger.listSwapShiftActions({ swap_shift_id: row.id, kind: "cancel_abandoned" }, { take: 1 }) : []
    if (row && (row.status !== "waiting" || row.terminal || row.canceled_at || cancelling)) return next()
    if (row) await recordViewed(ledger, [row])
    const fields = req.queryConfig?.fields?.length ? req.queryConfig.fields : COLLECTION_FIELDS
    const {
      data: [answer],
    } = await req.scope.resolve(ContainerRegistrationKeys.QUERY).graph({ entity: "payment_collection", fields, filters: { id: collection.id } })
    res.status(200).json({ payment_collection: answer })
  } catch (error) {
    next(error)
  }
}
