import type { MedusaContainer } from "@medusajs/framework/types"
import { reconcileShiftsWorkflow } from "../workflows/reconcile-shifts"

/** Polling is the source of truth (direct shifts have no webhooks): every tick syncs the shifts that are due. */
export default async function reconcileCryptoSwapShifts(container: MedusaContainer) {
  await reconcileShiftsWorkflow(container).run()
}

export const config = {
  name: "crypto-swap-reconcile-shifts",
  // Each shift has its own cadence (seconds while money moves, minutes in review); the tick only
  // looks for shifts that are due, so it can be frequent.
  schedule: { interval: Number(process.env.CRYPTO_SWAP_RECONCILE_INTERVAL_MS ?? 5000) },
}
