import type { SubscriberArgs, SubscriberConfig } from "@medusajs/framework"
import { ContainerRegistrationKeys } from "@medusajs/framework/utils"
import { SHIFT_CREATED_EVENT } from "../lib/shift/plugin-events"
import { recordPaymentShiftWorkflow } from "../workflows/record-payment-shift"

/** The provider made a shift: the ledger follows it from now on, whatever becomes of its session. */
export default async function cryptoSwapShiftCreatedHandler({
  event,
  container,
}: SubscriberArgs<{ session_id: string; data: Record<string, unknown> }>) {
  const { errors } = await recordPaymentShiftWorkflow(container).run({
    input: { session_id: event.data.session_id, data: event.data.data, source: "create" },
    throwOnError: false,
  })
  if (errors?.length) {
    // Reconciliation's discovery records it from the session on a later tick.
    container
      .resolve(ContainerRegistrationKeys.LOGGER)
      .warn(`crypto-swap: could not record the new payment ${event.data.session_id}: ${errors[0].error?.message}`)
  }
}

export const config: SubscriberConfig = {
  event: SHIFT_CREATED_EVENT,
  context: { subscriberId: "crypto-swap-record-new-shifts" },
}
