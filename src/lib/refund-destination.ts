import { MedusaError } from "@medusajs/framework/utils"
import { catalogueFor, type RegisteredProvider } from "./provider-registry"
import { findCoinNetwork, isMemoNetwork } from "./swap-service"
import { shopperError, text } from "./i18n"

/** A refund memo only goes with a coin on a memo network; the service would refuse it anyway. */
export async function assertRefundMemoAllowed(provider: RegisteredProvider, coin: string, network: string, memo?: string) {
  if (!memo) return
  const known = findCoinNetwork(await catalogueFor(provider).get(), coin, network)
  if (!known || !isMemoNetwork(known, network)) {
    throw shopperError(MedusaError.Types.INVALID_DATA, text("refund.no_memo", { network }))
  }
}
