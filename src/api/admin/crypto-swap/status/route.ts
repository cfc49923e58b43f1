import type { AuthenticatedMedusaRequest, MedusaResponse } from "@medusajs/framework/http"
import { ContainerRegistrationKeys } from "@medusajs/framework/utils"
import { CRYPTO_SWAP_MODULE, type CryptoSwapModuleService } from "../../../../modules/crypto-swap"
import { catalogueFor, clientFor, providerRegistry, upstreamMetrics, type RegisteredProvider } from "../../../../lib/provider-registry"
import { SwapServiceError } from "../../../../lib/swap-service"
import { shopperIp } from "../../../middlewares/attach-customer-ip"
import { DEPOSIT_SEEN_STATUSES } from "../../../../lib/shift/shift-actions"
import { heldRefundId, OPEN_REFUND_STATUSES } from "../../../../lib/shift/refund-ids"

/** A shift is stuck when it outlived its deadline by this much, or keeps failing to sync. */
const STUCK_AFTER_MS = 60 * 60 * 1000
const STUCK_FAILURES = 5

/** Whether the service accepts the store's credentials: pair rates need the secret. */
async function credentials(provider: RegisteredProvider) {
  try {
    const coins = await catalogueFor(provider).get()
    const [currency, settlement] = Object.entries(provider.options.settlement)[0]
    const other = coins.find((coin) => coin.coin.toLowerCase() !== settlement.coin.toLowerCase())!
    await clientFor(provider).getPair({ coin: other.coin, network: other.networks[0] }, settlement)
    return { valid: true, checked_with: currency, error: null }
  } catch (error) {
    const failure = error as SwapServiceError
    return { valid: failure.retryable ? null : false, checked_with: null, error: failure.message }
  }
}

/** The plugin's health: credentials, permissions, catalogue, reconciliation, open and stuck shifts, webhooks, upstream. */
export async function GET(req: AuthenticatedMedusaRequest, res: MedusaResponse) {
  const ledger = req.scope.resolve<CryptoSwapModuleService>(CRYPTO_SWAP_MODULE)
  const registry = providerRegistry(req.scope.resolve(ContainerRegistrationKeys.CONFIG_MODULE))
  const ip = shopperIp(req)

  const providers = await Promise.all(
    [...registry.values()].map(async (provider) => {
      const permissions = ip
        ? await clientFor(provider)
            .getPermissions(ip)
            .then((answer) => answer.createShift, () => null)
        : null
      // Checking the credentials loads the catalogue when it is cold, so its age is read after.
      const checked = await credentials(provider)
      const age = catalogueFor(provider).ageMs()
      return {
        provider_id: provider.providerId,
        mode: provider.options.mode,
        settlement: provider.options.settlement,
        credentials: checked,
        permissions: { create_shift: permissions, for_ip: ip ?? null },
        catalogue_age_seconds: Number.isFinite(age) ? Math.round(age / 1000) : null,
      }
    })
  )

  const [lastRun] = await ledger.listSwapReconciliationRuns({}, { order: { started_at: "DESC" }, take: 1 })
  const open = await ledger.listSwapShifts(
    { terminal: false },
    { select: ["id", "status", "expires_at", "sync_failures", "provider_id", "kind"], take: 100_000 }
  )
  const byStatus: Record<string, number> = {}
  for (const row of open) byStatus[row.status] = (byStatus[row.status] ?? 0) + 1
  const now = Date.now()
  const stuck = open.filter(
    (row) =>
      row.sync_failures >= STUCK_FAILURES || (row.expires_at && now - new Date(row.expires_at).getTime() > STUCK_AFTER_MS && row.status === "waiting")
  )

  // Money paid into the shift of a replaced session belongs to no order, so no order page shows it.
  const orderless = await ledger.listSwapShifts(
    { kind: "payment", order_id: null, status: [...DEPOSIT_SEEN_STATUSES] },
    {
      select: ["id", "status", "flags", "deposit_amount", "deposit_coin", "deposit_network", "cart_id", "refund_address", "amount_due", "currency_code", "credit"],
      take: 1000,
    }
  )
  const paidWithoutSession = orderless
    .filter((row) => row.flags?.paid_without_session)
    .map(({ flags, amount_due, currency_code, credit, ...row }) => row)

  // A variable deposit short of the amount due places no order: listed until its money is refunded.
  const short = orderless.filter((row) => row.flags?.underpaid && !row.flags?.paid_without_session && !row.flags?.accepted_short)
  const refunding = short.length
    ? new Set((await ledger.listSwapShifts({ refund_id: short.map((row) => heldRefundId(row.id)) }, { select: ["refund_id"] })).map((row) => row.refund_id))
    : new Set()
  const underpaid = short
    .filter((row) => !refunding.has(heldRefundId(row.id)))
    // `held`: its wait for a top-up ran out and it waits for the merchant (accept as paid, or refund).
    .map(({ flags, ...row }) => ({ ...row, underpaid: flags!.underpaid as string, held: Boolean(flags!.underpaid_held) }))

  // Actions that stopped retrying, and settled money no order kept: each needs an admin.
  const stopped = await ledger.listSwapShiftActions({ state: "attention" }, { take: 1000, order: { updated_at: "DESC" } })
  const stoppedShifts = stopped.length
    ? await ledger.listSwapShifts({ id: [...new Set(stopped.map((action) => action.swap_shift_id))] }, { select: ["id", "status", "order_id", "cart_id"] })
    : []
  const shiftById = new Map(stoppedShifts.map((row) => [row.id, row]))
  const attention = stopped.map((action) => {
    const shift = shiftById.get(action.swap_shift_id)
    return {
      id: action.swap_shift_id,
      status: shift?.status ?? "unknown",
      order_id: shift?.order_id ?? null,
      cart_id: shift?.cart_id ?? null,
      action: action.kind,
      attempts: action.attempts,
      last_error: action.last_error,
      since: action.updated_at,
    }
  })
  const refundOwed = await ledger.listSwapShifts(
    { kind: "payment", refund_owed: { $ne: null } },
    { select: ["id", "status", "order_id", "cart_id", "refund_owed", "settle_coin", "settle_network", "refund_address"], take: 1000 }
  )

  // Refunds still to reach the shopper, whether or not an order page shows them (held money has no
  // order): what to send where, or a refund shift that expired unfunded and waits to be renewed.
  const refunds = await ledger.listSwapShifts(
    { kind: "refund", status: [...OPEN_REFUND_STATUSES] },
    {
      select: [
        "id", "status", "order_id", "refund_id", "amount_due", "currency_code", "deposit_amount", "deposit_coin",
        "deposit_network", "deposit_address", "deposit_memo", "expires_at", "refund_address", "settle_coin", "settle_network",
      ],
      order: { created_at: "ASC" },
      take: 1000,
    }
  )

  // Confirmed deposits no order holds: the admin retries placing the order or refunds instead.
  const unplaced = await ledger.listSwapShifts(
    { kind: "payment", paid_no_order_since: { $ne: null } },
    {
      select: ["id", "status", "cart_id", "paid_no_order_since", "deposit_coin", "deposit_network", "deposit_amount", "amount_due", "currency_code"],
      take: 1000,
    }
  )
  const placing = unplaced.length
    ? await ledger.listSwapShiftActions({ swap_shift_id: unplaced.map((row) => row.id), kind: "authorize" })
    : []
  const placingOf = new Map(placing.map((action) => [action.swap_shift_id, action]))
  const paidNoOrder = unplaced.map((row) => {
    const action = placingOf.get(row.id)
    return { ...row, attempts: action?.attempts ?? 0, last_error: action?.last_error ?? null, next_attempt_at: action?.next_attempt_at ?? null }
  })

  res.json({
    providers,
    attention,
    paid_no_order: paidNoOrder,
    refund_owed: refundOwed,
    refunds,
    reconciliation: { last_run: lastRun ?? null },
    open_shifts: { total: open.length, by_status: byStatus },
    paid_without_session: paidWithoutSession,
    underpaid,
    stuck_shifts: stuck.map((row) => ({ id: row.id, status: row.status, sync_failures: row.sync_failures, expires_at: row.expires_at })),
    webhooks: await ledger.listSwapWebhooks({}),
    upstream: upstreamMetrics.summary(),
  })
}
