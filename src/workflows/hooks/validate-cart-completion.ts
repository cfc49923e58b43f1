import { completeCartWorkflow } from "@medusajs/core-flows"
import { ContainerRegistrationKeys, MedusaError, PaymentSessionStatus } from "@medusajs/framework/utils"
import type { BigNumberInput, MedusaContainer } from "@medusajs/framework/types"
import { providerRegistry } from "../../lib/provider-registry"
import { givenBackToShopper } from "../../lib/shift/shift-actions"
import { knownLedgerRow } from "../../lib/shift/session-ledger-row"
import { shopperError, text } from "../../lib/i18n"
import { refuseShortOfCartTotal } from "../../lib/shift/cart-total"

type CartSession = { id: string; provider_id: string; status: string; amount?: BigNumberInput | null; data?: Record<string, unknown> | null }

/** The statuses of a session cart completion may process. */
const PROCESSABLE_STATUSES: ReadonlySet<string> = new Set([
  PaymentSessionStatus.PENDING,
  PaymentSessionStatus.REQUIRES_MORE,
  PaymentSessionStatus.AUTHORIZED,
  PaymentSessionStatus.CAPTURED,
  PaymentSessionStatus.PENDING_AUTHORIZATION,
])

/**
 * Cart completion with a crypto session: no order on money going back (refuseMoneyGivenBack), nor for more
 * than the payment asks (refuseShortOfCartTotal). Medusa takes one handler per hook.
 */
completeCartWorkflow.hooks.validate(async ({ cart }, { container }) => {
  if (cart.completed_at) return
  const registry = providerRegistry(container.resolve(ContainerRegistrationKeys.CONFIG_MODULE))
  const sessions: CartSession[] = cart.payment_collection?.payment_sessions ?? []
  const crypto = sessions.filter((session) => registry.get(session.provider_id))
  if (!crypto.length) return
  // Only the session the completion would process (core-flows' validateCartPaymentsStep takes the first).
  const processed = sessions.find((session) => PROCESSABLE_STATUSES.has(session.status))
  const processedCrypto = processed && registry.get(processed.provider_id) ? processed : undefined
  await refuseMoneyGivenBack(container, crypto, processedCrypto)
  if (processedCrypto) refuseShortOfCartTotal(processedCrypto.amount, cart)
})

/**
 * Money going back to the shopper never buys the order, whichever route completes the cart (the store's,
 * Medusa's payment webhook route, a workflow): a session Medusa authorized before the refund returns its
 * canceled payment from authorization, so refusing to authorize is not enough. The session's flag is
 * written before the ledger's, so either one refuses. Nor does a payment Medusa refunded before any order
 * held it (its own payment webhook route captures a paid checkout, then refunds it when the cart can't be
 * completed), which a replay of that notification would otherwise hand to the order before any sync saw it.
 */
async function refuseMoneyGivenBack(container: MedusaContainer, sessions: CartSession[], processed: CartSession | undefined): Promise<void> {
  for (const session of sessions) {
    const givenBack = session.data?.given_back === true || givenBackToShopper((await knownLedgerRow(container, session)) ?? {})
    if (givenBack) throw shopperError(MedusaError.Types.NOT_ALLOWED, text("store.payment_being_refunded"))
  }
  // Only the session the completion would process: an older one Medusa refunded never blocks a new payment.
  if (processed && (await refundedByMedusa(container, processed.id))) {
    throw shopperError(MedusaError.Types.NOT_ALLOWED, text("store.payment_being_refunded"))
  }
}

async function refundedByMedusa(container: MedusaContainer, sessionId: string): Promise<boolean> {
  const {
    data: [session],
  } = await container.resolve(ContainerRegistrationKeys.QUERY).graph({ entity: "payment_session", fields: ["payment.refunds.id"], filters: { id: sessionId } })
  return (session?.payment?.refunds?.length ?? 0) > 0
}
