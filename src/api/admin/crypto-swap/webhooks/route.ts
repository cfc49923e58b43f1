import type { AuthenticatedMedusaRequest, MedusaResponse } from "@medusajs/framework/http"
import { ContainerRegistrationKeys, MedusaError } from "@medusajs/framework/utils"
import { CRYPTO_SWAP_MODULE, type CryptoSwapModuleService } from "../../../../modules/crypto-swap"
import { providerById, providerRegistry } from "../../../../lib/provider-registry"
import { registerWebhook } from "../../../../lib/register-webhook"
import { toMedusaError } from "../../../../lib/to-medusa-error"
import type { RegisterWebhookBody } from "../validators"

export async function GET(req: AuthenticatedMedusaRequest, res: MedusaResponse) {
  const ledger = req.scope.resolve<CryptoSwapModuleService>(CRYPTO_SWAP_MODULE)
  res.json({ webhooks: await ledger.listSwapWebhooks({}) })
}

export async function POST(req: AuthenticatedMedusaRequest<RegisterWebhookBody>, res: MedusaResponse) {
  const body = req.validatedBody
  const configModule = req.scope.resolve(ContainerRegistrationKeys.CONFIG_MODULE)
  const providerId = body.provider_id ?? [...providerRegistry(configModule).keys()][0]
  if (!providerId || !providerRegistry(configModule).has(providerId)) {
    throw new MedusaError(MedusaError.Types.INVALID_DATA, `No crypto-swap provider ${providerId ?? ""} is registered`)
  }
  const provider = providerById(configModule, providerId)
  const backendUrl = body.backend_url ?? provider.options.backendUrl
  if (!backendUrl) {
    throw new MedusaError(MedusaError.Types.INVALID_DATA, "Give backend_url, or set the provider's backendUrl option")
  }
  try {
    const webhook = await registerWebhook(req.scope.resolve(CRYPTO_SWAP_MODULE), provider, backendUrl)
    res.status(201).json({ webhook })
  } catch (error) {
    throw toMedusaError(error, "registering the webhook")
  }
}
