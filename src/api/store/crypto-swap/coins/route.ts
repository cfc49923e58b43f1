import type { MedusaRequest, MedusaResponse } from "@medusajs/framework/http"
import { catalogueFor } from "../../../../lib/provider-registry"
import { isMemoNetwork, isNetworkOffline, isVariableOnly, type Coin } from "../../../../lib/swap-service"
import { coinDecimals } from "../../../../lib/shift/shift-plan"
import { toMedusaError } from "../../../../lib/to-medusa-error"
import { parseInput } from "../../../parse-input"
import { cartProvider } from "../store-provider"
import { cartQuerySchema } from "../validators"

const same = (a: string, b: string) => a.toLowerCase() === b.toLowerCase()

/** `fixedOnly` is `false`, `true` (single-network coins) or the networks it applies to. */
function isFixedOnly(coin: Coin, network: string): boolean {
  const flag = coin.fixedOnly as boolean | string[] | undefined
  return flag === true || (Array.isArray(flag) && flag.some((flagged) => same(flagged, network)))
}

/** A coin as a coin picker shows it: only networks a shopper can pay on right now. */
function depositOption(coin: Coin, settle: { coin: string; network: string }) {
  const networks = coin.networks
    .filter((network) => !isNetworkOffline(coin, network, "deposit"))
    .filter((network) => !(same(coin.coin, settle.coin) && same(network, settle.network)))
    .map((network) => ({
      network,
      memo: isMemoNetwork(coin, network),
      fixed_rate: !isVariableOnly(coin, network, "deposit"),
      variable_rate: !isFixedOnly(coin, network),
      decimals: coinDecimals(coin, network),
      contract_address: coin.tokenDetails?.[network]?.contractAddress ?? null,
    }))
  return networks.length ? { coin: coin.coin, name: coin.name, networks } : null
}

/** The deposit options for the cart's region, from the cached catalogue. */
export async function GET(req: MedusaRequest, res: MedusaResponse) {
  const { cart_id, provider_id } = parseInput(cartQuerySchema, req.query)
  const { provider, settlement } = await cartProvider(req.scope, cart_id, provider_id)
  let coins: Coin[]
  try {
    coins = await catalogueFor(provider).get()
  } catch (error) {
    throw toMedusaError(error, "loading the coin list")
  }
  res.json({
    provider_id: provider.providerId,
    settle: { coin: settlement.coin, network: settlement.network },
    coins: coins.flatMap((coin) => depositOption(coin, settlement) ?? []),
  })
}
