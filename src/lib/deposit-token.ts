import { chainNetwork } from "./chain-networks"
import type { TokenDetails } from "./payment-uri"
import { findCoinNetwork, type Coin } from "./swap-service"

const same = (a: string, b: string) => a.toLowerCase() === b.toLowerCase()

/**
 * The deposit coin's contract and decimals on `network` from the cached coins listing, which a wallet
 * link needs for a token. Null for a network's native coin, a network with no link standard, or when
 * the listing can't be read: the page then shows the address alone rather than a guessed link.
 */
export async function depositToken(catalogue: { get(): Promise<Coin[]> }, coin: string, network: string): Promise<TokenDetails | null> {
  const chain = chainNetwork(network)
  if (!chain || same(coin, chain.nativeCoin)) return null
  let coins: Coin[]
  try {
    coins = await catalogue.get()
  } catch {
    return null
  }
  const details = Object.entries(findCoinNetwork(coins, coin, network)?.tokenDetails ?? {}).find(([tokenNetwork]) => same(tokenNetwork, network))?.[1]
  return details?.contractAddress && typeof details.decimals === "number"
    ? { contractAddress: details.contractAddress, decimals: details.decimals }
    : null
}
