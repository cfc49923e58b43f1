import { z } from "@medusajs/framework/zod"

export const registerWebhookSchema = z
  .object({
    provider_id: z.string().min(1).optional(),
    /** The store's public backend URL; defaults to the provider's `backendUrl` option. */
    backend_url: z.url().optional(),
  })
  .strict()

export type RegisterWebhookBody = z.infer<typeof registerWebhookSchema>

export const adminRefundAddressSchema = z
  .object({
    address: z.string().trim().min(1).max(256).regex(/^[A-Za-z0-9:._-]+$/, "is not an address"),
    memo: z.string().trim().min(1).max(128).regex(/^[\x20-\x7e]+$/, "must be printable ASCII").optional(),
  })
  .strict()

export type AdminRefundAddressBody = z.infer<typeof adminRefundAddressSchema>

export const emptyBodySchema = z.object({}).strict()

export const markRefundedSchema = z.object({ note: z.string().trim().max(500).optional() }).strict()
