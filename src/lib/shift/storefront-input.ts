import { MedusaError } from "@medusajs/framework/utils"
import { z } from "@medusajs/framework/zod"
import { describeIssues } from "../describe-issues"
import { shopperError, text } from "../i18n"

const token = (max: number) =>
  z
    .string()
    .trim()
    .min(1)
    .max(max)
    .regex(/^[A-Za-z0-9._:-]+$/, "may contain only letters, digits, '.', '_', ':' and '-'")

/**
 * What a storefront may send as payment session `data`. Anything else is refused: Medusa stores the
 * storefront's data beside ours, so unknown keys must never get through.
 */
export const storefrontInputSchema = z
  .object({
    deposit_coin: token(64),
    deposit_network: token(64),
    refund_address: token(256).optional(),
    refund_memo: z.string().trim().min(1).max(128).regex(/^[\x20-\x7e]+$/, "must be printable ASCII").optional(),
    /** Set by the plugin's middleware from the request, never taken from the client. */
    customer_ip: z.union([z.ipv4(), z.ipv6()]).optional(),
    /** Added by Medusa's payment module. */
    session_id: z.string().min(1),
  })
  .strict()

export type StorefrontInput = z.output<typeof storefrontInputSchema>

/** The storefront's own part, as a request carries it: Medusa adds `session_id` afterwards. */
export const storefrontChoiceSchema = storefrontInputSchema.omit({ session_id: true })

export type StorefrontChoice = z.output<typeof storefrontChoiceSchema>

/** Parses what a storefront sent, or refuses it with every reason. */
export function parseStorefrontInput<T extends z.ZodType>(schema: T, data: unknown): z.output<T> {
  const parsed = schema.safeParse(data ?? {})
  if (!parsed.success) {
    throw shopperError(MedusaError.Types.INVALID_DATA, text("store.invalid_details", { issues: describeIssues(parsed.error) }))
  }
  return parsed.data
}
