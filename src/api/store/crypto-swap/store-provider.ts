import type { MedusaContainer } from "@medusajs/framework/types"
import { ContainerRegistrationKeys, MedusaError } from "@medusajs/framework/utils"
import { providerRegistry, type RegisteredProvider } from "../../../lib/provider-registry"
import type { Settlement } from "../../../lib/options"
import { shopperError, text } from "../../../lib/i18n"

/** The crypto-swap provider a cart pays with (the one asked for, else the first its region offers) and its settlement. */
export async function cartProvider(
  scope: MedusaContainer,
  cartId: string,
  providerId?: string
): Promise<{ provider: RegisteredProvider; settlement: Settlement; currency: string; cart: { id: string; total: unknown } }> {
  const query = scope.resolve(ContainerRegistrationKeys.QUERY)
  const {
    data: [cart],
  } = await query.graph({
    entity: "cart",
    fields: ["id", "currency_code", "total", "region.payment_providers.id"],
    filters: { id: cartId },
  })
  if (!cart) throw shopperError(MedusaError.Types.NOT_FOUND, text("store.cart_not_found", { cart: cartId }))
  const registry = providerRegistry(scope.resolve(ContainerRegistrationKeys.CONFIG_MODULE))
  const offered = (cart.region?.payment_providers ?? []).map((p: { id: string }) => p.id).filter((id: string) => registry.has(id))
  const chosen = providerId ?? offered[0]
  if (!chosen || !offered.includes(chosen)) {
    throw shopperError(MedusaError.Types.NOT_ALLOWED, text("store.region_not_offered"))
  }
  const provider = registry.get(chosen)!
  const currency = cart.currency_code.toLowerCase()
  const settlement = provider.options.settlement[currency]
  if (!settlement) {
    throw shopperError(MedusaError.Types.NOT_ALLOWED, text("store.currency_not_set_up", { currency: currency.toUpperCase() }))
  }
  return { provider, settlement, currency, cart: { id: cart.id, total: cart.total } }
}
