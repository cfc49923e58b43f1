import { createStep, StepResponse } from "@medusajs/framework/workflows-sdk"
import { ContainerRegistrationKeys } from "@medusajs/framework/utils"
import { CRYPTO_SWAP_MODULE, type CryptoSwapModuleService } from "../../modules/crypto-swap"

/** Ledger rows, and so orders, per read. */
const PAGE_SIZE = 1000

/**
 * Captured payments (captured since `captured_since`, or ever) whose order was canceled without the plugin
 * hearing of it: the `order.canceled` subscriber never ran (the process stopped first, no bus delivers the event
 * again) or failed. A capture racing that cancel may have kept the money: each such row records the cancel and is
 * due at once, and its next sync refunds what was kept (`refund_canceled_capture`, nothing when the cancel
 * refunded it). Marking twice, or beside the subscriber, records the same cancel.
 */
export const markUnheardOrderCancelsStep = createStep(
  "crypto-swap-mark-unheard-order-cancels",
  async (input: { captured_since: string | null }, { container }) => {
    const ledger = container.resolve<CryptoSwapModuleService>(CRYPTO_SWAP_MODULE)
    const query = container.resolve(ContainerRegistrationKeys.QUERY)
    const marked: string[] = []
    for (let after = ""; ; ) {
      const rows = await ledger.listSwapShifts(
        {
          kind: "payment",
          id: { $gt: after },
          order_id: { $ne: null },
          order_canceled_at: null,
          captured_at: input.captured_since ? { $gte: new Date(input.captured_since) } : { $ne: null },
        },
        { select: ["id", "order_id"], order: { id: "ASC" }, take: PAGE_SIZE }
      )
      if (!rows.length) break
      after = rows[rows.length - 1].id
      const { data: orders } = await query.graph({ entity: "order", fields: ["id", "canceled_at"], filters: { id: [...new Set(rows.map((row) => row.order_id!))] } })
      // Canceled is `canceled_at`: an archived canceled order no longer says so in its status.
      const canceledAt = new Map(orders.filter((order) => order.canceled_at).map((order) => [order.id as string, new Date(order.canceled_at as Date | string)]))
      const unheard = rows.filter((row) => canceledAt.has(row.order_id!))
      if (unheard.length) {
        const now = new Date()
        await ledger.updateSwapShifts(unheard.map((row) => ({ id: row.id, order_canceled_at: canceledAt.get(row.order_id!)!, next_sync_at: now })))
        container
          .resolve(ContainerRegistrationKeys.LOGGER)
          .warn(`crypto-swap: orders ${[...new Set(unheard.map((row) => row.order_id))].join(", ")} were canceled without the plugin hearing of it: their captured crypto payments are checked for money to refund`)
        marked.push(...unheard.map((row) => row.id))
      }
      if (rows.length < PAGE_SIZE) break
    }
    return new StepResponse(marked)
  }
)
