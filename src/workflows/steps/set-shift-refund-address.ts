import { createStep, StepResponse } from "@medusajs/framework/workflows-sdk"
import { ContainerRegistrationKeys } from "@medusajs/framework/utils"
import { CRYPTO_SWAP_MODULE, type CryptoSwapModuleService } from "../../modules/crypto-swap"
import { clientFor, providerById } from "../../lib/provider-registry"
import { ledgerFieldsFromShift } from "../../lib/ledger-fields"

/** Gives the service the refund address the plugin knows, for a shift waiting in the refund status. */
export const setShiftRefundAddressStep = createStep(
  "crypto-swap-set-shift-refund-address",
  async (input: { ledger_id: string }, { container }) => {
    const ledger = container.resolve<CryptoSwapModuleService>(CRYPTO_SWAP_MODULE)
    const row = await ledger.retrieveSwapShift(input.ledger_id)
    const client = clientFor(providerById(container.resolve(ContainerRegistrationKeys.CONFIG_MODULE), row.provider_id!))
    const shift = await client.setRefundAddress(row.shift_id!, {
      address: row.refund_address!,
      memo: row.refund_memo ?? undefined,
    })
    await ledger.updateSwapShifts({ id: row.id, ...ledgerFieldsFromShift(shift, row) })
    return new StepResponse(shift.refundAddress ?? null)
  }
)
