import { ContainerRegistrationKeys, MedusaError } from "@medusajs/framework/utils"
import type { MedusaContainer } from "@medusajs/framework/types"
import { CRYPTO_SWAP_MODULE, type CryptoSwapModuleService } from "../../modules/crypto-swap"
import { registeredProviders, type RegisteredProvider } from "../../lib/provider-registry"
import { shopperError, text } from "../../lib/i18n"

/**
 * Refuses a new variable-rate payment shift when the account's open variable shifts (every provider on
 * the same account, payments, top-ups and refunds alike) leave no room beside the share kept for refunds
 * (`variablePool`): a refund in a coin paid back at a variable rate can always be made. Counted in the
 * ledger, so it costs the service nothing; the service's own 403 stays the last word for a race.
 */
export async function assertVariableShiftRoom(container: MedusaContainer, provider: RegisteredProvider): Promise<void> {
  const { limit, reservedForRefunds } = provider.options.variablePool
  const sameAccount = registeredProviders(container.resolve(ContainerRegistrationKeys.CONFIG_MODULE))
    .filter((other) => other.options.accountId === provider.options.accountId)
    .map((other) => other.providerId)
  const [, open] = await container
    .resolve<CryptoSwapModuleService>(CRYPTO_SWAP_MODULE)
    .listAndCountSwapShifts({ type: "variable", terminal: false, provider_id: sameAccount }, { select: ["id"], take: 1 })
  if (open >= limit - reservedForRefunds) {
    throw shopperError(MedusaError.Types.NOT_ALLOWED, text("refusal.variable_pool"))
  }
}
