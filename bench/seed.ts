import type { MedusaContainer } from "@medusajs/framework/types"
import { ContainerRegistrationKeys, generateEntityId, Modules } from "@medusajs/framework/utils"
import type { RemoteSandbox } from "../integration-tests/helpers/sandbox-process"
import { clientFor, providerRegistry } from "../src/lib/provider-registry"
import { mapConcurrently } from "../src/lib/concurrency"
import { idMadeAt, ledgerOf } from "../integration-tests/helpers/ledger"

/**
 * Open shifts in bulk, without a checkout each: variable shifts created through the sandbox's API
 * (`POST /v2/shifts/variable`, with the plugin's own client) and their ledger rows inserted in chunks
 * through the ledger module, as discovery would record them but with no payment session. They wait
 * for a deposit, so a sync finds them unchanged.
 */
export async function seedOpenShifts(container: MedusaContainer, sandbox: Pick<RemoteSandbox, "configure" | "clearRequests">, count: number, providerId: string): Promise<void> {
  await sandbox.configure({ maxOpenVariableShifts: 1_000_000 })
  const client = clientFor(providerRegistry(container.resolve(ContainerRegistrationKeys.CONFIG_MODULE)).get(providerId)!)
  const shifts = await mapConcurrently(Array.from({ length: count }, (_, i) => i), 16, () =>
    client.createVariableShift(
      { depositCoin: "BTC", depositNetwork: "bitcoin", settleCoin: "USDC", settleNetwork: "ethereum", settleAddress: "0x1111111111111111111111111111111111111111" },
      { userIp: "203.0.113.10" }
    )
  )
  const ledger = ledgerOf(container)
  for (let start = 0; start < shifts.length; start += 1000) {
    await ledger.createSwapShifts(
      shifts.slice(start, start + 1000).map((shift) => ({
        shift_id: shift.id,
        kind: "payment" as const,
        type: "variable",
        provider_id: providerId,
        deposit_coin: shift.depositCoin,
        deposit_network: shift.depositNetwork,
        deposit_address: shift.depositAddress ?? null,
        settle_coin: shift.settleCoin,
        settle_network: shift.settleNetwork,
        status: shift.status,
        expires_at: shift.expiresAt ? new Date(shift.expiresAt) : null,
        next_sync_at: new Date(),
      }))
    )
  }
  await sandbox.clearRequests()
}

/**
 * Every open ledger row due now (or not due for an hour), for `providerId` when given: one SQL update,
 * so the ticks measured start from the same state.
 */
export async function setDue(container: MedusaContainer, due: boolean, providerId?: string): Promise<void> {
  const knex = container.resolve(ContainerRegistrationKeys.PG_CONNECTION)
  const nextSyncAt = new Date(Date.now() + (due ? -1000 : 3_600_000))
  await knex("crypto_swap_shift")
    .whereNull("deleted_at")
    .where("terminal", false)
    .update({ next_sync_at: nextSyncAt, ...(providerId ? { provider_id: providerId } : {}) })
}

/**
 * `count` more open ledger rows that are not due for an hour, written by one SQL statement: the quiet
 * bulk of a large store's ledger (no shift behind them at the sandbox: a tick that reads one fails it).
 */
export async function seedQuietRows(container: MedusaContainer, count: number, providerId: string): Promise<void> {
  const knex = container.resolve(ContainerRegistrationKeys.PG_CONNECTION)
  await knex.raw(
    `insert into crypto_swap_shift (id, shift_id, kind, type, provider_id, status, terminal, amount_due, currency_code, deposit_coin, deposit_network,
       settle_coin, settle_network, sync_failures, next_sync_at, created_at, updated_at)
     select 'csshift_quiet_' || g, 'quiet' || g, 'payment', 'variable', ?, 'waiting', false, '49.99', 'usd', 'BTC', 'bitcoin',
       'USDC', 'ethereum', 0, now() + interval '1 hour', now(), now()
       from generate_series(1, ?) as g`,
    [providerId, count]
  )
}

/** How PostgreSQL runs a statement: its plan's node types, outermost first ("Limit > Index Scan"). */
export async function ledgerPlan(container: MedusaContainer, sql: string, bindings: unknown[]): Promise<string> {
  const knex = container.resolve(ContainerRegistrationKeys.PG_CONNECTION)
  // knex's query event may give the statement as the driver got it, with positional parameters.
  const { rows } = await knex.raw(`explain (format json) ${sql.replace(/\$\d+/g, "?")}`, bindings as never[])
  const nodes: string[] = []
  for (let node = rows[0]["QUERY PLAN"][0].Plan; node; node = node.Plans?.[0]) nodes.push(node["Index Name"] ? `${node["Node Type"]} (${node["Index Name"]})` : node["Node Type"])
  return nodes.join(" > ")
}

/**
 * Crypto payment sessions made at `times` (their ids carry those times, as Medusa's do), inserted
 * in chunks by SQL into one payment collection; with `known`, each with the ledger row its creation
 * event records (waiting, not due for an hour). Returns their ids.
 */
export async function seedPaymentSessions(container: MedusaContainer, times: number[], providerId: string, known: boolean): Promise<string[]> {
  const knex = container.resolve(ContainerRegistrationKeys.PG_CONNECTION)
  const [collection] = await container.resolve(Modules.PAYMENT).createPaymentCollections([{ currency_code: "usd", amount: 49.99 }])
  const ids = times.map((time) => idMadeAt(generateEntityId(undefined, "payses"), time))
  for (let start = 0; start < ids.length; start += 1000) {
    const chunk = ids.slice(start, start + 1000)
    await knex("payment_session").insert(
      chunk.map((id, i) => ({
        id,
        currency_code: "usd",
        amount: 49.99,
        raw_amount: { value: "49.99", precision: 20 },
        provider_id: providerId,
        data: { session_id: id, shift_id: `bench-${id}`, status: "waiting", amount: "49.99", currency_code: "usd" },
        status: "pending",
        payment_collection_id: collection.id,
        created_at: new Date(times[start + i]),
        updated_at: new Date(times[start + i]),
      }))
    )
    if (!known) continue
    await knex("crypto_swap_shift").insert(
      chunk.map((id) => ({
        id: `csshift_${id}`,
        shift_id: `bench-${id}`,
        kind: "payment",
        type: "variable",
        provider_id: providerId,
        payment_session_id: id,
        payment_collection_id: collection.id,
        status: "waiting",
        terminal: false,
        amount_due: "49.99",
        currency_code: "usd",
        sync_failures: 0,
        next_sync_at: new Date(Date.now() + 3_600_000),
      }))
    )
  }
  return ids
}

/**
 * The rows PostgreSQL reads to run a statement (what its table scans return and what their filters
 * drop), from running it again under EXPLAIN ANALYZE.
 */
export async function rowsExamined(container: MedusaContainer, sql: string, bindings: unknown[]): Promise<number> {
  const knex = container.resolve(ContainerRegistrationKeys.PG_CONNECTION)
  const { rows } = await knex.raw(`explain (analyze, format json) ${sql}`, bindings as never[])
  type PlanNode = { "Relation Name"?: string; "Actual Rows": number; "Actual Loops": number; "Rows Removed by Filter"?: number; Plans?: PlanNode[] }
  const examined = (node: PlanNode): number =>
    (node["Relation Name"] ? (node["Actual Rows"] + (node["Rows Removed by Filter"] ?? 0)) * node["Actual Loops"] : 0) +
    (node.Plans ?? []).reduce((total, child) => total + examined(child), 0)
  return examined(rows[0]["QUERY PLAN"][0].Plan)
}
