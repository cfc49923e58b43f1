import type { SubscriberArgs, SubscriberConfig } from "@medusajs/framework"
import { ContainerRegistrationKeys, OrderWorkflowEvents } from "@medusajs/framework/utils"
import { CRYPTO_SWAP_MODULE, type CryptoSwapModuleService } from "../modules/crypto-swap"
import { syncShiftWorkflow } from "../workflows/sync-shift"

/**
 * An order canceled while its crypto payment was authorized, not captured: its shift is synced now, so
 * money that already settled short of the amount due is recorded as owed back (a full payment's capture
 * finds the cancel when its shift settles). A failure is logged; the payment's Sync in the admin does the
 * same, as do its hourly reads while its address is open.
 */
export default async function cryptoSwapOrderCanceledHandler({ event, container }: SubscriberArgs<{ id: string }>) {
  const ledger = container.resolve<CryptoSwapModuleService>(CRYPTO_SWAP_MODULE)
  const rows = await ledger.listSwapShifts({ kind: "payment", order_id: event.data.id, captured_at: null, refund_owed: null }, { select: ["id"] })
  for (const row of rows) {
    const { result, errors } = await syncShiftWorkflow(container).run({ input: { ledger_id: row.id, source: "admin" }, throwOnError: false })
    // A failed read ends the sync without an error of the workflow's: said too, it left the same gap.
    const failure = errors?.[0]?.error?.message ?? result?.recorded?.error
    if (failure) {
      container
        .resolve(ContainerRegistrationKeys.LOGGER)
        .warn(`crypto-swap: payment ${row.id} of canceled order ${event.data.id} not synced (press Sync on it in the admin): ${failure}`)
    }
  }
}

export const config: SubscriberConfig = {
  event: OrderWorkflowEvents.CANCELED,
  context: { subscriberId: "crypto-swap-order-canceled" },
}
