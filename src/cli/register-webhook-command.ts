import { SwapServiceClient } from "../lib/swap-service"
import { webhookUrl } from "../lib/webhook-token"
import { CONNECTION_HELP, parseCommand } from "./connection-options"

const HELP = `Usage: crypto-swap register-webhook --url BACKEND_URL [--provider-id ID]

Registers your store's webhook for the hosted checkout with the service (createHook). BACKEND_URL is
your Medusa backend's public URL; the hook posts to {BACKEND_URL}/hooks/crypto-swap/{token}, where the
token is derived from your private key. Prints the hook id: set it as the provider's webhookHookId
option so notifications naming another hook are ignored. (The admin's "Crypto payments" settings page
does the same and remembers the id by itself.) --provider-id defaults to pp_crypto-swap_crypto-swap.

${CONNECTION_HELP}`

export async function runRegisterWebhookCommand(argv: string[], out: (line: string) => void = console.log): Promise<number> {
  const { client, values, help } = parseCommand(
    argv,
    { url: { type: "string" }, "provider-id": { type: "string" } },
    ["base-url", "account-id", "secret"]
  )
  if (help) {
    out(HELP)
    return 0
  }
  if (!values.url) throw new Error("missing --url (your Medusa backend's public URL)")
  const providerId = String(values["provider-id"] ?? "pp_crypto-swap_crypto-swap")
  const service = new SwapServiceClient(client)
  try {
    const hook = await service.createHook(
      webhookUrl(String(values.url), { providerId, options: { privateKey: client.privateKey, accountId: client.accountId } })
    )
    out(`Webhook registered for ${providerId}. Hook id: ${hook.id}`)
    out(`Set the provider option webhookHookId: "${hook.id}" so notifications naming another hook are ignored.`)
    return 0
  } finally {
    await service.close()
  }
}
