import { createStep, StepResponse } from "@medusajs/framework/workflows-sdk"
import { Modules } from "@medusajs/framework/utils"
import type { RecordedShift } from "./record-shift-observation"

/**
 * Emits the plugin's `crypto-swap.shift.*` events for a sync's transitions, so stores can hook e-mails
 * and alerts. The data names the ledger row, never the shift id (it is sensitive).
 */
export const emitShiftEventsStep = createStep(
  "crypto-swap-emit-shift-events",
  async (input: { recorded: RecordedShift }, { container }) => {
    const { recorded } = input
    const names = recorded.plan?.events ?? []
    if (names.length) {
      const eventBus = container.resolve(Modules.EVENT_BUS)
      await eventBus.emit(
        names.map((name) => ({
          name,
          data: { id: recorded.ledger_id, status: recorded.status, stage: recorded.decision?.stage },
        }))
      )
    }
    return new StepResponse(names)
  }
)
