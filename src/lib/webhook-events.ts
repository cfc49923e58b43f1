/** Emitted by the webhook route for the subscriber that syncs the shift. */
export const WEBHOOK_RECEIVED_EVENT = "crypto-swap.webhook.received"

export type WebhookReceivedData = {
  provider_id: string
  shift_id: string
  checkout_id?: string
  hook_id: string
  account_id: string
  /** When the notification arrived: a sync that read the shift after it has already seen its news. */
  received_at: string
}
