import { createStep, StepResponse } from "@medusajs/framework/workflows-sdk"
import { ContainerRegistrationKeys } from "@medusajs/framework/utils"
import type { Logger, MedusaContainer } from "@medusajs/framework/types"
import type { Knex } from "@medusajs/framework/mikro-orm/knex"
import { dueShiftPage, type DueCursor, type DueShift } from "../../modules/crypto-swap/due-shifts"
import { recordQuietSyncs, type QuietSync } from "../../modules/crypto-swap/quiet-syncs"
import { clientFor, providerRegistry, type RegisteredProvider } from "../../lib/provider-registry"
import { mapConcurrently, RequestBudget } from "../../lib/concurrency"
import { goneSessions } from "../../lib/gone-sessions"
import { awaitsOrderDecision, hasActions, planSettings, planShiftActions } from "../../lib/shift/shift-actions"
import { rowSyncAt } from "../../lib/shift/sync-cadence"
import { SwapServiceError, type Shift, type ShiftDeposit } from "../../lib/swap-service"
import { decideShift } from "../../lib/shift/ledger-fields"
import type { ObservedShift } from "../../lib/shift/sync-observation"
import { unsentEvents } from "../../lib/shift/plugin-events"
import { syncShiftWorkflow } from "../sync-shift"

export type ReconciliationStats = {
  due: number
  read: number
  changed: number
  failed: number
  deferred: number
}

/** Rows read per tick at most; the rest stay due for the next tick. */
const BATCH_SIZE = 10_000
/** Due rows loaded at a time. */
const PAGE_SIZE = 500
const BULK_CHUNK = 50
/**
 * A shift due within this long is read now. Its next read is scheduled from when this tick read it,
 * a moment after the tick started, so without the grace a cadence equal to the job's interval (5 s
 * both by default) would find it not yet due at the next tick and read it only every second tick.
 */
const DUE_GRACE_MS = 1000
const budgets = new Map<string, RequestBudget>()
/** How long a provider reads one by one after its service refused the bulk read, before asking again. */
const BULK_REFUSAL_MS = 60 * 60 * 1000
const bulkRefusedUntil = new Map<string, number>()

function readsInBulk(provider: RegisteredProvider): boolean {
  return provider.options.reconcile.bulkRead && (bulkRefusedUntil.get(provider.providerId) ?? 0) <= Date.now()
}

/**
 * The service does not know the bulk read (it is not in its spec), as opposed to failing for a moment:
 * the request refused as such, or an answer that is not a list (a list's odd entries are only left out).
 */
function refusesBulkRead(error: unknown): boolean {
  if (!(error instanceof SwapServiceError)) return false
  return error.code === "MALFORMED_RESPONSE" || [400, 404, 405, 501].includes(error.status ?? 0)
}

/** The service's own words, on one line and short, for a log line. */
const quoted = (message: string) => JSON.stringify(message.replace(/\s+/g, " ").slice(0, 200))

function budgetFor(provider: RegisteredProvider): RequestBudget {
  let budget = budgets.get(provider.providerId)
  if (!budget) {
    budget = new RequestBudget(provider.options.reconcile.maxReadsPerMinute)
    budgets.set(provider.providerId, budget)
  }
  return budget
}

/** What the ledger follows of each deposit of a `multiple` shift, whose own status stays `multiple` while they move. */
const depositStates = (deposits: readonly ShiftDeposit[] | null | undefined) =>
  JSON.stringify((deposits ?? []).map((deposit) => [deposit.status, deposit.issue, deposit.depositHash, deposit.settleHash, deposit.depositAmount, deposit.settleAmount].map((field) => field ?? null)))

function unchanged(row: DueShift & { session_gone: boolean }, shift: Shift, provider: RegisteredProvider): boolean {
  if (shift.status !== row.status || (shift.issue ?? null) !== row.issue) return false
  // Events a sync recorded and stopped before sending: a full sync sends them.
  if (unsentEvents(row).length) return false
  // A status the payment's session does not show yet: a full sync copies it.
  if (row.flags?.mirror_pending === true) return false
  if (depositStates(shift.deposits) !== depositStates(row.deposits as ShiftDeposit[] | null)) return false
  // The service learnt a refund address (the shopper gave it on the service's own page): recorded by a full sync.
  if (row.kind !== "refund" && shift.refundAddress && shift.refundAddress !== row.refund_address) return false
  const decision = decideShift(shift, row, provider.options)
  // Its order's cancel shows only in Medusa, read by the full sync.
  if (awaitsOrderDecision(row, decision)) return false
  const plan = planShiftActions({ ...row, ...planSettings(provider.options) }, shift, decision, false)
  // A judgement that changes what the ledger flags (a figure the service gave late) is recorded by a full sync.
  const flagsMoved = Object.entries(plan.flags).some(([flag, value]) => JSON.stringify(value ?? null) !== JSON.stringify(row.flags?.[flag] ?? null))
  return !hasActions(plan) && !flagsMoved && plan.events.length === 0
}

/**
 * Reads the shifts and hands each answer to `onRead` as it arrives, with when its request went out (the
 * sync it starts may take it as its own read): an answer with nothing new is garbage at once, instead of
 * living as long as the whole page's reads and growing the heap's old generation with it.
 */
async function readShifts(provider: RegisteredProvider, rows: DueShift[], logger: Logger, onRead: (observed: ObservedShift) => void): Promise<void> {
  const client = clientFor(provider)
  const ids = rows.map((row) => row.shift_id!)
  if (readsInBulk(provider)) {
    const chunks = Array.from({ length: Math.ceil(ids.length / BULK_CHUNK) }, (_, i) => ids.slice(i * BULK_CHUNK, (i + 1) * BULK_CHUNK))
    await mapConcurrently(chunks, provider.options.reconcile.concurrency, async (chunk) => {
      // Refused by a chunk before this one: its shifts are read one by one by their full syncs, like any the read leaves out.
      if (!readsInBulk(provider)) return
      const observed_at = new Date().toISOString()
      const shifts = await client.getShifts(chunk).catch((error: unknown) => {
        if (refusesBulkRead(error) && readsInBulk(provider)) {
          bulkRefusedUntil.set(provider.providerId, Date.now() + BULK_REFUSAL_MS)
          logger.warn(
            `crypto-swap: the service refused the bulk read of shifts (${quoted((error as SwapServiceError).message)}): ${provider.providerId} reads them ` +
              "one by one for an hour, each read within reconcile.maxReadsPerMinute; set reconcile.bulkRead to false if the service has none"
          )
        }
        return []
      })
      for (const shift of shifts) onRead({ shift, observed_at })
    })
    return
  }
  await mapConcurrently(ids, provider.options.reconcile.concurrency, async (id) => {
    const observed_at = new Date().toISOString()
    const shift = await client.getShift(id).catch(() => undefined)
    // An answer about another shift than the one asked for is no read of it: its full sync reads again.
    if (shift?.id === id) onRead({ shift, observed_at })
  })
}

/** A hosted checkout's sync reads the checkout, then the shift its payer picked (maybe since its last read). */
const CHECKOUT_READS = 2

async function reconcileProvider(container: MedusaContainer, provider: RegisteredProvider, rows: DueShift[], stats: ReconciliationStats) {
  // A hosted checkout's payer may have made another shift since: its row is synced through the checkout, never read directly.
  const direct = rows.filter((row) => row.shift_id && !row.checkout_id)
  const checkouts = rows.filter((row) => row.checkout_id)
  const bulk = readsInBulk(provider)
  const reads = bulk ? Math.ceil(direct.length / BULK_CHUNK) : direct.length
  // Direct shifts first (one bulk read answers fifty), then checkouts, whose abandoned ones never expire.
  const granted = budgetFor(provider).take(reads + checkouts.length * CHECKOUT_READS)
  const directGranted = Math.min(granted, reads)
  const readable = bulk ? direct.slice(0, directGranted * BULK_CHUNK) : direct.slice(0, directGranted)
  const readableCheckouts = checkouts.slice(0, Math.floor((granted - directGranted) / CHECKOUT_READS))
  stats.deferred += direct.length - readable.length + checkouts.length - readableCheckouts.length
  stats.read += readable.length + readableCheckouts.length

  // One query for the whole page: which payments' sessions Medusa has deleted or canceled.
  const gone = await goneSessions(
    container,
    readable.filter((row) => row.kind === "payment" && row.payment_session_id).map((row) => row.payment_session_id!)
  )
  const byShiftId = new Map(readable.map((row) => [row.shift_id!, row]))
  const quiet: QuietSync[] = []
  // What a full sync takes as its read: only the answers that are not quiet are kept.
  const kept = new Map<string, ObservedShift>()
  await readShifts(provider, readable, container.resolve(ContainerRegistrationKeys.LOGGER), (observed) => {
    const row = byShiftId.get(observed.shift.id)
    if (!row) return
    // Only the first answer about a shift counts (a bulk answer may list one twice).
    byShiftId.delete(observed.shift.id)
    if (!unchanged({ ...row, session_gone: Boolean(row.payment_session_id && gone.has(row.payment_session_id)) }, observed.shift, provider)) {
      kept.set(observed.shift.id, observed)
      return
    }
    quiet.push({
      id: row.id,
      loaded_updated_at: new Date(row.updated_at),
      observed_at: new Date(observed.observed_at),
      next_sync_at: rowSyncAt(row, provider.options, new Date()),
    })
  })
  if (quiet.length) await recordQuietSyncs(container.resolve(ContainerRegistrationKeys.PG_CONNECTION), quiet, new Date())

  // Shifts the read left without an answer (a failed read, one a bulk answer left out) are read again by
  // their full syncs, one by one: within the budget too, the rest stay due for the next tick.
  const unanswered = readable.filter((row) => byShiftId.has(row.shift_id!))
  const postponed = new Set(unanswered.slice(budgetFor(provider).take(unanswered.length)).map((row) => row.id))
  stats.deferred += postponed.size
  stats.read -= postponed.size

  // Changed, unreadable or with an action due: the full sync, under the shift's lock, takes what was read here or reads again.
  const quietIds = new Set(quiet.map((sync) => sync.id))
  const eventful = [
    // Nothing to read yet (a refund whose shift is still to be made).
    ...rows.filter((row) => !row.shift_id && !row.checkout_id),
    ...readableCheckouts,
    ...readable.filter((row) => !quietIds.has(row.id) && !postponed.has(row.id)),
  ]
  await mapConcurrently(eventful, provider.options.reconcile.concurrency, async (row) => {
    const { result, errors } = await syncShiftWorkflow(container).run({
      input: { ledger_id: row.id, source: "poll", observed: row.shift_id ? kept.get(row.shift_id) : undefined },
      throwOnError: false,
    })
    if (errors?.length || result?.recorded?.error) stats.failed += 1
    else if (result?.recorded?.changed) stats.changed += 1
  })
}

/** The rows due at the tick's start, a page at a time, so a tick's memory does not grow with what is due. */
async function* duePages(knex: Knex, tickStart: Date): AsyncGenerator<DueShift[]> {
  const until = new Date(tickStart.getTime() + DUE_GRACE_MS)
  let after: DueCursor | undefined
  for (let taken = 0; taken < BATCH_SIZE; ) {
    const page = await dueShiftPage(knex, { until, tickStart, after, limit: Math.min(PAGE_SIZE, BATCH_SIZE - taken) })
    if (!page.length) return
    taken += page.length
    const last = page[page.length - 1]
    after = { at: new Date(last.next_sync_at!), id: last.id }
    yield page
    if (page.length < PAGE_SIZE) return
  }
}

/** Syncs every shift that is due, per provider, within its read budget and concurrency. */
export const syncDueShiftsStep = createStep("crypto-swap-sync-due-shifts", async (_: void, { container }) => {
  const knex = container.resolve(ContainerRegistrationKeys.PG_CONNECTION)
  const registry = providerRegistry(container.resolve(ContainerRegistrationKeys.CONFIG_MODULE))
  const stats: ReconciliationStats = { due: 0, read: 0, changed: 0, failed: 0, deferred: 0 }
  for await (const page of duePages(knex, new Date())) {
    stats.due += page.length
    const byProvider = new Map<string, DueShift[]>()
    for (const row of page) {
      if (!row.provider_id || !registry.has(row.provider_id)) continue
      const rows = byProvider.get(row.provider_id)
      if (rows) rows.push(row)
      else byProvider.set(row.provider_id, [row])
    }
    for (const [providerId, rows] of byProvider) {
      await reconcileProvider(container, registry.get(providerId)!, rows, stats)
    }
  }
  return new StepResponse(stats)
})
