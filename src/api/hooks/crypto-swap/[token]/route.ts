import type { MedusaRequest, MedusaResponse } from "@medusajs/framework/http"
import { ContainerRegistrationKeys, Modules } from "@medusajs/framework/utils"
import { providerRegistry } from "../../../../lib/provider-registry"
import { tokenMatches, webhookToken } from "../../../../lib/webhook-token"
import { webhookNotificationSchema } from "../../../../lib/swap-service"
import { WEBHOOK_RECEIVED_EVENT, type WebhookReceivedData } from "../../../../lib/webhook-events"

/**
 * Receives the service's (unsigned) notifications. The secret token in the URL keeps strangers out;
 * the body is only a hint: the subscriber reads the shift from the service and acts on that.
 */
export async function POST(req: MedusaRequest, res: MedusaResponse) {
  const registry = providerRegistry(req.scope.resolve(ContainerRegistrationKeys.CONFIG_MODULE))
  const provider = [...registry.values()].find((candidate) => tokenMatches(req.params.token, webhookToken(candidate)))
  if (!provider) {
    res.status(404).json({ message: "Not found" })
    return
  }
  const notification = webhookNotificationSchema.safeParse(req.body)
  if (!notification.success) {
    res.status(400).json({ message: "Not a notification of the swap service" })
    return
  }
  const { meta, payload } = notification.data
  if (meta.hook.accountId !== provider.options.accountId) {
    res.status(400).json({ message: "The notification names another account" })
    return
  }
  const data: WebhookReceivedData = {
    provider_id: provider.providerId,
    shift_id: payload.shiftId,
    checkout_id: payload.checkoutId ?? undefined,
    hook_id: meta.hook.id,
    account_id: meta.hook.accountId,
    received_at: new Date().toISOString(),
  }
  await req.scope.resolve(Modules.EVENT_BUS).emit({ name: WEBHOOK_RECEIVED_EVENT, data })
  res.status(200).json({ received: true })
}
