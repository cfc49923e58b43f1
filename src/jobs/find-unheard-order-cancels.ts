import type { MedusaContainer } from "@medusajs/framework/types"
import { ContainerRegistrationKeys } from "@medusajs/framework/utils"
import { findUnheardOrderCancelsWorkflow } from "../workflows/find-unheard-order-cancels"
import { syncShiftFailure } from "../workflows/sync-shift"

/**
 * A capture kept money only by racing the cancel, so both happened within moments of each other: payments
 * captured in the last hours are looked at, which covers two missed runs. Older ones were looked at when the
 * plugin was upgraded (the migration script of the same name).
 */
const LOOK_BACK_MS = 3 * 60 * 60 * 1000

/**
 * Each payment found is synced at once, under its shift's lock as the cancel's subscriber does: a sync already
 * under way when it was marked planned without the cancel, and finishes first.
 */
export default async function findUnheardOrderCancels(container: MedusaContainer) {
  const { result: marked } = await findUnheardOrderCancelsWorkflow(container).run({
    input: { captured_since: new Date(Date.now() - LOOK_BACK_MS).toISOString() },
  })
  for (const ledgerId of marked) {
    const failure = await syncShiftFailure(container, ledgerId, "poll")
    // Due now: the next tick tries again.
    if (failure) container.resolve(ContainerRegistrationKeys.LOGGER).warn(`crypto-swap: payment ${ledgerId} of a canceled order not synced yet: ${failure}`)
  }
}

export const config = {
  name: "crypto-swap-find-unheard-order-cancels",
  // Hourly: an order cancel the plugin never heard of is rare, and looking for one reads Medusa's orders.
  schedule: { interval: Number(process.env.CRYPTO_SWAP_UNHEARD_CANCELS_INTERVAL_MS ?? 60 * 60 * 1000) },
}
