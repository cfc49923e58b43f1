import type { MedusaContainer } from "@medusajs/framework/types"
import { ContainerRegistrationKeys, MedusaError } from "@medusajs/framework/utils"
import { CRYPTO_SWAP_MODULE, type CryptoSwapModuleService } from "../../../modules/crypto-swap"
import { providerRegistry, type RegisteredProvider } from "../../../lib/provider-registry"
import { ledgerRowFromSession, recordNewShift } from "../../../workflows/steps/discover-shifts"
import { parseInput } from "../../parse-input"
import { sessionIdSchema } from "./validators"

const NOT_FOUND = "No crypto payment with this id belongs to this cart"

/**
 * The payment session a shopper asks about, only if it belongs to their cart: shift ids are
 * sensitive, so another cart's session answers exactly like a session that does not exist.
 */
export async function shopperSession(scope: MedusaContainer, sessionId: string, cartId: string) {
  parseInput(sessionIdSchema, { id: sessionId })
  const query = scope.resolve(ContainerRegistrationKeys.QUERY)
  const {
    data: [session],
  } = await query.graph({
    entity: "payment_session",
    fields: ["id", "provider_id", "status", "amount", "currency_code", "data", "payment_collection_id"],
    filters: { id: sessionId },
  })
  // A provider the store no longer registers can't be followed: answered like any other unknown session.
  const provider = session ? providerRegistry(scope.resolve(ContainerRegistrationKeys.CONFIG_MODULE)).get(session.provider_id) : undefined
  if (!session || !provider) {
    throw new MedusaError(MedusaError.Types.NOT_FOUND, NOT_FOUND)
  }
  const { data: links } = await query.graph({
    entity: "cart_payment_collection",
    fields: ["cart_id"],
    filters: { payment_collection_id: session.payment_collection_id, cart_id: cartId },
  })
  if (!links.length) throw new MedusaError(MedusaError.Types.NOT_FOUND, NOT_FOUND)
  return { session, provider: provider as RegisteredProvider }
}

/** The ledger row of a session's current shift, recorded now if reconciliation has not seen it yet. */
export async function ledgerRowForSession(
  scope: MedusaContainer,
  session: Awaited<ReturnType<typeof shopperSession>>["session"],
  cartId: string
) {
  const ledger = scope.resolve<CryptoSwapModuleService>(CRYPTO_SWAP_MODULE)
  const data = (session.data ?? {}) as { shift_id?: string; checkout_id?: string }
  const filter = data.shift_id ? { shift_id: data.shift_id } : data.checkout_id ? { checkout_id: data.checkout_id } : null
  if (!filter) throw new MedusaError(MedusaError.Types.NOT_FOUND, NOT_FOUND)
  const [known] = await ledger.listSwapShifts(filter, { take: 1 })
  if (known) return known
  await recordNewShift(ledger, ledgerRowFromSession(session as any, cartId), "storefront")
  const [recorded] = await ledger.listSwapShifts(filter, { take: 1 })
  return recorded
}
