import { createStep, StepResponse } from "@medusajs/framework/workflows-sdk"
import { ContainerRegistrationKeys, MedusaError } from "@medusajs/framework/utils"
import { CRYPTO_SWAP_MODULE, type CryptoSwapModuleService } from "../../modules/crypto-swap"
import { clientFor, providerById } from "../../lib/provider-registry"
import { toMedusaError } from "../../lib/to-medusa-error"

/** An admin cancels at the service a shift still waiting for its deposit; the sync that follows records it. */
export const cancelWaitingShiftStep = createStep("crypto-swap-cancel-waiting-shift", async (input: { ledger_id: string }, { container }) => {
  const row = await container.resolve<CryptoSwapModuleService>(CRYPTO_SWAP_MODULE).retrieveSwapShift(input.ledger_id)
  if (!row.shift_id || row.status !== "waiting") {
    throw new MedusaError(MedusaError.Types.NOT_ALLOWED, `Only a shift waiting for its deposit can be canceled; this one is "${row.status}".`)
  }
  const provider = providerById(container.resolve(ContainerRegistrationKeys.CONFIG_MODULE), row.provider_id!)
  try {
    await clientFor(provider).cancelOrder(row.shift_id)
  } catch (error) {
    throw toMedusaError(error, "canceling the shift")
  }
  return new StepResponse(row.id)
})
