import type { SubscriberArgs, SubscriberConfig } from "@medusajs/framework"
import { ContainerRegistrationKeys, PaymentEvents } from "@medusajs/framework/utils"
import { createRefundShiftsWorkflow } from "../workflows/create-refund-shifts"

/** A refunded crypto payment (admin refund or order cancel) gets its refund shift. */
export default async function cryptoSwapRefundHandler({ event, container }: SubscriberArgs<{ id: string }>) {
  const { errors } = await createRefundShiftsWorkflow(container).run({ input: { payment_id: event.data.id }, throwOnError: false })
  if (errors?.length) {
    // The refund stays owed in the payment's data and the ledger; an admin sees it and can retry.
    container
      .resolve(ContainerRegistrationKeys.LOGGER)
      .error(`crypto-swap: could not create the refund shift for payment ${event.data.id}: ${errors[0].error?.message}`)
  }
}

export const config: SubscriberConfig = {
  event: PaymentEvents.REFUNDED,
  context: { subscriberId: "crypto-swap-refund-shifts" },
}
