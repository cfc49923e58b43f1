import { createStep, StepResponse } from "@medusajs/framework/workflows-sdk"
import { ContainerRegistrationKeys } from "@medusajs/framework/utils"
import { CRYPTO_SWAP_MODULE, type CryptoSwapModuleService } from "../../modules/crypto-swap"
import { clientFor, providerById } from "../../lib/provider-registry"
import { latestShiftId, type Shift } from "../../lib/swap-service"

export type ShiftObservation = {
  row: Awaited<ReturnType<CryptoSwapModuleService["retrieveSwapShift"]>>
  shift: Shift | null
  /** Why the service could not be read; the sync records it and backs off. */
  error?: string
  /** Read by another sync since this one was asked for: nothing new to learn. */
  fresh?: boolean
}

/** Reads the shift behind a ledger row from the service (through its checkout in checkout mode). */
export const observeShiftStep = createStep(
  "crypto-swap-observe-shift",
  async (input: { ledger_id: string; fresh_since?: string }, { container }): Promise<StepResponse<ShiftObservation>> => {
    const ledger = container.resolve<CryptoSwapModuleService>(CRYPTO_SWAP_MODULE)
    const row = await ledger.retrieveSwapShift(input.ledger_id)
    if (input.fresh_since && row.last_synced_at && new Date(row.last_synced_at) >= new Date(input.fresh_since)) {
      return new StepResponse({ row, shift: null, fresh: true })
    }
    const configModule = container.resolve(ContainerRegistrationKeys.CONFIG_MODULE)
    try {
      const client = clientFor(providerById(configModule, row.provider_id!))
      const shiftId = row.shift_id ?? (row.checkout_id ? latestShiftId(await client.getCheckout(row.checkout_id)) : undefined)
      const shift = shiftId ? await client.getShift(shiftId) : null
      return new StepResponse({ row, shift })
    } catch (error) {
      return new StepResponse({ row, shift: null, error: (error as Error).message })
    }
  }
)
