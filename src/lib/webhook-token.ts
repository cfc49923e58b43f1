import { createHmac, timingSafeEqual } from "node:crypto"
import type { RegisteredProvider } from "./provider-registry"

type TokenSource = { providerId: string; options: Pick<RegisteredProvider["options"], "privateKey" | "accountId"> }

/**
 * The secret path segment of a provider's webhook URL. Derived from the private key, so only the URL
 * registered with the service carries it and no extra setting is needed; it reveals nothing of the key.
 * It names the provider too, since several providers of a store may share one account.
 */
export function webhookToken({ providerId, options }: TokenSource): string {
  return createHmac("sha256", options.privateKey)
    .update(`crypto-swap-webhook:${options.accountId}:${providerId}`)
    .digest("base64url")
}

export function tokenMatches(candidate: string, expected: string): boolean {
  const a = Buffer.from(candidate)
  const b = Buffer.from(expected)
  return a.length === b.length && timingSafeEqual(a, b)
}

export function webhookUrl(backendUrl: string, provider: TokenSource): string {
  return `${backendUrl.replace(/\/+$/, "")}/hooks/crypto-swap/${webhookToken(provider)}`
}
