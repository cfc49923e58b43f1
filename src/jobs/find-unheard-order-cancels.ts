import type { MedusaContainer } from "@medusajs/framework/types"
import { findUnheardOrderCancelsWorkflow } from "../workflows/find-unheard-order-cancels"

/**
 * A capture kept money only by racing the cancel, so both happened within moments of each other: payments
 * captured in the last hours are looked at, which covers two missed runs. Older ones were looked at when the
 * plugin was upgraded (the migration script of the same name).
 */
const LOOK_BACK_MS = 3 * 60 * 60 * 1000

/** Hourly: an order cancel the plugin never heard of is rare, and its check reads Medusa's orders. */
export default async function findUnheardOrderCancels(container: MedusaContainer) {
  await findUnheardOrderCancelsWorkflow(container).run({ input: { captured_since: new Date(Date.now() - LOOK_BACK_MS).toISOString() } })
}

export const config = {
  name: "crypto-swap-find-unheard-order-cancels",
  schedule: "23 * * * *",
}
