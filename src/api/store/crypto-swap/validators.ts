import { z } from "@medusajs/framework/zod"

const id = (prefix: string) =>
  z
    .string()
    .max(64)
    .regex(new RegExp(`^${prefix}_[0-9A-Za-z]+$`), `must be a ${prefix}_ id`)

const token = z
  .string()
  .trim()
  .min(1)
  .max(64)
  .regex(/^[A-Za-z0-9._:-]+$/, "may contain only letters, digits, '.', '_', ':' and '-'")

const providerId = z.string().max(128).regex(/^pp_crypto-swap_[A-Za-z0-9_-]+$/, "must be a crypto-swap provider id")

export const cartQuerySchema = z.object({ cart_id: id("cart"), provider_id: providerId.optional() }).strict()

export const estimateQuerySchema = z
  .object({ cart_id: id("cart"), coin: token, network: token, provider_id: providerId.optional() })
  .strict()

/** A payment session id from the path: checked before it reaches the database (a NUL byte there is a server error). */
export const sessionIdSchema = z.object({ id: id("payses") })

export const sessionQuerySchema = z.object({ cart_id: id("cart") }).strict()

export const refundAddressBodySchema = z
  .object({
    cart_id: id("cart"),
    address: z.string().trim().min(1).max(256).regex(/^[A-Za-z0-9:._-]+$/, "is not an address"),
    memo: z.string().trim().min(1).max(128).regex(/^[\x20-\x7e]+$/, "must be printable ASCII").optional(),
  })
  .strict()

/** A shopper's action on their payment (requote, top-up): only the cart it belongs to. */
export const cartBodySchema = z.object({ cart_id: id("cart") }).strict()

export const emptyQuerySchema = z.object({}).strict()
