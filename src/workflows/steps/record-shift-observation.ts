import { createStep, StepResponse } from "@medusajs/framework/workflows-sdk"
import { ContainerRegistrationKeys } from "@medusajs/framework/utils"
import { CRYPTO_SWAP_MODULE, type CryptoSwapModuleService } from "../../modules/crypto-swap"
import { providerById } from "../../lib/provider-registry"
import { ledgerFieldsFromShift } from "../../lib/ledger-fields"
import { goneSessions } from "../../lib/gone-sessions"
import { hasPromptActions, planShiftActions, type ShiftActionPlan } from "../../lib/shift-actions"
import { nextSyncAt } from "../../lib/sync-cadence"
import { decideStatus, statusPolicy, type StatusDecision } from "../../providers/crypto-swap/status-map"
import type { ShiftObservation } from "./observe-shift"

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
  error?: string
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
})

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
    if (!shift) {
      const failures = observation.error ? row.sync_failures + 1 : 0
      await ledger.updateSwapShifts({
        id: row.id,
        last_synced_at: now,
        sync_failures: failures,
        last_error: observation.error ?? null,
        next_sync_at: nextSyncAt({ status: row.status, terminal: false, actionPending: false, failures }, options.reconcile, now),
      })
      return new StepResponse(NOTHING_TO_DO(observation, observation.error))
    }

    const fields = ledgerFieldsFromShift(shift, row)
    const decision = decideStatus(shift, statusPolicy(options, row.amount_due ?? "0"))
    const changed = shift.status !== row.status || (shift.issue ?? null) !== row.issue
    const sessionGone =
      row.kind === "payment" && row.payment_session_id
        ? (await goneSessions(container, [row.payment_session_id])).size > 0
        : false
    const plan = planShiftActions({ ...row, refund_address: fields.refund_address, session_gone: sessionGone }, shift, decision, changed)
    const actionPending = hasPromptActions(plan)
    await ledger.updateSwapShifts({
      id: row.id,
      ...fields,
      flags: plan.flags,
      last_synced_at: now,
      sync_failures: 0,
      last_error: null,
      next_sync_at: nextSyncAt({ status: shift.status, terminal: fields.terminal, actionPending, failures: 0 }, options.reconcile, now),
    })
    if (changed) {
      await ledger.createSwapShiftEvents({
        swap_shift_id: row.id,
        from_status: row.status,
        to_status: shift.status,
        issue: shift.issue ?? null,
        source,
        detail: { stage: decision.stage, effective_status: decision.effectiveStatus },
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
    }
    return new StepResponse(recorded)
  }
)
