import { ContainerRegistrationKeys, MedusaError } from "@medusajs/framework/utils"
import type { BigNumberInput, MedusaContainer } from "@medusajs/framework/types"
import { CRYPTO_SWAP_MODULE, type CryptoSwapModuleService } from "../../modules/crypto-swap"
import { catalogueFor, registeredProviders, type RegisteredProvider } from "../../lib/provider-registry"
import { shopperError, text } from "../../lib/i18n"
import { shopperKey } from "../../lib/admission/budgets"
import { goneSessions } from "../../lib/gone-sessions"
import { planShift } from "../../lib/shift/shift-plan"
import { toDecimalString } from "../../lib/money"
import type { StorefrontChoice } from "../../lib/shift/storefront-input"

/**
 * Refuses a new variable-rate payment shift when the account's open variable shifts (every provider on
 * the same account, payments, top-ups and refunds alike) leave no room beside the share kept for refunds
 * (`variablePool`): a refund in a coin paid back at a variable rate can always be made. Counted in the
 * ledger, so it costs the service nothing; the service's own 403 stays the last word for a race.
 * With `shopper` (a new payment, not a top-up of one), also when that shopper (their IP, an IPv6 one by its
 * /64 as admission counts it) already holds `variablePool.perShopper` unpaid variable payments in other carts:
 * one shopper opening carts and keeping their pages open would otherwise hold the whole pool, and every other
 * shopper's variable-rate coin. A payment the shopper moved on from (its session replaced) is not theirs to pay.
 */
export async function assertVariableShiftRoom(
  container: MedusaContainer,
  provider: RegisteredProvider,
  shopper?: { ip: string; collectionId: string }
): Promise<void> {
  const { limit, reservedForRefunds, perShopper } = provider.options.variablePool
  const sameAccount = registeredProviders(container.resolve(ContainerRegistrationKeys.CONFIG_MODULE))
    .filter((other) => other.options.accountId === provider.options.accountId)
    .map((other) => other.providerId)
  const ledger = container.resolve<CryptoSwapModuleService>(CRYPTO_SWAP_MODULE)
  if (shopper) {
    // As many as the pool can hold: the account's open variable shifts are few.
    const waiting = await ledger.listSwapShifts(
      { kind: "payment", type: "variable", status: "waiting", canceled_at: null, provider_id: sameAccount },
      { select: ["payment_collection_id", "payment_session_id", "customer_ip"], take: limit }
    )
    const key = shopperKey(shopper.ip)
    // The cart being paid may start its payment again (another coin, another refund address).
    const theirs = waiting.filter((row) => row.payment_collection_id !== shopper.collectionId && row.customer_ip && shopperKey(row.customer_ip) === key)
    const gone = await goneSessions(container, theirs.map((row) => row.payment_session_id).filter((id): id is string => Boolean(id)))
    const elsewhere = new Set(theirs.filter((row) => !gone.has(row.payment_session_id ?? "")).map((row) => row.payment_collection_id))
    if (elsewhere.size >= perShopper) throw shopperError(MedusaError.Types.NOT_ALLOWED, text("refusal.variable_pool_shopper"))
  }
  const [, open] = await ledger.listAndCountSwapShifts({ type: "variable", terminal: false, provider_id: sameAccount }, { select: ["id"], take: 1 })
  if (open >= limit - reservedForRefunds) {
    throw shopperError(MedusaError.Types.NOT_ALLOWED, text("refusal.variable_pool"))
  }
}

/**
 * Refuses a new payment session for `collection` whose shift would be variable-rate (the catalogue decides)
 * when the pool has no room for it (`assertVariableShiftRoom`), before Medusa's workflow makes the session:
 * Medusa's session route and the requote alike. A hosted checkout, an unknown collection or an
 * unconfigured currency is the provider's to answer.
 */
export async function assertRoomForNewPayment(
  container: MedusaContainer,
  provider: RegisteredProvider,
  collection: { id: string; amount: BigNumberInput; currency_code: string } | undefined,
  choice: StorefrontChoice,
  ip: string | undefined
): Promise<void> {
  if (provider.options.mode === "checkout" || !collection) return
  const settlement = provider.options.settlement[collection.currency_code.toLowerCase()]
  if (!settlement) return
  const plan = planShift(await catalogueFor(provider).get(), settlement, choice, toDecimalString(collection.amount))
  if (plan.type === "variable") await assertVariableShiftRoom(container, provider, ip ? { ip, collectionId: collection.id } : undefined)
}
