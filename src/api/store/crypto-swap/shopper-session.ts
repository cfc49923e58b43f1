import type { MedusaContainer } from "@medusajs/framework/types"
import { ContainerRegistrationKeys, MedusaError, PaymentSessionStatus } from "@medusajs/framework/utils"
import { CRYPTO_SWAP_MODULE, type CryptoSwapModuleService } from "../../../modules/crypto-swap"
import { catalogueFor, providerRegistry, type RegisteredProvider } from "../../../lib/provider-registry"
import { recordPaymentShiftWorkflow } from "../../../workflows/record-payment-shift"
import { syncShiftWorkflow } from "../../../workflows/sync-shift"
import { decideLedgerRow } from "../../../lib/shift/ledger-fields"
import { checkoutPickExpired } from "../../../lib/shift/sync-cadence"
import { knownLedgerRow, sessionLedgerFilter } from "../../../lib/shift/session-ledger-row"
import { paymentView } from "../../../lib/shift/payment-view"
import { takesTopUp, topUpClosed } from "../../../lib/shift/underpayment"
import { refundReachedShopper, refundReceipt } from "../../../lib/shift/refund-ids"
import { shopperError, text, type Say } from "../../../lib/i18n"
import { parseInput } from "../../parse-input"
import { sessionIdSchema } from "./validators"

type LedgerRow = Awaited<ReturnType<CryptoSwapModuleService["retrieveSwapShift"]>>

/** A shift in one of these never received money (a late deposit moves an expired one to `refund` or `multiple`). */
const UNPAID_STATUSES = ["creating", "waiting", "expired"]

const notFound = () => shopperError(MedusaError.Types.NOT_FOUND, text("store.session_not_found"))
/** However many pages poll, the service is read at most once per this long per session. */
export const PAGE_READ_CACHE_MS = 3000

type ShopperSession = Awaited<ReturnType<typeof shopperSession>>["session"]

/**
 * The payment session a shopper asks about, only if it belongs to their cart: shift ids are
 * sensitive, so another cart's session answers exactly like a session that does not exist. One Medusa
 * deleted (the shopper started another payment) whose shift received money is still theirs to look at and
 * to say where that money goes back (`withGone`): the page and the refund address, never what would make a
 * shift for it. One that received nothing is gone.
 */
export async function shopperSession(scope: MedusaContainer, sessionId: string, cartId: string, { withGone = false } = {}) {
  parseInput(sessionIdSchema, { id: sessionId })
  const query = scope.resolve(ContainerRegistrationKeys.QUERY)
  const {
    data: [found],
  } = await query.graph({
    entity: "payment_session",
    fields: ["id", "provider_id", "status", "amount", "currency_code", "data", "payment_collection_id"],
    filters: { id: sessionId },
  })
  const session = found ?? (withGone ? await goneSession(scope, sessionId, cartId) : undefined)
  // A provider the store no longer registers can't be followed: answered like any other unknown session.
  const provider = session ? providerRegistry(scope.resolve(ContainerRegistrationKeys.CONFIG_MODULE)).get(session.provider_id) : undefined
  if (!session || !provider) {
    throw notFound()
  }
  if (found) {
    const { data: links } = await query.graph({
      entity: "cart_payment_collection",
      fields: ["cart_id"],
      filters: { payment_collection_id: found.payment_collection_id, cart_id: cartId },
    })
    if (!links.length) throw notFound()
  }
  return { session, provider: provider as RegisteredProvider }
}

/**
 * A session Medusa deleted, as the ledger recorded its payment on this cart (Medusa keeps no trace of
 * it), if its shift received money: that may still be on its way back to the shopper.
 */
async function goneSession(scope: MedusaContainer, sessionId: string, cartId: string) {
  const [row] = await scope
    .resolve<CryptoSwapModuleService>(CRYPTO_SWAP_MODULE)
    .listSwapShifts({ payment_session_id: sessionId, cart_id: cartId, kind: "payment", status: { $nin: UNPAID_STATUSES } }, { take: 1 })
  if (!row) return undefined
  return {
    id: sessionId,
    provider_id: row.provider_id!,
    status: PaymentSessionStatus.CANCELED,
    amount: row.amount_due,
    currency_code: row.currency_code,
    data: { shift_id: row.shift_id, ...(row.checkout_id ? { checkout_id: row.checkout_id } : {}) },
    payment_collection_id: null,
  }
}

/**
 * The ledger row of a session's payment, recorded now if its creation's record has not landed yet. A hosted
 * checkout has one row whichever of its shifts governs: the data's `shift_id` may name an earlier one.
 */
export async function ledgerRowForSession(scope: MedusaContainer, session: ShopperSession) {
  const ledger = scope.resolve<CryptoSwapModuleService>(CRYPTO_SWAP_MODULE)
  const filter = sessionLedgerFilter(session)
  if (!filter) throw notFound()
  const known = await knownLedgerRow(scope, session)
  if (known) return known
  await recordPaymentShiftWorkflow(scope).run({ input: { session_id: session.id, source: "storefront" } })
  const [recorded] = await ledger.listSwapShifts(filter, { take: 1 })
  if (!recorded) throw notFound()
  return recorded
}

/**
 * Syncs a ledger row unless it is over (a checkout whose pick ran out is not: its page takes another) or
 * another sync read it less than `maxAgeMs` ago; answers whether it is that fresh (false when the read
 * failed or another sync held the shift).
 */
async function syncForPage(
  scope: MedusaContainer,
  row: Parameters<typeof checkoutPickExpired>[0] & { id: string; terminal: boolean; last_synced_at: Date | string | null },
  maxAgeMs: number
) {
  if (row.terminal && row.last_synced_at && !checkoutPickExpired(row)) return true
  const { result, errors } = await syncShiftWorkflow(scope).run({
    input: { ledger_id: row.id, source: "storefront", lock_timeout: 0, fresh_since: new Date(Date.now() - maxAgeMs).toISOString() },
    throwOnError: false,
  })
  return !errors?.length && !result?.recorded?.error
}

/**
 * The session's ledger row and what its status means now: a shift that may still change is synced
 * first (which also places the order as soon as the payment allows it), unless another sync read it
 * less than `maxAgeMs` ago; so is an open top-up, before the payment it pays. `current` says whether
 * the row is that fresh.
 */
export async function currentPayment(
  scope: MedusaContainer,
  session: ShopperSession,
  provider: RegisteredProvider,
  cartId: string,
  maxAgeMs: number
) {
  const ledger = scope.resolve<CryptoSwapModuleService>(CRYPTO_SWAP_MODULE)
  const known = await ledgerRowForSession(scope, session)
  let topUp = await latestTopUp(ledger, known.id)
  // Written before the sync: a shopper coming back is never taken for one who left (variablePool.idleMinutes).
  const open = shownTopUp(topUp, known)
  await recordViewed(ledger, open ? [known, open] : [known])
  if (open) {
    await syncForPage(scope, open, maxAgeMs)
    topUp = await ledger.retrieveSwapShift(open.id)
  }
  const current = await syncForPage(scope, known, maxAgeMs)
  const row = await ledger.retrieveSwapShift(known.id)
  return { row, decision: decideLedgerRow(row, provider.options), current, topUp: shownTopUp(topUp, row) }
}

/**
 * The top-up a payment page shows: one still open (waiting for its deposit while its payment can take it,
 * or with one on its way or being sent back), or a counted one whose later deposit the service sends back
 * to an address the shopper must give. A waiting one whose payment was decided since (refunded, accepted,
 * covered) is not offered: paid, it would buy nothing (and, unseen, its variable order is given back when idle).
 */
function shownTopUp<T extends { status: string; captured_at: Date | string | null; flags: Record<string, unknown> | null }>(
  topUp: T | null,
  payment: Parameters<typeof takesTopUp>[0]
): T | null {
  if (!topUp || (topUp.status === "waiting" && !takesTopUp(payment))) return null
  return !topUpClosed(topUp) || Boolean(topUp.flags?.address_needed) ? topUp : null
}

async function latestTopUp(ledger: CryptoSwapModuleService, paymentId: string) {
  const [latest] = await ledger.listSwapShifts({ top_up_of: paymentId, kind: "top_up" }, { take: 1, order: { created_at: "DESC" } })
  return latest ?? null
}

/** How often a page's visit is written down: enough to tell a page still open from one left long ago. */
const VIEW_RECORD_MS = 60_000

/** The shopper is looking (the payment page, completing the cart, asking for the session again): not idle (`variablePool.idleMinutes`). */
export async function recordViewed(ledger: CryptoSwapModuleService, rows: Array<{ id: string; last_viewed_at: Date | string | null }>) {
  const now = Date.now()
  const stale = rows.filter((row) => !row.last_viewed_at || now - new Date(row.last_viewed_at).getTime() > VIEW_RECORD_MS)
  if (stale.length) await ledger.updateSwapShifts(stale.map((row) => ({ id: row.id, last_viewed_at: new Date(now) })))
}

/**
 * Money a payment gives back (owed or held) whose refunds, its top-ups' included, all reached the shopper:
 * the last one's transaction; null while one is still to be made or on its way.
 */
async function refundSent(ledger: CryptoSwapModuleService, row: LedgerRow) {
  if (!(row.refund_owed || row.flags?.held_refund) || !row.shift_id) return null
  const topUps = await ledger.listSwapShifts({ top_up_of: row.id, kind: "top_up" }, { select: ["shift_id"] })
  const refunds = await ledger.listSwapShifts(
    { kind: "refund", refund_of_shift_id: [row.shift_id, ...topUps.flatMap((topUp) => (topUp.shift_id ? [topUp.shift_id] : []))] },
    { select: ["status", "flags", "settle_hash", "settle_network", "deposits"], order: { created_at: "ASC" } }
  )
  if (!refunds.length || !refunds.every(refundReachedShopper)) return null
  return refundReceipt(refunds)
}

/**
 * A refund the store made of the payment or of a top-up credited to it (through Medusa, or of money paid
 * again) that waits for the shopper's address: the page asks for it. Looked for only where a refund can be:
 * a payment captured or refunded by Medusa, or with top-ups.
 */
async function refundWaiting(ledger: CryptoSwapModuleService, row: LedgerRow) {
  if (!row.shift_id) return null
  const topUps = row.credit ? await ledger.listSwapShifts({ top_up_of: row.id, kind: "top_up" }, { select: ["shift_id"] }) : []
  if (!row.captured_at && !row.flags?.refunded_by_medusa && !topUps.length) return null
  const [refund] = await refundsWaitingForAddress(
    ledger,
    { shiftIds: [row.shift_id, ...topUps.flatMap((topUp) => (topUp.shift_id ? [topUp.shift_id] : []))] },
    { select: ["amount_due", "currency_code", "settle_coin", "settle_network"], take: 1, order: { created_at: "ASC" } }
  )
  return refund ?? null
}

/**
 * The store's refunds waiting for a shopper's address: of their Medusa payment, or of money their shifts took.
 * Nothing without either: the ORM drops an empty `$or`, which would match every shopper's refund.
 */
export function refundsWaitingForAddress(
  ledger: CryptoSwapModuleService,
  of: { paymentId?: string; shiftIds: string[] },
  config?: Parameters<CryptoSwapModuleService["listSwapShifts"]>[1]
): Promise<LedgerRow[]> {
  const owners = [...(of.paymentId ? [{ payment_id: of.paymentId }] : []), ...(of.shiftIds.length ? [{ refund_of_shift_id: of.shiftIds }] : [])]
  if (!owners.length) return Promise.resolve([])
  return ledger.listSwapShifts({ kind: "refund", status: "address_needed", $or: owners }, config)
}

/** What a payment page shows: the session, the payment in plain words, and the open top-up paying its rest. */
export async function sessionView(scope: MedusaContainer, session: ShopperSession, provider: RegisteredProvider, cartId: string, say: Say) {
  const { row: known, decision, topUp } = await currentPayment(scope, session, provider, cartId, PAGE_READ_CACHE_MS)
  const ledger = scope.resolve<CryptoSwapModuleService>(CRYPTO_SWAP_MODULE)
  const row = { ...known, refund_sent: await refundSent(ledger, known), refund_waiting: await refundWaiting(ledger, known) }
  const catalogue = catalogueFor(provider)
  return {
    payment_session: {
      id: session.id,
      status: session.status,
      amount: row.amount_due,
      currency_code: row.currency_code,
      pay_url: (session.data?.pay_url as string | undefined) ?? null,
    },
    payment: {
      ...(await paymentView(row, decision.stage, catalogue, new Date(), say)),
      top_up: topUp
        ? {
            // The shopper's own shift, like the payment's in the session's data.
            shift_id: topUp.shift_id,
            amount_due: topUp.amount_due,
            ...(await paymentView(topUp, decideLedgerRow(topUp, provider.options).stage, catalogue, new Date(), say)),
          }
        : null,
    },
  }
}
