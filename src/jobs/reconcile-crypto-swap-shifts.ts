import type { MedusaContainer } from "@medusajs/framework/types"
import { ContainerRegistrationKeys, Modules } from "@medusajs/framework/utils"
import { reconcileShiftsWorkflow } from "../workflows/reconcile-shifts"
import { lockingScope } from "../lib/locking-scope"

let lockingChecked = false

/** Polling is the source of truth (direct shifts have no webhooks): every tick syncs the shifts that are due. */
export default async function reconcileCryptoSwapShifts(container: MedusaContainer) {
  if (!lockingChecked) {
    lockingChecked = true
    const { warning } = lockingScope(container.resolve(Modules.LOCKING), container.resolve(ContainerRegistrationKeys.CONFIG_MODULE))
    if (warning) container.resolve(ContainerRegistrationKeys.LOGGER).warn(`crypto-swap: ${warning}`)
  }
  await reconcileShiftsWorkflow(container).run()
}

export const config = {
  name: "crypto-swap-reconcile-shifts",
  // Each shift has its own cadence (seconds while money moves, minutes in review); the tick only
  // looks for shifts that are due, so it can be frequent.
  schedule: { interval: Number(process.env.CRYPTO_SWAP_RECONCILE_INTERVAL_MS ?? 5000) },
}
