import QRCode from "qrcode"

/** URI schemes wallets understand (BIP-21 style) for native coins; other assets get the bare address. */
const SCHEME: Record<string, { coin: string; scheme: string }> = {
  bitcoin: { coin: "BTC", scheme: "bitcoin" },
  litecoin: { coin: "LTC", scheme: "litecoin" },
  dogecoin: { coin: "DOGE", scheme: "dogecoin" },
  bitcoincash: { coin: "BCH", scheme: "bitcoincash" },
  dash: { coin: "DASH", scheme: "dash" },
}

export function paymentUri(coin: string, network: string, address: string, amount?: string | null): string {
  const known = SCHEME[network.toLowerCase()]
  if (known && known.coin === coin.toUpperCase()) {
    const params = new URLSearchParams()
    if (amount) params.set("amount", amount)
    const query = params.toString()
    // Cash addresses carry their scheme already ("bitcoincash:q..."): never write it twice.
    const bare = address.toLowerCase().startsWith(`${known.scheme}:`) ? address.slice(known.scheme.length + 1) : address
    return `${known.scheme}:${bare}${query ? `?${query}` : ""}`
  }
  // Without a scheme wallets would misread an amount: the address alone is what they can scan.
  return address
}

export async function qrCodeSvg(text: string): Promise<string> {
  return QRCode.toString(text, { type: "svg", errorCorrectionLevel: "M", margin: 2 })
}
