import type { SubscriberArgs, SubscriberConfig } from "@medusajs/framework"
import { ContainerRegistrationKeys, PaymentEvents } from "@medusajs/framework/utils"
import { CRYPTO_SWAP_MODULE, type CryptoSwapModuleService } from "../modules/crypto-swap"
import { recordRefundsWorkflow } from "../workflows/record-refunds"
import { syncShiftWorkflow } from "../workflows/sync-shift"

/**
 * An admin refunded a crypto payment: its refund shift is made now rather than at the next tick.
 * Only a shortcut: reconciliation records every refund Medusa makes, whichever path made it.
 */
export default async function cryptoSwapRefundHandler({ event, container }: SubscriberArgs<{ id: string }>) {
  const logger = container.resolve(ContainerRegistrationKeys.LOGGER)
  const { errors } = await recordRefundsWorkflow(container).run({ input: { payment_id: event.data.id }, throwOnError: false })
  if (errors?.length) {
    logger.warn(`crypto-swap: refunds of payment ${event.data.id} left for reconciliation: ${errors[0].error?.message}`)
    return
  }
  const ledger = container.resolve<CryptoSwapModuleService>(CRYPTO_SWAP_MODULE)
  const waiting = await ledger.listSwapShifts({ kind: "refund", payment_id: event.data.id, status: "creating" }, { select: ["id"] })
  for (const row of waiting) {
    await syncShiftWorkflow(container).run({ input: { ledger_id: row.id, source: "admin" }, throwOnError: false })
  }
}

export const config: SubscriberConfig = {
  event: PaymentEvents.REFUNDED,
  context: { subscriberId: "crypto-swap-refund-shifts" },
}
