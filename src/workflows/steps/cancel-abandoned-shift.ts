import { createStep, StepResponse } from "@medusajs/framework/workflows-sdk"
import { ContainerRegistrationKeys } from "@medusajs/framework/utils"
import { CRYPTO_SWAP_MODULE, type CryptoSwapModuleService } from "../../modules/crypto-swap"
import { clientFor, providerById } from "../../lib/provider-registry"

/**
 * Cancels at the service a waiting shift whose payment session Medusa deleted or canceled, so nobody
 * can pay into it any more. The service refuses for the first minutes of a shift: then nothing
 * changes and the next read of the shift tries again.
 */
export const cancelAbandonedShiftStep = createStep(
  "crypto-swap-cancel-abandoned-shift",
  async (input: { ledger_id: string }, { container }) => {
    const ledger = container.resolve<CryptoSwapModuleService>(CRYPTO_SWAP_MODULE)
    const row = await ledger.retrieveSwapShift(input.ledger_id)
    const client = clientFor(providerById(container.resolve(ContainerRegistrationKeys.CONFIG_MODULE), row.provider_id!))
    try {
      await client.cancelOrder(row.shift_id!)
    } catch (error) {
      container.resolve(ContainerRegistrationKeys.LOGGER).info(`crypto-swap: cancel of abandoned ${row.id} deferred (${(error as Error).message})`)
      return new StepResponse(false)
    }
    // Read the shift at the next tick, which records its expiry.
    await ledger.updateSwapShifts({ id: row.id, next_sync_at: new Date() })
    return new StepResponse(true)
  }
)
