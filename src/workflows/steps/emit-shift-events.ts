import { createStep, StepResponse } from "@medusajs/framework/workflows-sdk"
import { Modules } from "@medusajs/framework/utils"
import { CRYPTO_SWAP_MODULE, type CryptoSwapModuleService } from "../../modules/crypto-swap"
import type { RecordedShift } from "./record-shift-observation"

/**
 * Emits the plugin's `crypto-swap.shift.*` events for a sync's transitions, so stores can hook e-mails
 * and alerts, with those an earlier sync recorded and stopped before sending; then the row has none left
 * to send. Sent again only when the process stops between the two (at least once: shopper notices carry
 * an idempotency key).
 */
export const emitShiftEventsStep = createStep(
  "crypto-swap-emit-shift-events",
  async (input: { recorded: RecordedShift }, { container }) => {
    const messages = input.recorded.unsent_events ?? []
    if (messages.length) {
      await container.resolve(Modules.EVENT_BUS).emit(messages)
      await container.resolve<CryptoSwapModuleService>(CRYPTO_SWAP_MODULE).updateSwapShifts({ id: input.recorded.ledger_id, unsent_events: null })
    }
    return new StepResponse(messages.map((message) => message.name))
  }
)
