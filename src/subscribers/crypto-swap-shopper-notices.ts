import type { SubscriberArgs, SubscriberConfig } from "@medusajs/framework"
import { SHOPPER_NOTICE_EVENTS } from "../lib/shift/shopper-notices"
import { sendShopperNoticeWorkflow } from "../workflows/send-shopper-notice"

/** The shopper hears of their payment: received, refund address needed, refunded, expired. */
export default async function cryptoSwapShopperNoticeHandler({ event, container }: SubscriberArgs<{ id: string }>) {
  await sendShopperNoticeWorkflow(container).run({ input: { ledger_id: event.data.id, event: event.name } })
}

export const config: SubscriberConfig = {
  event: SHOPPER_NOTICE_EVENTS,
  context: { subscriberId: "crypto-swap-shopper-notices" },
}
