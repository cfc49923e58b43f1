import { createStep, StepResponse } from "@medusajs/framework/workflows-sdk"
import { ContainerRegistrationKeys, MedusaError } from "@medusajs/framework/utils"
import { CRYPTO_SWAP_MODULE, type CryptoSwapModuleService } from "../../modules/crypto-swap"
import { clientFor, providerById } from "../../lib/provider-registry"
import { assertRefundShiftClosed, assertRefundShiftUnfunded } from "./refund-shift-state"

/**
 * A refund shift lives as long as its fixed rate's quote: when it expired before the merchant funded
 * it, or the service sent the merchant's deposit back (a wrong amount, too late), the same refund gets a
 * new quote and shift from the sync that follows, once no deposit can reach the old one (which nothing
 * follows after this). Asked for by the admin when ready to send, so nothing renews quotes unattended.
 */
export const renewRefundShiftStep = createStep("crypto-swap-renew-refund-shift", async (input: { ledger_id: string }, { container }) => {
  const ledger = container.resolve<CryptoSwapModuleService>(CRYPTO_SWAP_MODULE)
  const row = await ledger.retrieveSwapShift(input.ledger_id)
  if (row.kind !== "refund" || !["expired", "refunded", "multiple"].includes(row.status) || !row.shift_id) {
    throw new MedusaError(
      MedusaError.Types.NOT_ALLOWED,
      "Only a refund whose shift expired before it was funded, or whose deposit the service sent back, can be renewed."
    )
  }
  // Asked of the service: a deposit that arrived at the deadline may not have been synced yet.
  const provider = providerById(container.resolve(ContainerRegistrationKeys.CONFIG_MODULE), row.provider_id!)
  assertRefundShiftClosed(await assertRefundShiftUnfunded(clientFor(provider), row.shift_id, "checking the expired refund shift"))
  const now = new Date()
  await ledger.restartRefundShift(
    {
      id: row.id,
      shift_id: null,
      refund_quote: null,
      status: "creating",
      terminal: false,
      expires_at: null,
      next_sync_at: now,
      // What the old shift's deposits did says nothing of the new one.
      flags: { ...(row.flags ?? {}), sent_back: null },
    },
    {
      swap_shift_id: row.id,
      from_status: row.status,
      to_status: "creating",
      source: "admin",
      action: "refund_shift_renewed",
      detail: { expired_shift_id: row.shift_id },
      occurred_at: now,
    }
  )
  return new StepResponse(row.id)
})
