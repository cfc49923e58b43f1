import { z } from "@medusajs/framework/zod"

export const registerWebhookSchema = z
  .object({
    provider_id: z.string().min(1).optional(),
    /** The store's public backend URL; defaults to the provider's `backendUrl` option. */
    backend_url: z.url().optional(),
  })
  .strict()

export type RegisterWebhookBody = z.infer<typeof registerWebhookSchema>
