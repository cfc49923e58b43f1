import { createHmac, timingSafeEqual } from "node:crypto"
import type { CryptoSwapOptions } from "../providers/crypto-swap/options"

/**
 * The secret path segment of a provider's webhook URL. Derived from the private key, so only the URL
 * registered with the service carries it and no extra setting is needed; it reveals nothing of the key.
 */
export function webhookToken(options: Pick<CryptoSwapOptions, "privateKey" | "accountId">): string {
  return createHmac("sha256", options.privateKey).update(`crypto-swap-webhook:${options.accountId}`).digest("base64url")
}

export function tokenMatches(candidate: string, expected: string): boolean {
  const a = Buffer.from(candidate)
  const b = Buffer.from(expected)
  return a.length === b.length && timingSafeEqual(a, b)
}

export function webhookUrl(backendUrl: string, options: Pick<CryptoSwapOptions, "privateKey" | "accountId">): string {
  return `${backendUrl.replace(/\/+$/, "")}/hooks/crypto-swap/${webhookToken(options)}`
}
