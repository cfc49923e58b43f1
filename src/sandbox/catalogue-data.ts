// The sandbox's coin catalogue: a realistic subset of the real service's >200 assets, chosen so that
// every rule of the coins listing occurs at least once (tokens with 6 and 18 decimals, memo networks,
// fixed-only, deposit-only and settle-only variable networks, an offline network, single-network coins).
// Prices are fixed USD values: the sandbox derives every rate from them, so results are reproducible.

/** How addresses on a network look: picks the validation pattern and the deposit-address generator. */
export type AddressFormat =
  | "evm"
  | "hex64"
  | "bitcoin"
  | "litecoin"
  | "dogecoin"
  | "dash"
  | "bitcoincash"
  | "zcash"
  | "tron"
  | "solana"
  | "ripple"
  | "stellar"
  | "cosmos"
  | "ton"
  | "bnb"
  | "hedera"
  | "monero"
  | "cardano"
  | "polkadot"
  | "near"
  | "algorand"

export type NetworkData = {
  addressFormat: AddressFormat
  /** USD cost of one settlement transaction; drives the fee estimate and the minimum deposit. */
  feeUsd: string
  /** Networks whose transfers carry a memo (destination tag); "numeric" ones accept digits only. */
  memo?: "numeric" | "text"
}

export const NETWORKS: Record<string, NetworkData> = {
  bitcoin: { addressFormat: "bitcoin", feeUsd: "1.5" },
  ethereum: { addressFormat: "evm", feeUsd: "2" },
  arbitrum: { addressFormat: "evm", feeUsd: "0.1" },
  optimism: { addressFormat: "evm", feeUsd: "0.1" },
  base: { addressFormat: "evm", feeUsd: "0.1" },
  zksync: { addressFormat: "evm", feeUsd: "0.1" },
  polygon: { addressFormat: "evm", feeUsd: "0.02" },
  bsc: { addressFormat: "evm", feeUsd: "0.1" },
  avax: { addressFormat: "evm", feeUsd: "0.1" },
  ethereumclassic: { addressFormat: "evm", feeUsd: "0.01" },
  tron: { addressFormat: "tron", feeUsd: "1" },
  solana: { addressFormat: "solana", feeUsd: "0.01" },
  ripple: { addressFormat: "ripple", feeUsd: "0.01", memo: "numeric" },
  stellar: { addressFormat: "stellar", feeUsd: "0.01", memo: "text" },
  cosmoshub: { addressFormat: "cosmos", feeUsd: "0.02", memo: "text" },
  ton: { addressFormat: "ton", feeUsd: "0.05", memo: "text" },
  bnb: { addressFormat: "bnb", feeUsd: "0.01", memo: "text" },
  hedera: { addressFormat: "hedera", feeUsd: "0.01", memo: "text" },
  litecoin: { addressFormat: "litecoin", feeUsd: "0.05" },
  dogecoin: { addressFormat: "dogecoin", feeUsd: "0.5" },
  dash: { addressFormat: "dash", feeUsd: "0.05" },
  bitcoincash: { addressFormat: "bitcoincash", feeUsd: "0.01" },
  zcash: { addressFormat: "zcash", feeUsd: "0.01" },
  monero: { addressFormat: "monero", feeUsd: "0.05" },
  cardano: { addressFormat: "cardano", feeUsd: "0.2" },
  polkadot: { addressFormat: "polkadot", feeUsd: "0.1" },
  near: { addressFormat: "near", feeUsd: "0.01" },
  aptos: { addressFormat: "hex64", feeUsd: "0.01" },
  sui: { addressFormat: "hex64", feeUsd: "0.01" },
  algorand: { addressFormat: "algorand", feeUsd: "0.01" },
}

export type TokenData = { contractAddress: string; decimals: number }

export type CoinData = {
  coin: string
  name: string
  usdPrice: string
  /** Largest deposit accepted, in USD. */
  maxUsd: string
  /** On-chain decimals where the coin is native; token networks use their `tokens` entry instead. */
  decimals: number
  /** Main network first: it is the default when a pair names the coin without a network. */
  networks: string[]
  tokens?: Record<string, TokenData>
  fixedOnly?: string[]
  depositVariableOnly?: string[]
  settleVariableOnly?: string[]
  depositOffline?: string[]
  settleOffline?: string[]
}

const MAJOR = "250000"
const USUAL = "50000"

export const COINS: CoinData[] = [
  { coin: "BTC", name: "Bitcoin", usdPrice: "65000", maxUsd: MAJOR, decimals: 8, networks: ["bitcoin"] },
  {
    coin: "ETH",
    name: "Ethereum",
    usdPrice: "3200",
    maxUsd: MAJOR,
    decimals: 18,
    networks: ["ethereum", "arbitrum", "optimism", "base", "zksync"],
    depositVariableOnly: ["zksync"],
  },
  {
    coin: "USDC",
    name: "USD Coin",
    usdPrice: "1",
    maxUsd: MAJOR,
    decimals: 6,
    networks: ["ethereum", "tron", "solana", "polygon", "bsc", "arbitrum", "optimism", "base", "avax", "stellar", "algorand"],
    tokens: {
      ethereum: { contractAddress: "0xa0b86991c6218b36c1d19d4a2e9eb0ce3606eb48", decimals: 6 },
      tron: { contractAddress: "TEkxiTehnzSmSe2XqrBj4w32RUN966rdz8", decimals: 6 },
      solana: { contractAddress: "EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v", decimals: 6 },
      polygon: { contractAddress: "0x3c499c542cef5e3811e1192ce70d8cc03d5c3359", decimals: 6 },
      bsc: { contractAddress: "0x8ac76a51cc950d9822d68b83fe1ad97b32cd580d", decimals: 18 },
      arbitrum: { contractAddress: "0xaf88d065e77c8cc2239327c5edb3a432268e5831", decimals: 6 },
      optimism: { contractAddress: "0x0b2c639c533813f4aa9d7837caf62653d097ff85", decimals: 6 },
      base: { contractAddress: "0x833589fcd6edb6e08f4c7c32d4f71b54bda02913", decimals: 6 },
      avax: { contractAddress: "0xb97ef9ef8734c71904d8002f8b6bc66dd9c48a6e", decimals: 6 },
      stellar: { contractAddress: "USDC-GA5ZSEJYB37JRC5AVCIA5MOP4RHTM335X2KGX3IHOJAPP5RE34K4KZVN", decimals: 7 },
      algorand: { contractAddress: "31566704", decimals: 6 },
    },
    settleVariableOnly: ["algorand"],
  },
  {
    coin: "USDT",
    name: "Tether",
    usdPrice: "1",
    maxUsd: MAJOR,
    decimals: 6,
    networks: ["ethereum", "tron", "solana", "polygon", "bsc", "arbitrum", "avax", "ton"],
    tokens: {
      ethereum: { contractAddress: "0xdac17f958d2ee523a2206206994597c13d831ec7", decimals: 6 },
      tron: { contractAddress: "TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t", decimals: 6 },
      solana: { contractAddress: "Es9vMFrzaCERmJfrF4H2FYD4KCoNkY11McCe8BenwNYB", decimals: 6 },
      polygon: { contractAddress: "0xc2132d05d31c914a87c6611c10748aeb04b58e8f", decimals: 6 },
      bsc: { contractAddress: "0x55d398326f99059ff775485246999027b3197955", decimals: 18 },
      arbitrum: { contractAddress: "0xfd086bc7cd5c481dcc9c85ebe478a1c0b69fcbb9", decimals: 6 },
      avax: { contractAddress: "0x9702230a8ea53601f5cd2dc00fdbc13d4df4a8c7", decimals: 6 },
      ton: { contractAddress: "EQCxE6mUtQJKFnGfaROTKOt1lZbDiiX1kCixRv7Nw2Id_sDs", decimals: 6 },
    },
    fixedOnly: ["ton"],
    depositOffline: ["avax"],
    settleOffline: ["avax"],
  },
  {
    coin: "EURC",
    name: "Euro Coin",
    usdPrice: "1.08",
    maxUsd: USUAL,
    decimals: 6,
    networks: ["ethereum", "solana"],
    tokens: {
      ethereum: { contractAddress: "0x1abaea1f7c830bd89acc67ec4af516284b1bc33c", decimals: 6 },
      solana: { contractAddress: "HzwqbKZw8HxMN6bF2yFZNrht3c2iXXzpKcFu7uBEDKtr", decimals: 6 },
    },
  },
  {
    coin: "DAI",
    name: "Dai",
    usdPrice: "1",
    maxUsd: USUAL,
    decimals: 18,
    networks: ["ethereum"],
    tokens: { ethereum: { contractAddress: "0x6b175474e89094c44da98b954eedeac495271d0f", decimals: 18 } },
  },
  {
    coin: "WBTC",
    name: "Wrapped Bitcoin",
    usdPrice: "65000",
    maxUsd: USUAL,
    decimals: 8,
    networks: ["ethereum"],
    tokens: { ethereum: { contractAddress: "0x2260fac5e5542a773aa44fbcfedf7c193bc2c599", decimals: 8 } },
  },
  {
    coin: "LINK",
    name: "Chainlink",
    usdPrice: "14",
    maxUsd: USUAL,
    decimals: 18,
    networks: ["ethereum", "arbitrum"],
    tokens: {
      ethereum: { contractAddress: "0x514910771af9ca656af840dff83e8264ecf986ca", decimals: 18 },
      arbitrum: { contractAddress: "0xf97f4df75117a78c1a5a0dbb814af92458539fb4", decimals: 18 },
    },
  },
  {
    coin: "UNI",
    name: "Uniswap",
    usdPrice: "8",
    maxUsd: USUAL,
    decimals: 18,
    networks: ["ethereum"],
    tokens: { ethereum: { contractAddress: "0x1f9840a85d5af5bf1d1762f925bdaddc4201f984", decimals: 18 } },
  },
  {
    coin: "ARB",
    name: "Arbitrum",
    usdPrice: "0.8",
    maxUsd: USUAL,
    decimals: 18,
    networks: ["arbitrum"],
    tokens: { arbitrum: { contractAddress: "0x912ce59144191c1204e64559fe8253a0e49e6548", decimals: 18 } },
  },
  {
    coin: "OP",
    name: "Optimism",
    usdPrice: "1.7",
    maxUsd: USUAL,
    decimals: 18,
    networks: ["optimism"],
    tokens: { optimism: { contractAddress: "0x4200000000000000000000000000000000000042", decimals: 18 } },
  },
  {
    coin: "POL",
    name: "Polygon Ecosystem Token",
    usdPrice: "0.5",
    maxUsd: USUAL,
    decimals: 18,
    networks: ["polygon", "ethereum"],
    tokens: { ethereum: { contractAddress: "0x455e53cbb86018ac2b8092fdcd39d8444affc3f6", decimals: 18 } },
  },
  { coin: "BNB", name: "BNB", usdPrice: "580", maxUsd: USUAL, decimals: 18, networks: ["bsc", "bnb"] },
  { coin: "XRP", name: "XRP", usdPrice: "0.55", maxUsd: USUAL, decimals: 6, networks: ["ripple"] },
  { coin: "XLM", name: "Stellar Lumens", usdPrice: "0.11", maxUsd: USUAL, decimals: 7, networks: ["stellar"] },
  { coin: "ATOM", name: "Cosmos", usdPrice: "7", maxUsd: USUAL, decimals: 6, networks: ["cosmoshub"] },
  { coin: "TON", name: "Toncoin", usdPrice: "5.5", maxUsd: USUAL, decimals: 9, networks: ["ton"] },
  { coin: "HBAR", name: "Hedera", usdPrice: "0.07", maxUsd: USUAL, decimals: 8, networks: ["hedera"] },
  { coin: "LTC", name: "Litecoin", usdPrice: "75", maxUsd: USUAL, decimals: 8, networks: ["litecoin"] },
  { coin: "DOGE", name: "Dogecoin", usdPrice: "0.12", maxUsd: USUAL, decimals: 8, networks: ["dogecoin"] },
  { coin: "DASH", name: "Dash", usdPrice: "28", maxUsd: USUAL, decimals: 8, networks: ["dash"] },
  { coin: "BCH", name: "Bitcoin Cash", usdPrice: "380", maxUsd: USUAL, decimals: 8, networks: ["bitcoincash"] },
  { coin: "ZEC", name: "Zcash", usdPrice: "30", maxUsd: USUAL, decimals: 8, networks: ["zcash"] },
  { coin: "SOL", name: "Solana", usdPrice: "150", maxUsd: MAJOR, decimals: 9, networks: ["solana"] },
  { coin: "TRX", name: "Tron", usdPrice: "0.12", maxUsd: USUAL, decimals: 6, networks: ["tron"] },
  {
    coin: "XMR",
    name: "Monero",
    usdPrice: "160",
    maxUsd: USUAL,
    decimals: 12,
    networks: ["monero"],
    fixedOnly: ["monero"],
  },
  { coin: "ADA", name: "Cardano", usdPrice: "0.45", maxUsd: USUAL, decimals: 6, networks: ["cardano"] },
  { coin: "DOT", name: "Polkadot", usdPrice: "6.5", maxUsd: USUAL, decimals: 10, networks: ["polkadot"] },
  { coin: "AVAX", name: "Avalanche", usdPrice: "30", maxUsd: USUAL, decimals: 18, networks: ["avax"] },
  { coin: "ETC", name: "Ethereum Classic", usdPrice: "22", maxUsd: USUAL, decimals: 18, networks: ["ethereumclassic"] },
  { coin: "NEAR", name: "NEAR Protocol", usdPrice: "5", maxUsd: USUAL, decimals: 24, networks: ["near"] },
  { coin: "APT", name: "Aptos", usdPrice: "8", maxUsd: USUAL, decimals: 8, networks: ["aptos"] },
  { coin: "SUI", name: "Sui", usdPrice: "1.2", maxUsd: USUAL, decimals: 9, networks: ["sui"] },
  { coin: "ALGO", name: "Algorand", usdPrice: "0.15", maxUsd: USUAL, decimals: 6, networks: ["algorand"] },
]
