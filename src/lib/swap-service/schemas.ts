import { z } from "@medusajs/framework/zod"

/**
 * Response shapes of the swap service. Tolerant where the service varies (extra fields are kept,
 * unknown status values pass as strings, optional fields may be missing or null), strict where the
 * spec is: amounts and rates are decimal strings.
 */
export const decimalString = z.string().regex(/^\d+(\.\d+)?$/, "must be a decimal string")
const optionalDecimal = decimalString.nullish()
const text = z.string()
const optionalText = z.string().nullish()
/** `false`, `true` (single-network coins) or the networks a coin flag applies to. */
const networkFlag = z.union([z.boolean(), z.array(z.string())])

export const coinSchema = z.looseObject({
  coin: text,
  name: text.default(""),
  networks: z.array(z.string()),
  tokenDetails: z
    .record(z.string(), z.looseObject({ contractAddress: optionalText, decimals: z.number().int().min(0).nullish() }))
    .nullish(),
  networksWithMemo: z.array(z.string()).default([]),
  hasMemo: z.boolean().nullish(),
  fixedOnly: networkFlag.default(false),
  variableOnly: networkFlag.default(false),
  depositVariableOnly: networkFlag.default(false),
  settleVariableOnly: networkFlag.default(false),
  depositOffline: networkFlag.default(false),
  settleOffline: networkFlag.default(false),
})

export const quoteSchema = z.looseObject({
  id: text,
  createdAt: optionalText,
  depositCoin: text,
  depositNetwork: text,
  settleCoin: text,
  settleNetwork: text,
  expiresAt: text,
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
  status: text,
  issue: optionalText,
})

export const shiftSchema = z.looseObject({
  id: text,
  createdAt: text,
  updatedAt: optionalText,
  type: text,
  status: text,
  depositCoin: text,
  depositNetwork: text,
  settleCoin: text,
  settleNetwork: text,
  depositAddress: optionalText,
  depositMemo: optionalText,
  settleAddress: text,
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
  deposits: z.array(shiftDepositSchema).nullish(),
})

export const pairRateSchema = z.looseObject({
  min: decimalString,
  max: decimalString,
  rate: decimalString,
  depositCoin: text,
  depositNetwork: text,
  settleCoin: text,
  settleNetwork: text,
})

export const permissionsSchema = z.looseObject({ createShift: z.boolean() })

export const accountSchema = z.looseObject({ id: text, secret: text })

export const checkoutSchema = z.looseObject({
  id: text,
  settleCoin: text,
  settleNetwork: text,
  settleAmount: decimalString,
  settleAddress: text,
  settleMemo: optionalText,
  affiliateId: text,
  successUrl: text,
  cancelUrl: text,
  createdAt: text,
  updatedAt: text,
  orders: z
    .array(
      z.looseObject({
        id: text,
        deposits: z.array(z.looseObject({ depositHash: optionalText, settleHash: optionalText })).default([]),
      })
    )
    .nullish(),
})

export const hookSchema = z.looseObject({
  id: text,
  createdAt: text,
  updatedAt: text,
  targetUrl: text,
  enabled: z.boolean(),
})

export const errorBodySchema = z.looseObject({
  error: z.looseObject({
    message: z.string(),
    code: z.string().nullish(),
    orderId: z.string().nullish(),
    depositRangeMin: z.union([z.string(), z.number()]).nullish(),
    depositRangeMax: z.union([z.string(), z.number()]).nullish(),
  }),
})

const bounded = z.string().max(256)

/** A checkout notification (spec section 6). Bounded: anyone who learns the URL can post to it. */
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
    status: bounded,
    txid: bounded.nullish(),
  }),
})

export type Coin = z.output<typeof coinSchema>
export type Quote = z.output<typeof quoteSchema>
export type ShiftDeposit = z.output<typeof shiftDepositSchema>
export type PairRate = z.output<typeof pairRateSchema>
export type Checkout = z.output<typeof checkoutSchema>
export type Hook = z.output<typeof hookSchema>
export type WebhookNotification = z.output<typeof webhookNotificationSchema>

/** The statuses service-behaviour.md lists; any other value is kept as it is. */
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
export type ShiftStatus = KnownShiftStatus | (string & {})
export type Shift = z.output<typeof shiftSchema>
