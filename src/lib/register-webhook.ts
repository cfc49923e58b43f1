import type { CryptoSwapModuleService } from "../modules/crypto-swap"
import { clientFor, type RegisteredProvider } from "./provider-registry"
import { webhookUrl } from "./webhook-token"

/** Registers the store's webhook URL with the service (`createHook`) and keeps the hook's id. */
export async function registerWebhook(ledger: CryptoSwapModuleService, provider: RegisteredProvider, backendUrl: string) {
  const targetUrl = webhookUrl(backendUrl, provider)
  const existing = await ledger.listSwapWebhooks({ provider_id: provider.providerId, target_url: targetUrl })
  if (existing.length) return existing[0]
  const hook = await clientFor(provider).createHook(targetUrl)
  return ledger.createSwapWebhooks({
    provider_id: provider.providerId,
    hook_id: hook.id,
    target_url: hook.targetUrl,
    enabled: hook.enabled,
  })
}
