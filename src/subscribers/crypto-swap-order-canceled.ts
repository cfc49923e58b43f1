import type { SubscriberArgs, SubscriberConfig } from "@medusajs/framework"
import { ContainerRegistrationKeys, OrderWorkflowEvents, PaymentSessionStatus } from "@medusajs/framework/utils"
import { CRYPTO_SWAP_MODULE, type CryptoSwapModuleService } from "../modules/crypto-swap"
import { markSessionGivenBack } from "../workflows/steps/payment-credit"
import { syncShiftFailure } from "../workflows/sync-shift"

/**
 * An order canceled: each of its crypto payments' rows records the cancel and its shift is synced now. Money
 * that already settled short of the amount due is recorded as owed back (a full payment's capture finds the
 * cancel when its shift settles); a shift nobody paid yet (the order was placed before payment) is canceled at
 * the service, so nobody pays it, and its session refuses to be authorized. Money captured that the cancel did
 * not refund (a capture raced it) is refunded by the sync's own action, retried until Medusa recorded it. A
 * failed sync is logged; the payment's Sync in the admin does the same, as do its reads while it is open.
 */
export default async function cryptoSwapOrderCanceledHandler({ event, container }: SubscriberArgs<{ id: string }>) {
  const ledger = container.resolve<CryptoSwapModuleService>(CRYPTO_SWAP_MODULE)
  const query = container.resolve(ContainerRegistrationKeys.QUERY)
  // An order placed before payment is known to its payment's row by the session alone until money moves;
  // a session canceled earlier (its shift expired) paid nothing for this order.
  const {
    data: [order],
  } = await query.graph({ entity: "order", fields: ["payment_collections.payment_sessions.id", "payment_collections.payment_sessions.status"], filters: { id: event.data.id } })
  const sessionIds = (order?.payment_collections ?? [])
    .flatMap((collection: any) => collection?.payment_sessions ?? [])
    .filter((session: any) => session.status !== PaymentSessionStatus.CANCELED)
    .map((session: any) => session.id as string)
  const rows = await ledger.listSwapShifts(
    { kind: "payment", refund_owed: null, $or: [{ order_id: event.data.id }, ...(sessionIds.length ? [{ payment_session_id: sessionIds }] : [])] },
    { select: ["id", "order_id", "order_canceled_at", "payment_session_id", "authorized_at"] }
  )
  for (const row of rows) {
    // Due now as well: should this process stop before its sync, the next tick syncs it.
    if (!row.order_canceled_at) {
      await ledger.updateSwapShifts({ id: row.id, order_canceled_at: new Date(), order_id: row.order_id ?? event.data.id, next_sync_at: new Date() })
    }
    // Not authorized yet: no route may authorize it for the canceled order any more, Medusa's own payment webhook
    // route included. (An authorized one's payment Medusa canceled; its session stays, so its money is owed back.)
    const marked = row.authorized_at
      ? null
      : await markSessionGivenBack(container, row).then(
          () => null,
          (error: Error) => `its session could not be marked given back: ${error.message}`
        )
    const failure = marked ?? (await syncShiftFailure(container, row.id, "admin"))
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
