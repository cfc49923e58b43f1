import type { MedusaContainer } from "@medusajs/framework/types"
import { ContainerRegistrationKeys, MedusaError } from "@medusajs/framework/utils"
import { catalogueFor, providerById } from "../../../lib/provider-registry"
import { paymentView } from "../../../lib/shift/payment-view"
import { decideLedgerRow } from "../../../lib/shift/ledger-fields"
import { CRYPTO_SWAP_MODULE, type CryptoSwapModuleService } from "../../../modules/crypto-swap"
import { syncShiftWorkflow } from "../../../workflows/sync-shift"

/**
 * A ledger shift as admin routes show it: its columns, its history oldest first, and the same view a
 * payment page gets (headline, QR code, explorer links), so a merchant can fund a refund shift too.
 */
export async function shiftWithHistory(scope: MedusaContainer, ledgerId: string) {
  const ledger = scope.resolve<CryptoSwapModuleService>(CRYPTO_SWAP_MODULE)
  const [row] = await ledger.listSwapShifts({ id: ledgerId }, { relations: ["events"] })
  if (!row) throw new MedusaError(MedusaError.Types.NOT_FOUND, `Crypto payment ${ledgerId} was not found`)
  const provider = providerById(scope.resolve(ContainerRegistrationKeys.CONFIG_MODULE), row.provider_id!)
  const { stage } = decideLedgerRow(row, provider.options)
  const { snapshot, ...shown } = row
  return {
    ...shown,
    actions: await ledger.listSwapShiftActions({ swap_shift_id: row.id }, { order: { created_at: "ASC" } }),
    events: [...row.events].sort((a, b) => new Date(a.occurred_at).getTime() - new Date(b.occurred_at).getTime()),
    view: await paymentView(row, stage, catalogueFor(provider)),
  }
}

/** Syncs a shift on an admin's request (trying its pending actions now if asked) and answers with its fresh state. */
export async function syncForAdmin(scope: MedusaContainer, ledgerId: string, retryActions = false) {
  const { errors } = await syncShiftWorkflow(scope).run({
    input: { ledger_id: ledgerId, source: "admin", retry_actions: retryActions },
    throwOnError: false,
  })
  const shift = await shiftWithHistory(scope, ledgerId)
  return { shift, sync_error: errors?.[0]?.error?.message ?? shift.last_error ?? null }
}
