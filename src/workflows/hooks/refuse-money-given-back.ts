import { completeCartWorkflow } from "@medusajs/core-flows"
import { ContainerRegistrationKeys, MedusaError } from "@medusajs/framework/utils"
import { providerRegistry } from "../../lib/provider-registry"
import { givenBackToShopper } from "../../lib/shift/shift-actions"
import { knownLedgerRow } from "../../lib/shift/session-ledger-row"
import { shopperError, text } from "../../lib/i18n"

type CartSession = { provider_id: string; data?: Record<string, unknown> | null }

/**
 * Money going back to the shopper never buys the order, whichever route completes the cart (the store's,
 * Medusa's payment webhook route, a workflow): a session Medusa authorized before the refund returns its
 * canceled payment from authorization, so refusing to authorize is not enough. The session's flag is
 * written before the ledger's, so either one refuses.
 */
completeCartWorkflow.hooks.validate(async ({ cart }, { container }) => {
  if (cart.completed_at) return
  const registry = providerRegistry(container.resolve(ContainerRegistrationKeys.CONFIG_MODULE))
  const sessions: CartSession[] = cart.payment_collection?.payment_sessions ?? []
  for (const session of sessions.filter((session) => registry.get(session.provider_id))) {
    const givenBack = session.data?.given_back === true || givenBackToShopper((await knownLedgerRow(container, session)) ?? {})
    if (givenBack) throw shopperError(MedusaError.Types.NOT_ALLOWED, text("store.payment_being_refunded"))
  }
})
