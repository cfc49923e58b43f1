import { z } from "@medusajs/framework/zod"
import { ATTENTION_REASONS, dateBound, orderedRange } from "../../../lib/accounting-export"

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

/** The cost the merchant saw and approves: an approval never stands for a dearer one asked since. */
export const approveRefundCostSchema = z.object({ cost: z.string().trim().regex(/^\d{1,30}(\.\d{1,30})?$/, "is not a decimal amount") }).strict()

/** An admin's record of what was done by other means (paid, recovered), with an optional note. */
export const adminNoteSchema = z.object({ note: z.string().trim().max(500).optional() }).strict()

/** Comma-separated values in one query parameter (`status=settled,waiting`), each checked. */
const commaList = <T extends string>(item: z.ZodType<T, string>) =>
  z
    .string()
    .transform((text) => text.split(",").map((value) => value.trim()).filter(Boolean))
    .pipe(z.array(item).min(1).max(20))

/** The payments page's filters: the same for its list and its totals. */
const movementFilters = {
  status: commaList(z.string().regex(/^[a-z_]{1,32}$/, "is not a status")).optional(),
  kind: commaList(z.enum(["payment", "refund", "top_up"])).optional(),
  attention: z
    .enum(["true", "false", ...ATTENTION_REASONS])
    .transform((value) => (value === "true" ? true : value === "false" ? false : value))
    .optional(),
  coin: z.string().trim().regex(/^[A-Za-z0-9]{1,20}$/, "is not a coin ticker").optional(),
  from: dateBound(false).optional(),
  to: dateBound(true).optional(),
  q: z.string().trim().min(1).max(200).optional(),
}

export const paymentTotalsQuerySchema = z.object(movementFilters).strict().refine(...orderedRange)

export const paymentsQuerySchema = z
  .object({
    ...movementFilters,
    limit: z.coerce.number().int().min(1).max(500).default(50),
    offset: z.coerce.number().int().min(0).default(0),
  })
  .strict()
  .refine(...orderedRange)

const pageLimit = z.coerce.number().int().min(1).max(200).default(20)
const pageOffset = z.coerce.number().int().min(0).default(0)

/** The status route's paged lists: stuck shifts and actions that stopped retrying, each paged on its own. */
export const statusQuerySchema = z
  .object({ stuck_limit: pageLimit, stuck_offset: pageOffset, attention_limit: pageLimit, attention_offset: pageOffset })
  .strict()
