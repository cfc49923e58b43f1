/**
 * The link standard wallets read for each network the coin catalogue can have, its native coin and
 * that coin's on-chain decimals (the listing gives decimals for tokens only). A network missing here
 * (memo networks, Tron, Monero…) gets no wallet link: the shopper copies or scans the bare address.
 */
export type ChainNetwork =
  /** EIP-681 `ethereum:` links; the chain id keeps a wallet from paying on another EVM chain. */
  | { standard: "eip681"; chainId: number; nativeCoin: string; nativeDecimals: number }
  /** Solana Pay transfer requests. */
  | { standard: "solana-pay"; nativeCoin: string; nativeDecimals: number }
  /** BIP-21 and the same `scheme:address?amount=` format for its forks (ZIP-321 for Zcash). */
  | { standard: "bip21"; scheme: string; nativeCoin: string; nativeDecimals: number }

const evm = (chainId: number, nativeCoin: string): ChainNetwork => ({ standard: "eip681", chainId, nativeCoin, nativeDecimals: 18 })
const bip21 = (scheme: string, nativeCoin: string): ChainNetwork => ({ standard: "bip21", scheme, nativeCoin, nativeDecimals: 8 })

const CHAIN_NETWORKS: Record<string, ChainNetwork> = {
  ethereum: evm(1, "ETH"),
  optimism: evm(10, "ETH"),
  bsc: evm(56, "BNB"),
  ethereumclassic: evm(61, "ETC"),
  polygon: evm(137, "POL"),
  zksync: evm(324, "ETH"),
  base: evm(8453, "ETH"),
  arbitrum: evm(42161, "ETH"),
  avax: evm(43114, "AVAX"),
  solana: { standard: "solana-pay", nativeCoin: "SOL", nativeDecimals: 9 },
  bitcoin: bip21("bitcoin", "BTC"),
  litecoin: bip21("litecoin", "LTC"),
  dogecoin: bip21("dogecoin", "DOGE"),
  bitcoincash: bip21("bitcoincash", "BCH"),
  dash: bip21("dash", "DASH"),
  zcash: bip21("zcash", "ZEC"),
}

export function chainNetwork(network: string | null | undefined): ChainNetwork | undefined {
  return network ? CHAIN_NETWORKS[network.toLowerCase()] : undefined
}

/** EVM-like networks: the service sweeps deposit addresses there, so a deposit hash may be its sweep. */
export function isEvmNetwork(network: string | null | undefined): boolean {
  return chainNetwork(network)?.standard === "eip681"
}
