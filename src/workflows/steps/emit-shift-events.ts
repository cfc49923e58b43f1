import { createStep, StepResponse } from "@medusajs/framework/workflows-sdk"
import { Modules } from "@medusajs/framework/utils"
import { CRYPTO_SWAP_MODULE, type CryptoSwapModuleService } from "../../modules/crypto-swap"
import { unsentEvents } from "../../lib/shift/plugin-events"
import type { RecordedShift } from "./record-shift-observation"
import type { ShiftActionOutcome } from "./run-shift-action"

/**
 * Emits the plugin's `crypto-swap.shift.*` events for a sync's transitions and what its actions found, so stores
 * can hook e-mails and alerts, with those an earlier sync recorded and stopped before sending; then the row has
 * none left to send. Sent again only when the process stops between the two (at least once: shopper notices
 * carry an idempotency key). The actions add theirs to the row's outbox as they record their outcome: read
 * again when any ran.
 */
export const emitShiftEventsStep = createStep(
  "crypto-swap-emit-shift-events",
  async (input: { recorded: RecordedShift; outcomes: Array<ShiftActionOutcome | undefined> }, { container }) => {
    const ledger = container.resolve<CryptoSwapModuleService>(CRYPTO_SWAP_MODULE)
    const actionsRan = input.outcomes.some(Boolean)
    const messages = actionsRan
      ? unsentEvents(await ledger.retrieveSwapShift(input.recorded.ledger_id, { select: ["unsent_events"] }))
      : input.recorded.unsent_events ?? []
    if (messages.length) {
      await container.resolve(Modules.EVENT_BUS).emit(messages)
      await ledger.updateSwapShifts({ id: input.recorded.ledger_id, unsent_events: null })
    }
    return new StepResponse(messages.map((message) => message.name))
  }
)
