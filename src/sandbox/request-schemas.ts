import BigNumber from "bignumber.js"
import { z } from "@medusajs/framework/zod"
import { DEFAULT_COMMISSION_PERCENT } from "./pricing"
import { RATE_LIMIT_KEYS } from "./settings"
import { ALL_STATUSES, ISSUES } from "./shift-status"
import { badUserInput } from "./service-error"

// Request bodies the sandbox accepts, API and control interface alike. A body that does not fit
// is answered 400 BAD_USER_INPUT "Invalid parameters: <fields>", as the service words it.

const text = z.string().trim().min(1)
/** Public clients send an empty string for a field left blank; the service reads it as absent. */
const blankable = z.union([z.literal("").transform(() => undefined), text]).optional()
const DECIMAL = /^\d+(\.\d+)?$/

/**
 * A decimal string, or a JSON number as widely used clients send amounts, read alike (pricing refuses
 * what is too low either way). String(n) is the double's shortest spelling ("1e-7" included), which
 * BigNumber reads exactly, so no float expansion creeps in; digits beyond what a double holds (about 17
 * significant) were already lost in JSON.parse, which is why the plugin sends strings.
 */
const decimalAmount = z.union([
  z.string().regex(DECIMAL),
  z
    .number()
    .refine((n) => Number.isFinite(n) && n >= 0)
    .transform((n) => new BigNumber(String(n)).toFixed()),
])

/** The service's aliases: `mainnet` for a native coin's main network, nothing for a coin's main network. */
const network = blankable

export const quoteRequestSchema = z.object({
  affiliateId: text,
  depositCoin: text,
  depositNetwork: network,
  settleCoin: text,
  settleNetwork: network,
  depositAmount: decimalAmount.nullish(),
  settleAmount: decimalAmount.nullish(),
})

const refundFields = { refundAddress: blankable, refundMemo: blankable }
const shiftFields = { settleAddress: text, affiliateId: text, settleMemo: text.optional(), externalId: text.optional(), ...refundFields }

export const fixedShiftRequestSchema = z.object({ quoteId: text, ...shiftFields })

export const variableShiftRequestSchema = z.object({
  depositCoin: text,
  depositNetwork: network,
  settleCoin: text,
  settleNetwork: network,
  ...shiftFields,
})

export const refundAddressRequestSchema = z.object({ address: text, memo: text.optional() })

export const cancelOrderRequestSchema = z.object({ orderId: text })

export const checkoutRequestSchema = z.object({
  settleCoin: text,
  settleNetwork: network,
  settleAmount: decimalAmount,
  settleAddress: text,
  settleMemo: text.optional(),
  affiliateId: text,
  successUrl: text,
  cancelUrl: text,
})

export const pairQuerySchema = z.object({
  affiliateId: text,
  amount: z.string().regex(DECIMAL).optional(),
  /** Percent, 0 to 2 (spec 4.7); without one the service applies its default. */
  commissionRate: z
    .string()
    .regex(DECIMAL)
    .refine((percent) => new BigNumber(percent).lte(2))
    .default(DEFAULT_COMMISSION_PERCENT),
})

export const depositSimulationSchema = z.object({ amount: decimalAmount.optional(), txid: text.optional() })

export const statusChangeSchema = z.object({
  status: z.enum(ALL_STATUSES),
  issue: z.enum(ISSUES).optional(),
  depositIndex: z.number().int().min(0).optional(),
  settleAmount: decimalAmount.optional(),
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
  rateLimitBy: z.enum(RATE_LIMIT_KEYS).optional(),
})

/** Parses `input` or throws the 400 the service would answer, naming every offending parameter. */
export function parseRequest<T extends z.ZodType>(schema: T, input: unknown): z.infer<T> {
  const result = schema.safeParse(input ?? {})
  if (!result.success) {
    const fields = [...new Set(result.error.issues.map((issue) => issue.path.join(".")).filter(Boolean))]
    throw badUserInput(fields.length ? `Invalid parameters: ${fields.join(", ")}` : "Invalid parameters")
  }
  return result.data
}

export type QuoteRequest = z.infer<typeof quoteRequestSchema>
export type FixedShiftRequest = z.infer<typeof fixedShiftRequestSchema>
export type VariableShiftRequest = z.infer<typeof variableShiftRequestSchema>
export type RefundAddressRequest = z.infer<typeof refundAddressRequestSchema>
export type CheckoutRequest = z.infer<typeof checkoutRequestSchema>
export type FaultSpec = z.infer<typeof faultSchema>
