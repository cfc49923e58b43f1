import { z } from "@medusajs/framework/zod"
import { ALL_STATUSES, ISSUES } from "./shift-status"
import { badUserInput } from "./service-error"

// Request bodies the sandbox accepts, API and control interface alike. A body that does not fit
// is answered 400 BAD_USER_INPUT naming the first offending field.

const text = z.string().trim().min(1)
const decimalAmount = z.string().regex(/^\d+(\.\d+)?$/, "must be a decimal string such as \"12.5\"")

export const quoteRequestSchema = z.object({
  affiliateId: text,
  depositCoin: text,
  depositNetwork: text,
  settleCoin: text,
  settleNetwork: text,
  depositAmount: decimalAmount.nullish(),
  settleAmount: decimalAmount.nullish(),
})

const refundFields = { refundAddress: text.optional(), refundMemo: text.optional() }
const shiftFields = { settleAddress: text, affiliateId: text, settleMemo: text.optional(), externalId: text.optional(), ...refundFields }

export const fixedShiftRequestSchema = z.object({ quoteId: text, ...shiftFields })

export const variableShiftRequestSchema = z.object({
  depositCoin: text,
  depositNetwork: text,
  settleCoin: text,
  settleNetwork: text,
  ...shiftFields,
})

export const refundAddressRequestSchema = z.object({ address: text, memo: text.optional() })

export const cancelOrderRequestSchema = z.object({ orderId: text })

export const checkoutRequestSchema = z.object({
  settleCoin: text,
  settleNetwork: text,
  settleAmount: decimalAmount,
  settleAddress: text,
  settleMemo: text.optional(),
  affiliateId: text,
  successUrl: text,
  cancelUrl: text,
})

export const pairQuerySchema = z.object({
  affiliateId: text,
  amount: decimalAmount.optional(),
  /** Percent, 0 to 2 (spec 4.7). */
  commissionRate: z.coerce.number().min(0).max(2).optional(),
})

export const depositSimulationSchema = z.object({ amount: decimalAmount.optional(), txid: text.optional() })

export const statusChangeSchema = z.object({
  status: z.enum(ALL_STATUSES),
  issue: z.enum(ISSUES).optional(),
  depositIndex: z.number().int().min(0).optional(),
})

export const clockAdvanceSchema = z.object({ advanceSeconds: z.number().min(0) })

export const faultSchema = z.object({
  method: text.optional(),
  path: z.string().startsWith("/"),
  status: z.number().int().min(100).max(599).optional(),
  body: z.string().optional(),
  contentType: text.optional(),
  delayMs: z.number().int().min(0).optional(),
  times: z.number().int().min(1).optional(),
  reset: z.boolean().optional(),
  /** Sent with the injected status, e.g. `Retry-After` on a 429. */
  headers: z.record(z.string().regex(/^[A-Za-z0-9-]+$/), z.string()).optional(),
  /** The sandbox handles the request first (its effects stand), then the fault replaces, delays or drops the answer. */
  afterHandling: z.boolean().optional(),
})

const rateLimitsSchema = z.object({
  quotesPerMinute: z.number().int().min(1).optional(),
  shiftsPerMinute: z.number().int().min(1).optional(),
})

export const settingsUpdateSchema = z.object({
  blockedIps: z.array(text).optional(),
  rateLimits: rateLimitsSchema.optional(),
  auto: z.union([z.boolean(), z.object({ stepMs: z.number().int().min(1) })]).optional(),
  maxOpenVariableShifts: z.number().int().min(0).optional(),
  cancelAfterSeconds: z.number().min(0).optional(),
})

/** Parses `input` or throws the 400 the service would answer. */
export function parseRequest<T extends z.ZodType>(schema: T, input: unknown): z.infer<T> {
  const result = schema.safeParse(input ?? {})
  if (!result.success) {
    const issue = result.error.issues[0]
    const field = issue.path.join(".")
    throw badUserInput(field ? `${field}: ${issue.message}` : issue.message)
  }
  return result.data
}

export type QuoteRequest = z.infer<typeof quoteRequestSchema>
export type FixedShiftRequest = z.infer<typeof fixedShiftRequestSchema>
export type VariableShiftRequest = z.infer<typeof variableShiftRequestSchema>
export type RefundAddressRequest = z.infer<typeof refundAddressRequestSchema>
export type CheckoutRequest = z.infer<typeof checkoutRequestSchema>
export type FaultSpec = z.infer<typeof faultSchema>
