import { model } from "@medusajs/framework/utils"

/** A hook registered with the service's `createHook`, so notifications naming another hook are ignored. */
export const SwapWebhook = model.define("crypto_swap_webhook", {
  id: model.id({ prefix: "cshook" }).primaryKey(),
  provider_id: model.text().index(),
  hook_id: model.text().unique(),
  /** Carries the secret token: shown to admins only. */
  target_url: model.text(),
  enabled: model.boolean().default(true),
})
