import { createStep, StepResponse } from "@medusajs/framework/workflows-sdk"
import { ContainerRegistrationKeys } from "@medusajs/framework/utils"
import type { MedusaContainer } from "@medusajs/framework/types"
import { CRYPTO_SWAP_MODULE, type CryptoSwapModuleService } from "../../modules/crypto-swap"
import type { ShiftActionKind } from "../../modules/crypto-swap/models/swap-shift-action"
import { providerById } from "../../lib/provider-registry"
import { BLOCKED_ACTION_ATTENTION_MS, retryAt } from "../../lib/shift/sync-cadence"
import { SHIFT_ACTIONS } from "../actions"
import { ActionNeedsAdmin, ActionNotYet, type AttentionCause, type LedgerShift, type ShiftActionResult } from "../actions/shift-action"
import { unsentColumn, unsentEvents } from "../../lib/shift/plugin-events"
import { SwapServiceError } from "../../lib/swap-service"
import { asRateLimited } from "../../lib/rate-limited"
import type { RecordedShift, SyncSource } from "./record-shift-observation"

/** `blocked`: not tried, waiting on another action (a capture waits for the order to be placed). */
export type ShiftActionOutcome = { kind: ShiftActionKind; done: boolean; reread: boolean; blocked?: boolean }

/** An action the service keeps rate-limiting this long is put on the merchant's list. */
const RATE_LIMITED_ATTENTION_MS = 60 * 60 * 1000

/** Long enough to say why, short enough for a log line and the admin's table. */
const MAX_ERROR_LENGTH = 500

/**
 * Runs one due action and records how it went on its ledger record, with what it changed, in one transaction
 * (recordActionOutcome): the events it raises go to the row's outbox, which the sync's end sends. A failure of
 * the action never throws: it would roll back the sync. It is counted, logged and retried with backoff; after
 * `maxActionAttempts` (or at once, for one that must not be repeated unattended) the action waits in `attention`
 * and `crypto-swap.shift.attention` is sent, once. An outcome that could not be recorded counts as an attempt
 * the same way, without what the action's own failure marks (it ran: an authorize placed its order), and the
 * action (each keyed, see SHIFT_ACTIONS) runs again.
 */
export const runShiftActionStep = createStep(
  "crypto-swap-run-shift-action",
  async (input: { kind: ShiftActionKind; recorded: RecordedShift; source: SyncSource }, { container }) => {
    const { kind, recorded, source } = input
    const ledger = container.resolve<CryptoSwapModuleService>(CRYPTO_SWAP_MODULE)
    const row = await ledger.retrieveSwapShift(recorded.ledger_id)
    const entry = SHIFT_ACTIONS.find((candidate) => candidate.kind === kind)!
    const [action] = await ledger.listSwapShiftActions({ swap_shift_id: row.id, kind })
    const now = new Date()
    const shift = { row, status: recorded.status }
    // Read after the actions before it in this sync, which it may wait on.
    if (entry.ready && !entry.ready.when(row)) {
      await keepWaiting(container, action, `for ${entry.ready.waitsFor}`, shift, now, null)
      return new StepResponse<ShiftActionOutcome>({ kind, done: false, reread: false, blocked: true })
    }
    const attempts = action.attempts + 1
    let result: ShiftActionResult
    try {
      result = await entry.run(container, row, recorded)
    } catch (error) {
      await recordFailure(container, { entry, action, attempts, error: error as Error }, shift, now)
      return new StepResponse<ShiftActionOutcome>({ kind, done: false, reread: false })
    }
    // Money recorded owed places no order: an authorize still retrying, or waiting for an admin, ends with it.
    const ended = [...(result.ledger?.refund_owed ? (["authorize"] as const) : []), ...(result.ends ?? [])]
    try {
      await ledger.recordActionOutcome({
        row: { id: row.id, ...result.ledger, ...outbox(shift, result.event ? [{ name: result.event, data: { action: kind } }] : []) },
        ends: ended.length ? { kinds: ended, outcome: result.outcome ?? kind } : undefined,
        action: { id: action.id, state: "done", attempts, done_at: now, next_attempt_at: null, last_error: null, blocked_since: null, outcome: result.outcome ?? null },
        history: result.history
          ? {
              swap_shift_id: row.id,
              from_status: recorded.status,
              // An action that moved the shift (a refund shift made) records where it went.
              to_status: typeof result.ledger?.status === "string" ? result.ledger.status : recorded.status,
              source,
              action: result.history,
              occurred_at: now,
            }
          : undefined,
      })
    } catch (error) {
      // It ran, but none of what it did is recorded (rolled back together): tried again (it is keyed) with backoff, on
      // the merchant's list after the attempts, as a failed attempt without a failure's own marks (it did not fail).
      const lost = new Error(`its outcome could not be recorded: ${(error as Error).message}`)
      await recordFailure(container, { entry, action, attempts, error: lost, ran: true }, shift, now)
      return new StepResponse<ShiftActionOutcome>({ kind, done: false, reread: false })
    }
    return new StepResponse<ShiftActionOutcome>({ kind, done: true, reread: Boolean(result.reread) })
  }
)

type ShiftActionRecord = Awaited<ReturnType<CryptoSwapModuleService["listSwapShiftActions"]>>[number]
/** The row as this action step read it, and the shift's status this sync recorded. */
type ShiftNow = { row: LedgerShift; status: string }

/**
 * Row columns that add `events` to its outbox: a process that stops before the sync's end leaves them for the
 * next sync to send (the record of what it read keeps a row with actions to run due, or backing off after a failed
 * read). None when there is nothing to add.
 */
function outbox(shift: ShiftNow, events: Array<{ name: string; data: Record<string, unknown> }>) {
  if (!events.length) return {}
  const messages = events.map(({ name, data }) => ({ name, data: { id: shift.row.id, status: shift.status, ...data } }))
  return { unsent_events: unsentColumn([...unsentEvents(shift.row), ...messages]) }
}

/** A failed attempt: counted and backed off, or waiting on the service; what the action's kind records of it, its event and the attention's, sent by the sync's end. */
async function recordFailure(
  container: MedusaContainer,
  attempt: { entry: (typeof SHIFT_ACTIONS)[number]; action: ShiftActionRecord; attempts: number; error: Error; ran?: boolean },
  shift: ShiftNow,
  now: Date
) {
  const { entry, action, attempts, error } = attempt
  const { row } = shift
  const { options } = providerById(container.resolve(ContainerRegistrationKeys.CONFIG_MODULE), row.provider_id!)
  const message = (error.message ?? String(error)).slice(0, MAX_ERROR_LENGTH)
  // Waiting on the service (a review of hours, a cancel in a shift's first minutes, its rate limit while a flood of
  // checkouts shares the store's allowance) is no failure: not counted, tried again at the review cadence, on the
  // merchant's list only once it has waited long. Counted, a flood would park every refund for an admin.
  const busy = (error instanceof SwapServiceError && error.status === 429) || asRateLimited(error) ? "the service is busy (rate limited): " : null
  if (error instanceof ActionNotYet || busy) {
    // A limit that does not lift (the account's, the server's address) is the merchant's to see within the hour.
    const limits = busy ? { attentionAfterMs: RATE_LIMITED_ATTENTION_MS, warn: true } : {}
    return keepWaiting(container, action, `: ${busy ?? ""}${message}`, shift, now, new Date(now.getTime() + options.reconcile.reviewSeconds * 1000), limits)
  }
  const attention = attempts >= options.reconcile.maxActionAttempts || error instanceof ActionNeedsAdmin
  const next = attention ? null : retryAt(attempts, options.reconcile, now)
  const failure = (!attempt.ran && entry.failed?.(row, now)) || {}
  const reason: AttentionCause = error instanceof ActionNeedsAdmin ? error.reason : "failed"
  const events = [
    ...(failure.event ? [{ name: failure.event, data: { action: entry.kind } }] : []),
    ...(attention ? [attentionEvent(entry.kind, reason, message)] : []),
  ]
  await container.resolve<CryptoSwapModuleService>(CRYPTO_SWAP_MODULE).recordActionOutcome({
    row: { id: row.id, ...failure.ledger, ...outbox(shift, events) },
    action: { id: action.id, state: attention ? "attention" : "pending", attempts, next_attempt_at: next, last_error: message, blocked_since: null },
  })
  // Error messages of the client and of Medusa name no credentials.
  container
    .resolve(ContainerRegistrationKeys.LOGGER)
    .warn(
      `crypto-swap: ${entry.kind} of ${row.id} failed (attempt ${attempts} of ${options.reconcile.maxActionAttempts}), ` +
        `${attention ? "needs an admin's attention" : `retrying from ${next!.toISOString()}`}: ${message}`
    )
}

/**
 * An action that cannot run yet, waiting on another action (`nextAttempt` null: tried when that is done) or on
 * the service (tried again at `nextAttempt`): it says since when and why on its record and, once it has
 * waited BLOCKED_ACTION_ATTENTION_MS, waits in `attention` (told once), where it still runs as soon as it can.
 */
async function keepWaiting(
  container: MedusaContainer,
  action: ShiftActionRecord,
  why: string,
  shift: ShiftNow,
  now: Date,
  nextAttempt: Date | null,
  { attentionAfterMs = BLOCKED_ACTION_ATTENTION_MS, warn = false } = {}
) {
  const since = action.blocked_since ? new Date(action.blocked_since) : now
  const overdue = now.getTime() - since.getTime() >= attentionAfterMs
  const waiting = `waiting since ${since.toISOString()} ${why}`.slice(0, MAX_ERROR_LENGTH)
  const told = overdue && action.state !== "attention"
  await container.resolve<CryptoSwapModuleService>(CRYPTO_SWAP_MODULE).recordActionOutcome({
    row: { id: shift.row.id, ...outbox(shift, told ? [attentionEvent(action.kind, "waiting", waiting)] : []) },
    action: { id: action.id, blocked_since: since, last_error: waiting, next_attempt_at: nextAttempt, ...(overdue ? { state: "attention" as const } : {}) },
  })
  const logger = container.resolve(ContainerRegistrationKeys.LOGGER)
  if (!overdue) logger[warn ? "warn" : "debug"](`crypto-swap: ${action.kind} of ${shift.row.id} is ${waiting}`)
  else if (told) logger.warn(`crypto-swap: ${action.kind} of ${shift.row.id} is ${waiting}; needs an admin's attention`)
}

/**
 * Event `crypto-swap.shift.attention`: which action of which shift waits for the merchant, why, and its last
 * error (the client's and Medusa's messages name no credentials), so a subscriber can tell the merchant
 * without reading the ledger.
 */
function attentionEvent(action: ShiftActionKind, reason: AttentionCause, error: string) {
  return { name: "crypto-swap.shift.attention", data: { action, reason, error } }
}
