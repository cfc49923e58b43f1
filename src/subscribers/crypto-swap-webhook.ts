import { setTimeout } from "node:timers/promises"
import type { SubscriberArgs, SubscriberConfig } from "@medusajs/framework"
import { ContainerRegistrationKeys } from "@medusajs/framework/utils"
import { CRYPTO_SWAP_MODULE, type CryptoSwapModuleService } from "../modules/crypto-swap"
import { syncShiftWorkflow } from "../workflows/sync-shift"
import { providerById } from "../lib/provider-registry"
import { WEBHOOK_RECEIVED_EVENT, type WebhookReceivedData } from "../lib/webhook-events"

/** Notifications read a shift at most once a second, however many arrive. */
const MIN_WEBHOOK_SYNC_INTERVAL_MS = 1000

/** A notification only says "look now": the shift is synced through the same workflow as the poller. */
export default async function cryptoSwapWebhookHandler({ event, container }: SubscriberArgs<WebhookReceivedData>) {
  const { provider_id, shift_id, checkout_id, hook_id, received_at } = event.data
  const ledger = container.resolve<CryptoSwapModuleService>(CRYPTO_SWAP_MODULE)
  const logger = container.resolve(ContainerRegistrationKeys.LOGGER)

  const { options } = providerById(container.resolve(ContainerRegistrationKeys.CONFIG_MODULE), provider_id)
  const hookIds = (await ledger.listSwapWebhooks({ provider_id })).map((hook) => hook.hook_id)
  if (options.webhookHookId) hookIds.push(options.webhookHookId)
  if (hookIds.length && !hookIds.includes(hook_id)) {
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
  const lastRead = row.last_synced_at ? new Date(row.last_synced_at).getTime() : 0
  if (lastRead >= new Date(received_at).getTime()) return
  const wait = lastRead + MIN_WEBHOOK_SYNC_INTERVAL_MS - Date.now()
  if (wait > 0) await setTimeout(wait)
  const { errors } = await syncShiftWorkflow(container).run({
    input: { ledger_id: row.id, source: "webhook", fresh_since: received_at },
    throwOnError: false,
  })
  if (errors?.length) {
    logger.warn(`crypto-swap: syncing ledger shift ${row.id} after a notification failed: ${errors[0].error?.message}`)
  }
}

export const config: SubscriberConfig = {
  event: WEBHOOK_RECEIVED_EVENT,
  context: { subscriberId: "crypto-swap-webhook-sync" },
}
