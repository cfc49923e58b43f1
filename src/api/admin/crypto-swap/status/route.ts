import type { AuthenticatedMedusaRequest, MedusaResponse } from "@medusajs/framework/http"
import { ContainerRegistrationKeys, Modules } from "@medusajs/framework/utils"
import { lockingScope } from "../../../../lib/locking-scope"
import { CRYPTO_SWAP_MODULE, type CryptoSwapModuleService } from "../../../../modules/crypto-swap"
import { catalogueFor, clientFor, providerById, providerRegistry, upstreamMetrics, type RegisteredProvider } from "../../../../lib/provider-registry"
import { SwapServiceError } from "../../../../lib/swap-service"
import { shopperIp } from "../../../middlewares/attach-customer-ip"
import { attentionActions, moneyToResolve, openShiftCounts, orderlessDeposits, stuckShifts } from "../../../../modules/crypto-swap/status-query"
import { parseInput } from "../../../parse-input"
import { statusQuerySchema } from "../validators"

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
  const { stuck_limit, stuck_offset, attention_limit, attention_offset } = parseInput(statusQuerySchema, req.query)
  const ledger = req.scope.resolve<CryptoSwapModuleService>(CRYPTO_SWAP_MODULE)
  const knex = req.scope.resolve(ContainerRegistrationKeys.PG_CONNECTION)
  const config = req.scope.resolve(ContainerRegistrationKeys.CONFIG_MODULE)
  const registry = providerRegistry(config)
  const ip = shopperIp(req)

  const checkProviders = Promise.all(
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

  // Counted and paged in SQL, while the providers answer: the ledger's size costs index reads, not its rows in memory.
  const [providers, [lastRun], open, stuck, attention, orderless, money, webhooks] = await Promise.all([
    checkProviders,
    ledger.listSwapReconciliationRuns({}, { order: { started_at: "DESC" }, take: 1 }),
    openShiftCounts(knex),
    stuckShifts(knex, { limit: stuck_limit, offset: stuck_offset }),
    attentionActions(knex, { limit: attention_limit, offset: attention_offset }),
    orderlessDeposits(knex),
    moneyToResolve(knex, (providerId) => providerById(config, providerId).options),
    ledger.listSwapWebhooks({}),
  ])

  res.json({
    providers,
    attention: attention.items,
    ...money,
    reconciliation: { last_run: lastRun ?? null, locking: lockingScope(req.scope.resolve(Modules.LOCKING), config) },
    open_shifts: open,
    ...orderless,
    stuck_shifts: stuck.shifts,
    // How many of each paged list there are in all, and which page this is.
    pages: {
      stuck_shifts: { count: stuck.count, limit: stuck_limit, offset: stuck_offset },
      attention: { count: attention.count, limit: attention_limit, offset: attention_offset },
    },
    webhooks,
    upstream: upstreamMetrics.summary(),
  })
}
