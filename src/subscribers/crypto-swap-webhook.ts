import type { SubscriberArgs, SubscriberConfig } from "@medusajs/framework"
import { ContainerRegistrationKeys } from "@medusajs/framework/utils"
import { CRYPTO_SWAP_MODULE, type CryptoSwapModuleService } from "../modules/crypto-swap"
import { syncShiftWorkflow } from "../workflows/sync-shift"
import { WEBHOOK_RECEIVED_EVENT, type WebhookReceivedData } from "../lib/webhook-events"

/** Reads of one shift the notifications may cause at most: a flood of them costs one read a second. */
const MIN_WEBHOOK_SYNC_INTERVAL_MS = 1000

/** A notification only says "look now": the shift is synced through the same workflow as the poller. */
export default async function cryptoSwapWebhookHandler({ event, container }: SubscriberArgs<WebhookReceivedData>) {
  const { provider_id, shift_id, checkout_id, hook_id } = event.data
  const ledger = container.resolve<CryptoSwapModuleService>(CRYPTO_SWAP_MODULE)
  const logger = container.resolve(ContainerRegistrationKeys.LOGGER)

  const hooks = await ledger.listSwapWebhooks({ provider_id })
  if (hooks.length && !hooks.some((hook) => hook.hook_id === hook_id)) {
    logger.warn("crypto-swap: ignored a notification for a hook this store did not register")
    return
  }
  const [row] = await ledger.listSwapShifts(
    checkout_id ? { provider_id, $or: [{ shift_id }, { checkout_id }] } : { provider_id, shift_id },
    { take: 1 }
  )
  if (!row) {
    logger.debug?.("crypto-swap: ignored a notification for a shift this store does not know")
    return
  }
  const now = Date.now()
  if (row.last_synced_at && now - new Date(row.last_synced_at).getTime() < MIN_WEBHOOK_SYNC_INTERVAL_MS) {
    // Read a moment ago: make sure the next tick reads it again rather than reading now.
    const soon = new Date(now + MIN_WEBHOOK_SYNC_INTERVAL_MS)
    if (!row.next_sync_at || new Date(row.next_sync_at) > soon) await ledger.updateSwapShifts({ id: row.id, next_sync_at: soon })
    return
  }
  await syncShiftWorkflow(container).run({ input: { ledger_id: row.id, source: "webhook" }, throwOnError: false })
}

export const config: SubscriberConfig = {
  event: WEBHOOK_RECEIVED_EVENT,
  context: { subscriberId: "crypto-swap-webhook-sync" },
}
