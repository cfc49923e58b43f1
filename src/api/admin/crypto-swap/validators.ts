import { z } from "@medusajs/framework/zod"

export const registerWebhookSchema = z
  .object({
    provider_id: z.string().min(1).optional(),
    /** The store's public backend URL; defaults to the provider's `backendUrl` option. */
    backend_url: z.url().optional(),
  })
  .strict()

export type RegisterWebhookBody = z.infer<typeof registerWebhookSchema>

const refundAddress = z.string().trim().min(1).max(256).regex(/^[A-Za-z0-9:._-]+$/, "is not an address")
const refundMemo = z.string().trim().min(1).max(128).regex(/^[\x20-\x7e]+$/, "must be printable ASCII")

export const adminRefundAddressSchema = z.object({ address: refundAddress, memo: refundMemo.optional() }).strict()

/** Where held money goes back; without an address, the one the shopper gave, or asked for later. */
export const refundHeldMoneySchema = z.object({ address: refundAddress.optional(), memo: refundMemo.optional() }).strict()

export type AdminRefundAddressBody = z.infer<typeof adminRefundAddressSchema>

export const emptyBodySchema = z.object({}).strict()

export const markRefundedSchema = z.object({ note: z.string().trim().max(500).optional() }).strict()
