import { createStep, StepResponse } from "@medusajs/framework/workflows-sdk"
import { ContainerRegistrationKeys } from "@medusajs/framework/utils"
import type { MedusaContainer } from "@medusajs/framework/types"
import { CRYPTO_SWAP_MODULE, type CryptoSwapModuleService } from "../../modules/crypto-swap"
import { providerById } from "../../lib/provider-registry"
import { decideShift, ledgerFieldsFromShift } from "../../lib/shift/ledger-fields"
import { goneSessions } from "../../lib/gone-sessions"
import { awaitsOrderDecision, hasActions, hasPromptActions, isTerminal, planMarkedRefund, planRefundShift, planSettings, planShiftActions, planWithoutShift, type ShiftActionPlan } from "../../lib/shift/shift-actions"
import { checkoutPayableUntil, nextSyncAt, retryAt, rowSyncAt } from "../../lib/shift/sync-cadence"
import type { StatusDecision } from "../../lib/shift/status-map"
import type { ShiftObservation } from "./observe-shift"
import type { ObservedShift } from "../../lib/shift/sync-observation"
import { sessionPayment } from "../actions/session-payment"
import { patchSessionData } from "./payment-credit"
import { unsentColumn, withNewEvents, type ShiftEventMessage } from "../../lib/shift/plugin-events"

export type SyncSource = "create" | "poll" | "webhook" | "storefront" | "admin"

export type RecordedShift = {
  ledger_id: string
  shift_id: string | null
  status: string
  changed: boolean
  decision: StatusDecision | null
  plan: ShiftActionPlan | null
  /** What processPaymentWorkflow needs: the session and its amount in the store currency. */
  payment: { session_id: string; amount: string } | null
  /** The shift as observed and recorded: the provider takes it instead of reading it again (the actions hand it over). */
  observed?: ObservedShift
  error?: string
  /** The row's next read is already scheduled by what the service said, not by its ledger status: the sync's end keeps it. */
  cadence_recorded?: boolean
  /** Events the sync's end sends: those of the transitions recorded now, after any an earlier sync stopped before sending. */
  unsent_events?: ShiftEventMessage[]
  /** The row said its order was canceled when the sync planned: one marked since (no lock taken) calls for another sync. */
  order_canceled_seen: boolean
}

const NOTHING_TO_DO = (observation: ShiftObservation, error?: string): RecordedShift => ({
  ledger_id: observation.row.id,
  shift_id: observation.row.shift_id,
  status: observation.row.status,
  changed: false,
  decision: null,
  plan: null,
  payment: null,
  error,
  order_canceled_seen: Boolean(observation.row.order_canceled_at),
})

/**
 * Copies the shift's status into the payment session's data, which the storefront shows and the provider
 * reads where it may not call the service (deleting a session refuses once a deposit was seen).
 */
function mirrorStatus(container: MedusaContainer, sessionId: string, shift: { status: string; issue?: string | null }) {
  return patchSessionData(container, sessionId, { status: shift.status, issue: shift.issue ?? undefined }, { unlessCanceled: true })
}

/**
 * Copies the status and clears the row's pending copy; a failed copy is the sync's failure, backing off and
 * shown to the merchant like a failed read, and made again by the next sync.
 */
async function mirrorStatusOnce(
  container: MedusaContainer,
  row: { id: string; payment_session_id: string | null; sync_failures: number },
  shift: { status: string; issue?: string | null },
  flags: Record<string, unknown>,
  cadence: Parameters<typeof retryAt>[1],
  now: Date
): Promise<string | undefined> {
  const ledger = container.resolve<CryptoSwapModuleService>(CRYPTO_SWAP_MODULE)
  try {
    await mirrorStatus(container, row.payment_session_id!, shift)
  } catch (failure) {
    const error = `could not copy status ${shift.status} into payment session ${row.payment_session_id}: ${(failure as Error).message}`
    container.resolve(ContainerRegistrationKeys.LOGGER).warn(`crypto-swap: ${error}`)
    const failures = row.sync_failures + 1
    await ledger.updateSwapShifts({ id: row.id, sync_failures: failures, last_error: error, next_sync_at: retryAt(failures, cadence, now) })
    return error
  }
  await ledger.updateSwapShifts({ id: row.id, flags: { ...flags, mirror_pending: null } })
  return undefined
}

/**
 * Writes what the service said into the ledger, appends the status change to the shift's history,
 * and plans the actions the transition calls for. No compensation: what the service said stays
 * recorded whatever becomes of the actions (each records its own failures).
 */
export const recordShiftObservationStep = createStep(
  "crypto-swap-record-shift-observation",
  async (input: { observation: ShiftObservation; source: SyncSource }, { container }) => {
    const { observation, source } = input
    const { row, shift } = observation
    const ledger = container.resolve<CryptoSwapModuleService>(CRYPTO_SWAP_MODULE)
    const configModule = container.resolve(ContainerRegistrationKeys.CONFIG_MODULE)
    const { options } = providerById(configModule, row.provider_id!)
    const now = new Date()

    if (observation.fresh) return new StepResponse(NOTHING_TO_DO(observation))
    if (row.kind === "refund" && !row.shift_id) {
      // Nothing to read yet: the refund's shift is still to be made.
      const plan = planRefundShift(row)
      const unsent = withNewEvents(row, plan.events, { status: row.status })
      if (plan.events.length) await ledger.updateSwapShifts({ id: row.id, flags: plan.flags, unsent_events: unsentColumn(unsent) })
      return new StepResponse<RecordedShift>({ ...NOTHING_TO_DO(observation), plan, unsent_events: unsent })
    }
    // An admin's Sync of a captured payment reads Medusa's side: a cancel that never reached the plugin (a lost
    // event, one before this release) may have left captured money on a canceled order, which the sync refunds.
    const checksOrder = source === "admin" && row.kind === "payment" && Boolean(row.captured_at) && !row.order_canceled_at
    const orderCanceled = checksOrder && (await sessionPayment(container, row)).orderCanceled ? { order_canceled_at: now } : {}
    const orderCanceledSeen = Boolean(row.order_canceled_at || orderCanceled.order_canceled_at)
    if (!shift) {
      const failures = observation.error ? row.sync_failures + 1 : 0
      await ledger.updateSwapShifts({
        id: row.id,
        ...orderCanceled,
        last_synced_at: now,
        sync_failures: failures,
        last_error: observation.error ?? null,
        next_sync_at: nextSyncAt(
          { status: row.status, terminal: false, actionPending: false, failures, expiresAt: row.expires_at, createdAt: row.created_at, kind: row.kind, payableUntil: checkoutPayableUntil(row) },
          options.reconcile,
          now
        ),
      })
      // Medusa refunds that money without the service: the refund waits for no read.
      return new StepResponse({ ...NOTHING_TO_DO(observation, observation.error), plan: planWithoutShift({ ...row, ...orderCanceled }), order_canceled_seen: orderCanceledSeen })
    }

    if (row.kind === "refund" && row.status === "paid_manually") {
      // The merchant paid it by other means: the ledger keeps that (a sync reopening it would have the shopper
      // paid again). Its shift is closed at the service, and a deposit to it anyway is flagged and told.
      const plan = planMarkedRefund(row, shift)
      const unsent = withNewEvents(row, plan.events, { status: row.status })
      await ledger.updateSwapShifts({
        id: row.id,
        snapshot: shift as unknown as Record<string, unknown>,
        flags: plan.flags,
        unsent_events: unsentColumn(unsent),
        last_synced_at: now,
        sync_failures: 0,
        last_error: null,
        // Watched while its shift can still be funded (a transfer already on its way, a variable address open), then left.
        next_sync_at: nextSyncAt(
          {
            status: shift.status,
            terminal: isTerminal(shift),
            actionPending: false,
            failures: 0,
            expiresAt: shift.expiresAt,
            createdAt: row.created_at,
            kind: row.kind,
            type: row.type,
            refundOpen: true,
          },
          options.reconcile,
          now
        ) ?? (unsent.length ? now : null),
      })
      if (plan.events.length) container.resolve(ContainerRegistrationKeys.LOGGER).warn(`crypto-swap: refund ${row.id} was marked paid by other means, and its refund shift was funded too (${shift.status})`)
      // Its cadence follows the shift, not the row's own status: the sync's end keeps it.
      return new StepResponse<RecordedShift>({ ...NOTHING_TO_DO(observation), plan, cadence_recorded: true, unsent_events: unsent })
    }

    const fields = ledgerFieldsFromShift(shift, row)
    const decision = decideShift(shift, row, options)
    // A hosted checkout's payer picked another coin, or paid another shift: the payment follows that one now.
    const switched = Boolean(row.shift_id) && row.shift_id !== shift.id
    const changed = switched || shift.status !== row.status || (shift.issue ?? null) !== row.issue
    const sessionGone =
      row.kind === "payment" && row.payment_session_id
        ? (await goneSessions(container, [row.payment_session_id])).size > 0
        : false
    // Read for an order placed on money that settled short (a full payment's capture finds a cancel itself).
    const awaitsOrder = awaitsOrderDecision(row, decision)
    const medusaSide = awaitsOrder ? await sessionPayment(container, row) : undefined
    const paymentCanceled = Boolean(medusaSide && (medusaSide.payment?.canceled_at || medusaSide.orderCanceled))
    const plan = planShiftActions(
      {
        ...row,
        ...orderCanceled,
        refund_address: fields.refund_address,
        session_gone: sessionGone,
        payment_canceled: paymentCanceled,
        shift_switched: switched,
        other_paid_shifts: observation.other_paid_shift_ids,
        ...planSettings(options),
      },
      shift,
      decision,
      changed,
      now
    )
    const actionPending = hasPromptActions(plan)
    // The session's data follows its payment's own shift, never a top-up's. Pending from the ledger's write of the
    // status until copied: a copy lost (a failed write, a crash between the two) is made by the next sync, or a
    // stale deposit-seen status would refuse the cart's change for good.
    const mirrorDue = row.kind === "payment" && Boolean(row.payment_session_id) && (changed || row.flags?.mirror_pending === true)
    // The ledger merges JSON columns on update: the shift followed before would leave what the new one lacks
    // in the snapshot (its refund address, which refuses an admin's address for the new one).
    if (switched) await ledger.updateSwapShifts({ id: row.id, snapshot: null })
    // Written with the flags that keep these transitions from being planned again: sent at the sync's end, or by the next sync.
    const unsent = withNewEvents(row, plan.events, { status: shift.status, stage: decision.stage })
    await ledger.updateSwapShifts({
      id: row.id,
      ...fields,
      ...orderCanceled,
      flags: mirrorDue ? { ...plan.flags, mirror_pending: true } : plan.flags,
      unsent_events: unsentColumn(unsent),
      last_synced_at: now,
      sync_failures: 0,
      last_error: null,
      // Any action planned, event to send or copy to make keeps the row due until the sync's last steps: a sync stopped
      // before then (a crash, a failed write) would otherwise leave an over shift with its action never run, or untold.
      next_sync_at: rowSyncAt({ ...row, ...fields, flags: plan.flags }, options, now, actionPending) ?? (hasActions(plan) || unsent.length || mirrorDue ? now : null),
    })
    const mirrorError = mirrorDue ? await mirrorStatusOnce(container, row, shift, plan.flags, options.reconcile, now) : undefined
    if (changed) {
      await ledger.createSwapShiftEvents({
        swap_shift_id: row.id,
        from_status: row.status,
        to_status: shift.status,
        issue: shift.issue ?? null,
        source,
        detail: { stage: decision.stage, effective_status: decision.effectiveStatus, ...(switched ? { shift_switched: true } : {}) },
        occurred_at: now,
      })
    }
    const payment =
      row.payment_session_id && row.amount_due ? { session_id: row.payment_session_id, amount: row.amount_due } : null
    const recorded: RecordedShift = {
      ledger_id: row.id,
      shift_id: shift.id,
      status: shift.status,
      changed,
      decision,
      plan,
      payment,
      observed: observation.observed_at ? { shift, observed_at: observation.observed_at } : undefined,
      unsent_events: unsent,
      error: mirrorError,
      order_canceled_seen: orderCanceledSeen,
    }
    return new StepResponse(recorded)
  }
)
