import { createStep, StepResponse } from "@medusajs/framework/workflows-sdk"
import { ContainerRegistrationKeys } from "@medusajs/framework/utils"
import { CRYPTO_SWAP_MODULE, type CryptoSwapModuleService } from "../../modules/crypto-swap"
import { providerRegistry } from "../../lib/provider-registry"
import { ledgerRowFromSession, recordNewShift } from "./record-new-shift"
import { collectionPayer } from "./collection-payer"

export type RecordPaymentShiftInput = {
  session_id: string
  /**
   * The session's data as the provider made it. At creation Medusa has not stored it yet when the
   * provider announces it; without it, the stored data is used.
   */
  data?: Record<string, unknown>
  source: "create" | "storefront"
}

/**
 * Puts a payment session's shift (or hosted checkout) into the ledger, unless it is there already:
 * the session row, which Medusa commits before asking the provider, says whose it is and for which cart.
 */
export const recordPaymentShiftStep = createStep(
  "crypto-swap-record-payment-shift",
  async (input: RecordPaymentShiftInput, { container }) => {
    const query = container.resolve(ContainerRegistrationKeys.QUERY)
    const {
      data: [session],
    } = await query.graph({
      entity: "payment_session",
      fields: ["id", "provider_id", "data", "payment_collection_id"],
      filters: { id: input.session_id },
    })
    const providers = providerRegistry(container.resolve(ContainerRegistrationKeys.CONFIG_MODULE))
    // Gone already (creation failed and Medusa removed it) or not ours: discovery has nothing to add either.
    if (!session || !providers.has(session.provider_id)) return new StepResponse(false)
    const data = input.data ?? session.data ?? {}
    if (!data.shift_id && !data.checkout_id) return new StepResponse(false)

    const { data: carts } = await query.graph({
      entity: "cart_payment_collection",
      fields: ["cart_id"],
      filters: { payment_collection_id: session.payment_collection_id },
    })
    const payer = await collectionPayer(container, session.payment_collection_id, carts[0]?.cart_id ?? null)
    const ledger = container.resolve<CryptoSwapModuleService>(CRYPTO_SWAP_MODULE)
    const row = ledgerRowFromSession({ ...session, data } as Parameters<typeof ledgerRowFromSession>[0], payer)
    return new StepResponse(await recordNewShift(ledger, row, input.source))
  }
)
