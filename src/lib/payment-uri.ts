import QRCode from "qrcode"
import { chainNetwork } from "./chain-networks"
import { compareDecimals, isDecimalString, roundUp, toBaseUnits } from "./money"

/** A token's entry in the coins listing (`tokenDetails[network]`). */
export type TokenDetails = { contractAddress: string; decimals: number }

export type WalletLinkInput = {
  coin: string
  network: string
  address: string
  /** Exact amount due; null for a variable-rate deposit, whose link then leaves the amount to the shopper. */
  amount: string | null
  memo: string | null
  /** The deposit coin's token details on this network; null for a native coin or when unknown. */
  token: TokenDetails | null
}

const same = (a: string, b: string) => a.toLowerCase() === b.toLowerCase()

/**
 * The link a wallet opens with the payment filled in (EIP-681, Solana Pay, BIP-21), or null where no
 * standard fits. An amount finer than the coin's base unit is rounded up to the next unit: the
 * merchant never receives less (the difference is below one base unit).
 */
export function walletLink({ coin, network, address, amount, memo, token }: WalletLinkInput): string | null {
  const chain = chainNetwork(network)
  // None of these standards carries a memo the service would read: a link without it would lose the deposit.
  if (!chain || memo) return null
  const native = same(coin, chain.nativeCoin)
  // A token without its contract (or decimals) cannot be named in a link; never guess it as the native coin.
  if (!native && !token) return null
  const decimals = native ? chain.nativeDecimals : token!.decimals
  const due = amount && isDecimalString(amount) && compareDecimals(amount, "0") > 0 ? amount : null
  const query = new URLSearchParams()

  switch (chain.standard) {
    case "eip681": {
      if (native) {
        if (due) query.set("value", toBaseUnits(due, decimals))
        return `ethereum:${address}@${chain.chainId}${suffix(query)}`
      }
      query.set("address", address)
      if (due) query.set("uint256", toBaseUnits(due, decimals))
      return `ethereum:${token!.contractAddress}@${chain.chainId}/transfer${suffix(query)}`
    }
    case "solana-pay":
      if (due) query.set("amount", roundUp(due, decimals))
      if (!native) query.set("spl-token", token!.contractAddress)
      return `solana:${address}${suffix(query)}`
    case "bip21": {
      if (!native) return null
      if (due) query.set("amount", roundUp(due, decimals))
      // Cash addresses carry their scheme already ("bitcoincash:q..."): never write it twice.
      const bare = address.toLowerCase().startsWith(`${chain.scheme}:`) ? address.slice(chain.scheme.length + 1) : address
      return `${chain.scheme}:${bare}${suffix(query)}`
    }
  }
}

function suffix(query: URLSearchParams): string {
  const text = query.toString()
  return text ? `?${text}` : ""
}

export async function qrCodeSvg(text: string): Promise<string> {
  return QRCode.toString(text, { type: "svg", errorCorrectionLevel: "M", margin: 2 })
}
