import { createStep, StepResponse } from "@medusajs/framework/workflows-sdk"
import { ContainerRegistrationKeys, Modules } from "@medusajs/framework/utils"
import type { MedusaContainer } from "@medusajs/framework/types"
import { CRYPTO_SWAP_MODULE, type CryptoSwapModuleService } from "../../modules/crypto-swap"
import type { ShiftActionKind } from "../../modules/crypto-swap/models/swap-shift-action"
import { providerById } from "../../lib/provider-registry"
import { BLOCKED_ACTION_ATTENTION_MS, retryAt } from "../../lib/shift/sync-cadence"
import { SHIFT_ACTIONS } from "../actions"
import { ActionNeedsAdmin, ActionNotYet, type AttentionCause } from "../actions/shift-action"
import type { RecordedShift, SyncSource } from "./record-shift-observation"

/** `blocked`: not tried, waiting on another action (a capture waits for the order to be placed). */
export type ShiftActionOutcome = { kind: ShiftActionKind; done: boolean; reread: boolean; blocked?: boolean }

/** Long enough to say why, short enough for a log line and the admin's table. */
const MAX_ERROR_LENGTH = 500

/**
 * Runs one due action and records how it went on its ledger record. A failure never throws: it would
 * roll back the sync. It is counted, logged and retried with backoff; after `maxActionAttempts` (or at
 * once, for one that must not be repeated unattended) the action waits in `attention` and
 * `crypto-swap.shift.attention` is emitted, once.
 */
export const runShiftActionStep = createStep(
  "crypto-swap-run-shift-action",
  async (input: { kind: ShiftActionKind; recorded: RecordedShift; source: SyncSource }, { container }) => {
    const { kind, recorded, source } = input
    const ledger = container.resolve<CryptoSwapModuleService>(CRYPTO_SWAP_MODULE)
    const eventBus = container.resolve(Modules.EVENT_BUS)
    const row = await ledger.retrieveSwapShift(recorded.ledger_id)
    const entry = SHIFT_ACTIONS.find((candidate) => candidate.kind === kind)!
    const [action] = await ledger.listSwapShiftActions({ swap_shift_id: row.id, kind })
    const now = new Date()
    // Read after the actions before it in this sync, which it may wait on.
    if (entry.ready && !entry.ready.when(row)) {
      await keepWaiting(container, action, `for ${entry.ready.waitsFor}`, { id: row.id, status: recorded.status }, now, null)
      return new StepResponse<ShiftActionOutcome>({ kind, done: false, reread: false, blocked: true })
    }
    const attempts = action.attempts + 1
    try {
      const result = await entry.run(container, row, recorded)
      if (result.ledger) await ledger.updateSwapShifts({ id: row.id, ...result.ledger })
      // Money recorded owed places no order: an authorize still retrying, or waiting for an admin, ends with it.
      const ended = [...(result.ledger?.refund_owed ? (["authorize"] as const) : []), ...(result.ends ?? [])]
      if (ended.length) await ledger.endOpenActions(row.id, ended, result.outcome ?? kind)
      await ledger.updateSwapShiftActions({
        id: action.id,
        state: "done",
        attempts,
        done_at: now,
        next_attempt_at: null,
        last_error: null,
        blocked_since: null,
        outcome: result.outcome ?? null,
      })
      if (result.history) {
        await ledger.createSwapShiftEvents({
          swap_shift_id: row.id,
          from_status: recorded.status,
          // An action that moved the shift (a refund shift made) records where it went.
          to_status: typeof result.ledger?.status === "string" ? result.ledger.status : recorded.status,
          source,
          action: result.history,
          occurred_at: now,
        })
      }
      if (result.event) await eventBus.emit({ name: result.event, data: { id: row.id, status: recorded.status, action: kind } })
      return new StepResponse<ShiftActionOutcome>({ kind, done: true, reread: Boolean(result.reread) })
    } catch (error) {
      const { options } = providerById(container.resolve(ContainerRegistrationKeys.CONFIG_MODULE), row.provider_id!)
      const message = ((error as Error).message ?? String(error)).slice(0, MAX_ERROR_LENGTH)
      if (error instanceof ActionNotYet) {
        // Waiting on the service (a review of hours, a cancel in a shift's first minutes) is no failure: not
        // counted, tried again at the review cadence, on the merchant's list only once it has waited long.
        await keepWaiting(container, action, `: ${message}`, { id: row.id, status: recorded.status }, now, new Date(now.getTime() + options.reconcile.reviewSeconds * 1000))
        return new StepResponse<ShiftActionOutcome>({ kind, done: false, reread: false })
      }
      const attention = attempts >= options.reconcile.maxActionAttempts || error instanceof ActionNeedsAdmin
      const next = attention ? null : retryAt(attempts, options.reconcile, now)
      await ledger.updateSwapShiftActions({
        id: action.id,
        state: attention ? "attention" : "pending",
        attempts,
        next_attempt_at: next,
        last_error: message,
        blocked_since: null,
      })
      const failure = entry.failed?.(row, now) ?? {}
      if (failure.ledger) await ledger.updateSwapShifts({ id: row.id, ...failure.ledger })
      if (failure.event) await eventBus.emit({ name: failure.event, data: { id: row.id, status: recorded.status, action: kind } })
      // Error messages of the client and of Medusa name no credentials.
      const logger = container.resolve(ContainerRegistrationKeys.LOGGER)
      const line =
        `crypto-swap: ${kind} of ${row.id} failed (attempt ${attempts} of ${options.reconcile.maxActionAttempts}), ` +
        `${attention ? "needs an admin's attention" : `retrying from ${next!.toISOString()}`}: ${message}`
      logger.warn(line)
      if (attention) {
        const reason = error instanceof ActionNeedsAdmin ? error.reason : "failed"
        await tellAttention(container, { id: row.id, status: recorded.status, action: kind, reason, error: message })
      }
      return new StepResponse<ShiftActionOutcome>({ kind, done: false, reread: false })
    }
  }
)

/**
 * An action that cannot run yet, waiting on another action (`nextAttempt` null: tried when that is done) or on
 * the service (tried again at `nextAttempt`): it says since when and why on its record and, once it has
 * waited BLOCKED_ACTION_ATTENTION_MS, waits in `attention` (told once), where it still runs as soon as it can.
 */
async function keepWaiting(
  container: MedusaContainer,
  action: { id: string; kind: ShiftActionKind; state: string; blocked_since: Date | string | null },
  why: string,
  shift: { id: string; status: string },
  now: Date,
  nextAttempt: Date | null
) {
  const since = action.blocked_since ? new Date(action.blocked_since) : now
  const overdue = now.getTime() - since.getTime() >= BLOCKED_ACTION_ATTENTION_MS
  const waiting = `waiting since ${since.toISOString()} ${why}`.slice(0, MAX_ERROR_LENGTH)
  const ledger = container.resolve<CryptoSwapModuleService>(CRYPTO_SWAP_MODULE)
  await ledger.updateSwapShiftActions({
    id: action.id,
    blocked_since: since,
    last_error: waiting,
    next_attempt_at: nextAttempt,
    ...(overdue ? { state: "attention" as const } : {}),
  })
  const logger = container.resolve(ContainerRegistrationKeys.LOGGER)
  if (!overdue) logger.debug(`crypto-swap: ${action.kind} of ${shift.id} is ${waiting}`)
  else if (action.state !== "attention") {
    logger.warn(`crypto-swap: ${action.kind} of ${shift.id} is ${waiting}; needs an admin's attention`)
    await tellAttention(container, { ...shift, action: action.kind, reason: "waiting", error: waiting })
  }
}

/**
 * Event `crypto-swap.shift.attention`: which action of which shift waits for the merchant, why, and its last
 * error (the client's and Medusa's messages name no credentials), so a subscriber can tell the merchant
 * without reading the ledger.
 */
function tellAttention(
  container: MedusaContainer,
  data: { id: string; status: string; action: ShiftActionKind; reason: AttentionCause; error: string }
) {
  return container.resolve(Modules.EVENT_BUS).emit({ name: "crypto-swap.shift.attention", data })
}
