import { COINS, NETWORKS, type CoinData, type NetworkData } from "./catalogue-data"
import { validationFailure } from "./service-error"

export type Side = "deposit" | "settle"
export type RateKind = "fixed" | "variable"

/** One coin on one network: the unit every quote, shift and checkout is priced in. */
export type Asset = {
  coin: CoinData
  network: string
  networkData: NetworkData
  /** Decimal places amounts are rounded to: the on-chain decimals, capped for display (see README). */
  precision: number
}

/** Amounts are shown with at most this many decimals, whatever the chain allows (18 for most EVM coins). */
export const MAX_AMOUNT_DECIMALS = 8

type NetworkFlag = "fixedOnly" | "depositVariableOnly" | "settleVariableOnly" | "depositOffline" | "settleOffline"

function assetOf(coin: CoinData, network: string): Asset {
  const decimals = coin.tokens?.[network]?.decimals ?? coin.decimals
  return { coin, network, networkData: NETWORKS[network], precision: Math.min(decimals, MAX_AMOUNT_DECIMALS) }
}

function coinByTicker(id: string): CoinData | undefined {
  return COINS.find((coin) => coin.coin.toLowerCase() === id)
}

function coinByContract(id: string, network: string): CoinData | undefined {
  return COINS.find((coin) => coin.tokens?.[network]?.contractAddress.toLowerCase() === id)
}

/** The alias the service accepts for a native coin's main network. */
const MAINNET = "mainnet"

/** The network a native coin lives on first (BTC bitcoin, ETH ethereum); tokens have none. */
function mainnetOf(coin: CoinData): string | undefined {
  const first = coin.networks[0]
  return coin.tokens?.[first] ? undefined : first
}

/**
 * How a missing network reads: in pair paths and lists a bare coin is its main (or only) network; in request
 * bodies, where the network is a required field, only a coin with a single network may leave it out.
 */
type BareCoin = "main" | "only"

/** The network a request means: `mainnet` for the main one, and no network as `bare` says. */
function resolveNetwork(coin: CoinData, network: string, bare: BareCoin): string | undefined {
  if (network === "") {
    const only = coin.networks.length === 1 ? coin.networks[0] : undefined
    return bare === "main" ? mainnetOf(coin) ?? only : only
  }
  return network === MAINNET ? mainnetOf(coin) : coin.networks.find((candidate) => candidate === network)
}

/**
 * Resolves a coin id (ticker, any case; on the deposit side also a token contract address) and a
 * network (or its alias) to an asset, failing the way the service does: 500 "Invalid coin" / "Invalid network".
 */
export function findAsset(coinId: string, networkId: string | undefined, side: Side, bare: BareCoin = "only"): Asset {
  const id = coinId.trim().toLowerCase()
  const network = (networkId ?? "").trim().toLowerCase()
  const coin = coinByTicker(id) ?? (side === "deposit" ? coinByContract(id, network) : undefined)
  if (!coin) {
    throw validationFailure("Invalid coin")
  }
  const resolved = resolveNetwork(coin, network, bare)
  if (!resolved) {
    throw validationFailure("Invalid network")
  }
  return assetOf(coin, resolved)
}

/** `btc-bitcoin`, `btc-mainnet` or just `btc`, as pair paths and lists name assets. */
export function parseCoinNetwork(text: string, side: Side): Asset {
  const [coinId, ...networkParts] = text.split("-")
  return findAsset(coinId, networkParts.join("-"), side, "main")
}

export function allAssets(): Asset[] {
  return COINS.flatMap((coin) => coin.networks.map((network) => assetOf(coin, network)))
}

function hasFlag(asset: Asset, flag: NetworkFlag): boolean {
  return asset.coin[flag]?.includes(asset.network) ?? false
}

export function sameAsset(a: Asset, b: Asset): boolean {
  return a.coin.coin === b.coin.coin && a.network === b.network
}

/** Refuses a pair the service would refuse, with the service's message. `kind` adds the rate-type rules. */
export function assertPairAvailable(deposit: Asset, settle: Asset, kind?: RateKind): void {
  if (sameAsset(deposit, settle)) {
    throw validationFailure("Deposit and settle method must be different")
  }
  if (hasFlag(deposit, "depositOffline") || hasFlag(settle, "settleOffline")) {
    throw validationFailure("Rate unavailable")
  }
  // A network variable-only on one side says nothing about the other side (spec 2.4).
  if (kind === "fixed" && (hasFlag(deposit, "depositVariableOnly") || hasFlag(settle, "settleVariableOnly"))) {
    throw validationFailure("Fixed rate is not available for this pair")
  }
  if (kind === "variable" && (hasFlag(deposit, "fixedOnly") || hasFlag(settle, "fixedOnly"))) {
    throw validationFailure("Variable rate is not available for this pair")
  }
}

export function isPairAvailable(deposit: Asset, settle: Asset, kind?: RateKind): boolean {
  try {
    assertPairAvailable(deposit, settle, kind)
    return true
  } catch {
    return false
  }
}

export function supportsMemo(asset: Asset): boolean {
  return asset.networkData.memo !== undefined
}

/** `false`, or the flagged networks; `true` on a single-network coin, as the real listing sometimes does. */
function networkListFlag(coin: CoinData, networks: string[] | undefined): boolean | string[] {
  if (!networks?.length) {
    return false
  }
  return coin.networks.length === 1 ? true : [...networks]
}

function withoutRepeats(...lists: (string[] | undefined)[]): string[] {
  return [...new Set(lists.flatMap((list) => list ?? []))]
}

/** The `GET /v2/coins` record of a coin. */
function coinListing(coin: CoinData): Record<string, unknown> {
  const networksWithMemo = coin.networks.filter((network) => NETWORKS[network].memo !== undefined)
  return {
    coin: coin.coin,
    name: coin.name,
    networks: [...coin.networks],
    mainnet: mainnetOf(coin),
    ...(coin.tokens ? { tokenDetails: structuredClone(coin.tokens) } : {}),
    networksWithMemo,
    hasMemo: networksWithMemo.length > 0,
    fixedOnly: networkListFlag(coin, coin.fixedOnly),
    // Deprecated union of both sides, kept for old clients.
    variableOnly: networkListFlag(coin, withoutRepeats(coin.depositVariableOnly, coin.settleVariableOnly)),
    depositVariableOnly: networkListFlag(coin, coin.depositVariableOnly),
    settleVariableOnly: networkListFlag(coin, coin.settleVariableOnly),
    depositOffline: networkListFlag(coin, coin.depositOffline),
    settleOffline: networkListFlag(coin, coin.settleOffline),
  }
}

export function coinsListing(): Record<string, unknown>[] {
  return COINS.map(coinListing)
}
