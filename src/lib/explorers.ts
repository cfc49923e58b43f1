/** Block explorers for the networks shoppers pay on most, so a shopper and an admin can follow a transaction. */
const TX_URL: Record<string, string> = {
  bitcoin: "https://mempool.space/tx/",
  litecoin: "https://litecoinspace.org/tx/",
  dogecoin: "https://dogechain.info/tx/",
  ethereum: "https://etherscan.io/tx/",
  arbitrum: "https://arbiscan.io/tx/",
  optimism: "https://optimistic.etherscan.io/tx/",
  base: "https://basescan.org/tx/",
  polygon: "https://polygonscan.com/tx/",
  bsc: "https://bscscan.com/tx/",
  avax: "https://snowtrace.io/tx/",
  zksync: "https://explorer.zksync.io/tx/",
  ethereumclassic: "https://etc.blockscout.com/tx/",
  bitcoincash: "https://blockchair.com/bitcoin-cash/transaction/",
  dash: "https://blockchair.com/dash/transaction/",
  zcash: "https://blockchair.com/zcash/transaction/",
  solana: "https://solscan.io/tx/",
  tron: "https://tronscan.org/#/transaction/",
  ripple: "https://xrpscan.com/tx/",
  stellar: "https://stellar.expert/explorer/public/tx/",
  ton: "https://tonviewer.com/transaction/",
  cosmoshub: "https://www.mintscan.io/cosmos/tx/",
}

export function explorerTxUrl(network: string | null | undefined, txHash: string | null | undefined): string | null {
  if (!network || !txHash) return null
  const base = TX_URL[network.toLowerCase()]
  return base ? `${base}${encodeURIComponent(txHash)}` : null
}
