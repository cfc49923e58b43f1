import type { AuthenticatedMedusaRequest, MedusaResponse } from "@medusajs/framework/http"
import { ContainerRegistrationKeys, MedusaError } from "@medusajs/framework/utils"
import { CRYPTO_SWAP_MODULE, type CryptoSwapModuleService } from "../../../../../../modules/crypto-swap"
import { clientFor, providerById } from "../../../../../../lib/provider-registry"
import { parseInput } from "../../../../../parse-input"
import { shiftWithHistory } from "../../../admin-shift"
import { markRefundedSchema } from "../../../validators"

/**
 * The manual refund mode: the merchant paid the shopper back by other means. A refund shift not yet
 * funded is canceled at the service when it allows, and the refund is recorded as paid manually.
 */
export async function POST(req: AuthenticatedMedusaRequest, res: MedusaResponse) {
  const { note } = parseInput(markRefundedSchema, req.body)
  const ledger = req.scope.resolve<CryptoSwapModuleService>(CRYPTO_SWAP_MODULE)
  const row = await shiftWithHistory(req.scope, req.params.id)
  if (row.kind !== "refund") throw new MedusaError(MedusaError.Types.NOT_ALLOWED, "Only a refund can be marked as paid by other means.")
  if (!["address_needed", "waiting"].includes(row.status)) {
    throw new MedusaError(MedusaError.Types.NOT_ALLOWED, `This refund is already "${row.status}" at the service; it can't be marked paid by hand.`)
  }
  if (row.shift_id) {
    const provider = providerById(req.scope.resolve(ContainerRegistrationKeys.CONFIG_MODULE), row.provider_id!)
    // An unfunded refund shift is harmless, so a refused cancel (too early) does not stop the record.
    await clientFor(provider).cancelOrder(row.shift_id).catch(() => undefined)
  }
  const now = new Date()
  await ledger.updateSwapShifts({
    id: row.id,
    status: "paid_manually",
    terminal: true,
    next_sync_at: null,
    flags: { ...(row.flags ?? {}), address_needed: null, paid_manually: { by: req.auth_context.actor_id, note: note ?? null } },
  })
  await ledger.createSwapShiftEvents({
    swap_shift_id: row.id,
    from_status: row.status,
    to_status: "paid_manually",
    source: "admin",
    action: "marked_refunded",
    detail: { by: req.auth_context.actor_id, note: note ?? null },
    occurred_at: now,
  })
  res.json({ shift: await shiftWithHistory(req.scope, row.id), sync_error: null })
}
