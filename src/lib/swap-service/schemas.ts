import { z } from "@medusajs/framework/zod"

// Response shapes of the swap service. Tolerant where the service is known to vary (extra fields are
// kept, unknown status values pass as they are, optional fields may be missing or null), strict where
// the spec is: amounts and rates are decimal strings, never JSON numbers.

export const DECIMAL_PATTERN = /^\d+(\.\d+)?$/
export const decimalString = z.string().regex(DECIMAL_PATTERN, "must be a decimal string")
const optionalDecimal = decimalString.nullish()
const optionalText = z.string().nullish()
/** A listing flag: `false`, the networks it applies to, or `true` on single-network coins; absent means `false`. */
const networkFlag = z
  .union([z.boolean(), z.array(z.string())])
  .nullish()
  .transform((flag) => flag ?? false)

/** The statuses service-behaviour.md lists. */
export type KnownShiftStatus =
  | "waiting"
  | "pending"
  | "processing"
  | "review"
  | "settling"
  | "settled"
  | "refund"
  | "refunding"
  | "refunded"
  | "expired"
  | "multiple"
/** Any other value the service may add is kept as it is. */
export type ShiftStatus = KnownShiftStatus | (string & {})
const shiftStatus = z.custom<ShiftStatus>((value) => typeof value === "string", "must be a status string")

export const coinSchema = z.looseObject({
  coin: z.string(),
  name: optionalText,
  networks: z.array(z.string()),
  tokenDetails: z
    .record(z.string(), z.looseObject({ contractAddress: optionalText, decimals: z.number().int().min(0).nullish() }))
    .nullish(),
  networksWithMemo: z
    .array(z.string())
    .nullish()
    .transform((networks) => networks ?? []),
  /** Deprecated by `networksWithMemo`; never read. */
  hasMemo: z.boolean().nullish(),
  fixedOnly: networkFlag,
  /** Deprecated union of both sides; never read (a network variable-only on one side is not on the other). */
  variableOnly: networkFlag,
  depositVariableOnly: networkFlag,
  settleVariableOnly: networkFlag,
  depositOffline: networkFlag,
  settleOffline: networkFlag,
})

export const quoteSchema = z.looseObject({
  id: z.string(),
  createdAt: optionalText,
  depositCoin: z.string(),
  depositNetwork: z.string(),
  settleCoin: z.string(),
  settleNetwork: z.string(),
  expiresAt: z.string(),
  depositAmount: decimalString,
  settleAmount: decimalString,
  rate: decimalString,
  affiliateId: optionalText,
})

export const shiftDepositSchema = z.looseObject({
  updatedAt: optionalText,
  depositHash: optionalText,
  settleHash: optionalText,
  depositReceivedAt: optionalText,
  depositAmount: optionalDecimal,
  settleAmount: optionalDecimal,
  rate: optionalDecimal,
  status: shiftStatus,
  issue: optionalText,
})

export const shiftSchema = z.looseObject({
  id: z.string(),
  status: shiftStatus,
  type: z.string(),
  createdAt: z.string(),
  updatedAt: optionalText,
  depositCoin: z.string(),
  depositNetwork: z.string(),
  settleCoin: z.string(),
  settleNetwork: z.string(),
  /** May turn null long after the shift ended (the address is recycled): persist it at creation. */
  depositAddress: optionalText,
  depositMemo: optionalText,
  settleAddress: z.string(),
  settleMemo: optionalText,
  refundAddress: optionalText,
  refundMemo: optionalText,
  depositMin: optionalDecimal,
  depositMax: optionalDecimal,
  depositAmount: optionalDecimal,
  settleAmount: optionalDecimal,
  rate: optionalDecimal,
  quoteId: optionalText,
  externalId: optionalText,
  expiresAt: optionalText,
  averageShiftSeconds: z.union([z.string(), z.number()]).nullish(),
  settleCoinNetworkFee: optionalDecimal,
  networkFeeUsd: optionalDecimal,
  depositHash: optionalText,
  settleHash: optionalText,
  depositReceivedAt: optionalText,
  issue: optionalText,
  /** Present when `status` is "multiple": each deposit has its own status. */
  deposits: z.array(shiftDepositSchema).nullish(),
})

export const pairRateSchema = z.looseObject({
  min: decimalString,
  max: decimalString,
  rate: decimalString,
  depositCoin: z.string(),
  depositNetwork: z.string(),
  settleCoin: z.string(),
  settleNetwork: z.string(),
})

export const permissionsSchema = z.looseObject({ createShift: z.boolean() })

export const accountSchema = z.looseObject({ id: z.string(), secret: z.string() })

export const checkoutSchema = z.looseObject({
  id: z.string(),
  settleCoin: z.string(),
  settleNetwork: z.string(),
  settleAmount: decimalString,
  settleAddress: z.string(),
  settleMemo: optionalText,
  affiliateId: z.string(),
  successUrl: z.string(),
  cancelUrl: z.string(),
  /** Nine fractional digits: kept as the service wrote it; order with `compareTimestamps`. */
  createdAt: z.string(),
  updatedAt: z.string(),
  /** Only when fetched; the latest shift first. */
  orders: z
    .array(
      z.looseObject({
        id: z.string(),
        deposits: z
          .array(z.looseObject({ depositHash: optionalText, settleHash: optionalText }))
          .nullish()
          .transform((deposits) => deposits ?? []),
      })
    )
    .nullish(),
})

export const hookSchema = z.looseObject({
  id: z.string(),
  createdAt: z.string(),
  updatedAt: z.string(),
  targetUrl: z.string(),
  enabled: z.boolean(),
  accountId: optionalText,
})

/** `{ error: { message, code?, orderId?, depositRangeMin?, depositRangeMax? } }` on every non-2xx answer. */
export const errorBodySchema = z.looseObject({
  error: z.looseObject({
    message: z.string(),
    code: optionalText,
    orderId: optionalText,
    depositRangeMin: z.union([z.string(), z.number()]).nullish(),
    depositRangeMax: z.union([z.string(), z.number()]).nullish(),
  }),
})

/** A GraphQL answer: `data`, or `errors` (inside an HTTP 200). */
export const graphqlEnvelopeSchema = z.looseObject({
  data: z.unknown(),
  errors: z.array(z.looseObject({ message: z.string() })).nullish(),
})

const bounded = z.string().max(256)

/**
 * A checkout notification (spec section 6). Unknown fields are dropped and strings bounded: the
 * notifications are unsigned and anyone who learns the target URL can post one.
 */
export const webhookNotificationSchema = z.object({
  meta: z.object({
    hook: z.object({
      id: bounded,
      createdAt: bounded.nullish(),
      updatedAt: bounded.nullish(),
      enabled: z.boolean().nullish(),
      accountId: bounded,
      targetUrl: z.string().max(2048).nullish(),
    }),
  }),
  payload: z.object({
    shiftId: bounded.min(1),
    checkoutId: bounded.min(1).nullish(),
    /** "success" or "fail": a hint only, never acted on without reading the shift. */
    status: bounded,
    txid: bounded.nullish(),
  }),
})

export type Coin = z.output<typeof coinSchema>
export type Quote = z.output<typeof quoteSchema>
export type Shift = z.output<typeof shiftSchema>
export type ShiftDeposit = z.output<typeof shiftDepositSchema>
export type PairRate = z.output<typeof pairRateSchema>
export type Checkout = z.output<typeof checkoutSchema>
export type Hook = z.output<typeof hookSchema>
export type WebhookNotification = z.output<typeof webhookNotificationSchema>
