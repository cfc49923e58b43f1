import { createStep, StepResponse } from "@medusajs/framework/workflows-sdk"
import { ContainerRegistrationKeys } from "@medusajs/framework/utils"
import { CRYPTO_SWAP_MODULE, type CryptoSwapModuleService } from "../../modules/crypto-swap"
import { providerById } from "../../lib/provider-registry"
import { nextSyncAt } from "../../lib/sync-cadence"
import type { RecordedShift, SyncSource } from "./record-shift-observation"

/**
 * Marks the actions of a sync as done once they really are: the order exists after authorization,
 * the payment is captured after capture. Anything not yet true stays pending and is retried.
 */
export const completeShiftActionsStep = createStep(
  "crypto-swap-complete-shift-actions",
  async (input: { recorded: RecordedShift; source: SyncSource }, { container }) => {
    const { recorded, source } = input
    if (!recorded.plan) return new StepResponse(undefined)
    const ledger = container.resolve<CryptoSwapModuleService>(CRYPTO_SWAP_MODULE)
    const query = container.resolve(ContainerRegistrationKeys.QUERY)
    const configModule = container.resolve(ContainerRegistrationKeys.CONFIG_MODULE)
    const row = await ledger.retrieveSwapShift(recorded.ledger_id)
    const { options } = providerById(configModule, row.provider_id!)
    const now = new Date()

    const update: Record<string, unknown> = { id: row.id }
    const done: string[] = []
    if (row.payment_session_id) {
      const {
        data: [session],
      } = await query.graph({
        entity: "payment_session",
        fields: ["id", "status", "payment.id", "payment.captured_at", "payment_collection.id"],
        filters: { id: row.payment_session_id },
      })
      const payment = session?.payment
      if (row.cart_id && !row.order_id) {
        const { data: links } = await query.graph({ entity: "order_cart", fields: ["order_id"], filters: { cart_id: row.cart_id } })
        if (links[0]?.order_id) update.order_id = links[0].order_id
      }
      if (payment?.id && !row.payment_id) update.payment_id = payment.id
      if (recorded.plan.authorize && (payment?.id || update.order_id || row.order_id) && !row.authorized_at) {
        update.authorized_at = now
        done.push("authorized")
      }
      if (recorded.plan.capture && payment?.captured_at && !row.captured_at) {
        update.captured_at = now
        update.authorized_at = row.authorized_at ?? now
        done.push("captured")
      }
    }
    if ((recorded.plan.cancelExpired || recorded.plan.cancelRefunded) && !row.canceled_at) {
      update.canceled_at = now
      done.push("canceled")
    }
    const pending =
      (recorded.plan.authorize && !update.authorized_at) ||
      (recorded.plan.capture && !update.captured_at) ||
      recorded.plan.setRefundAddress
    update.next_sync_at = nextSyncAt(
      { status: row.status, terminal: row.terminal, actionPending: Boolean(pending), failures: 0 },
      options.reconcile,
      now
    )
    await ledger.updateSwapShifts(update as { id: string })
    if (done.length) {
      await ledger.createSwapShiftEvents(
        done.map((action) => ({
          swap_shift_id: row.id,
          from_status: row.status,
          to_status: row.status,
          source,
          action,
          occurred_at: now,
        }))
      )
    }
    return new StepResponse(done)
  }
)
