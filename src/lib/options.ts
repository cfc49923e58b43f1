import { z } from "@medusajs/framework/zod"
import { languageSchema, MESSAGE_KEYS, placeholders, SHIPPED_LANGUAGES } from "./i18n"

const decimalPercent = (max: number) =>
  z
    .union([z.string(), z.number()])
    .transform((value) => String(value))
    .refine((value) => /^\d+(\.\d+)?$/.test(value) && Number(value) <= max, {
      message: `must be a decimal number from 0 to ${max}`,
    })

const decimalAmount = z
  .union([z.string(), z.number()])
  .transform((value) => String(value))
  .refine((value) => /^\d{1,15}(\.\d{1,18})?$/.test(value), { message: "must be a decimal amount, e.g. 10 or 2.5" })

const settlementSchema = z.object({
  coin: z.string().min(1),
  network: z.string().min(1),
  address: z.string().min(1),
  memo: z.string().min(1).optional(),
})

/**
 * The store's own shopper texts, per language: overrides of shipped ones, or a language of its own (English
 * fills its gaps). Keys are the catalogue's (an unknown one fails boot, named); a text may use only the
 * `{placeholders}` its English one has.
 */
const messagesSchema = z
  .record(
    languageSchema,
    z.partialRecord(z.enum(MESSAGE_KEYS), z.string().trim().min(1).max(2000), {
      error: (issue) => (issue.code === "invalid_key" ? "is not a message key (see src/lib/i18n/messages/en.ts)" : undefined),
    }),
    { error: (issue) => (issue.code === "invalid_key" ? "is not a language code such as de or it (lower case)" : undefined) }
  )
  .superRefine((languages, ctx) => {
    for (const [language, texts] of Object.entries(languages)) {
      for (const [key, value] of Object.entries(texts) as Array<[keyof typeof SHIPPED_LANGUAGES.en, string]>) {
        const known = placeholders(SHIPPED_LANGUAGES.en[key])
        const unknown = placeholders(value).filter((name) => !known.includes(name))
        if (unknown.length) {
          ctx.addIssue({ code: "custom", path: [language, key], message: `uses {${unknown.join("}, {")}}, which this message does not have` })
        }
      }
    }
  })

const seconds = z.number().int().positive()
const cadenceSeconds = z.number().min(0)
const perMinute = z.number().int().positive()

/**
 * How many payment sessions (each a quote and a shift at the service) and service reads the store
 * routes let through per minute, per cart, per shopper IP and for the whole store, and how long reads
 * are cached. The service allows a store about 5 shift creations and 20 quotes a minute (per calling
 * IP, shared by every shopper): the defaults keep the store below that, leave one shift a minute for
 * refunds, and let no single shopper take more than half of it.
 */
export const admissionSchema = z.object({
  /** Off: no throttles (reads are still cached). */
  enabled: z.boolean().default(true),
  /** Payment sessions (Medusa's session route and the requote route) per cart. */
  sessionsPerCartPerMinute: perMinute.default(3),
  /** Payment sessions per shopper IP, whatever the cart. */
  sessionsPerIpPerMinute: perMinute.default(2),
  /** Payment sessions of the whole store. */
  sessionsPerStorePerMinute: perMinute.default(4),
  /**
   * A shopper IP that started a payment session in the last this many minutes, or asked again before a
   * refusal's Retry-After ran out (three times), is a repeat shopper.
   */
  repeatShopperMinutes: z.number().int().min(1).max(1440).default(15),
  /**
   * How many of the store's sessions a minute repeat shoppers may take (unset: half, rounded up); the
   * rest is kept for shoppers starting their first payment, so a flood from a few IPs can't starve them.
   */
  repeatShopperStoreShare: perMinute.optional(),
  /** Estimate requests per cart. */
  readsPerCartPerMinute: perMinute.default(20),
  /** Estimate and permissions requests per shopper IP. */
  readsPerIpPerMinute: perMinute.default(30),
  /** Estimate and permissions requests of the whole store. */
  readsPerStorePerMinute: perMinute.default(600),
  /** How long a pair's rate (an estimate's reads) is reused; 0: only requests in flight at once share a read. */
  estimateCacheSeconds: z.number().int().min(0).max(300).default(30),
  /** How long the service's answer on whether an IP may pay is reused. */
  permissionsCacheSeconds: z.number().int().min(0).max(3600).default(60),
})

export const optionsSchema = z
  .object({
    baseUrl: z.url(),
    graphqlUrl: z.url(),
    payUrl: z.url(),
    accountId: z.string().min(1),
    privateKey: z.string().min(1),
    secretHeader: z.string().min(1).default("x-service-secret"),
    /** What the merchant receives, per store currency (lower-case ISO code). */
    settlement: z
      .record(z.string().regex(/^[a-z]{3}$/, "currency codes are lower-case ISO 4217, e.g. usd"), settlementSchema)
      .refine((value) => Object.keys(value).length > 0, { message: "needs at least one currency" }),
    mode: z.enum(["shift", "checkout"]).default("shift"),
    /**
     * The account's commission in percent, 0 to 2, for pair rates (the storefront's estimates). Unset, pairs
     * are priced with the service's default, as quotes and shifts always are (they take no commission).
     */
    commissionRate: decimalPercent(2).optional(),
    authorizeOn: z.enum(["detected", "confirmed", "settled"]).default("confirmed"),
    placeOrder: z.enum(["after_payment", "before_payment"]).default("after_payment"),
    /**
     * Who bears the swap's fees on a refund. `store`: the store deposits enough for the shopper to get back
     * the refunded share of the coin they paid. `shopper`: the store deposits the refunded value in its
     * settlement coin, and the shopper gets that less the fees.
     */
    refundFees: z.enum(["store", "shopper"]).default("store"),
    /**
     * How far (percent) a refund shift may ask the store to deposit above the refunded value before the
     * merchant approves it (and beyond `refundCostAllowance`): with `refundFees: "store"` the shopper gets back
     * the coin they paid in kind, so the swap's fees and a coin that rose since cost more than the refund.
     */
    refundCostLimitPercent: decimalPercent(1000).default("25"),
    /**
     * What a refund may cost above its value in any case, in the store currency: a network fee of a few units
     * would put most small refunds above the percent limit.
     */
    refundCostAllowance: decimalAmount.default("10"),
    /**
     * Money settled above the amount due by more than `overpaymentTolerancePercent`: flagged `overpaid`
     * with the excess, and kept, or refunded to the shopper through a refund shift.
     */
    overpayment: z.enum(["keep", "refund"]).default("keep"),
    overpaymentTolerancePercent: decimalPercent(100).default("1"),
    /** How far (percent) a variable shift may settle below the amount due and still count as paid. */
    underpaymentTolerancePercent: decimalPercent(100).default("0"),
    /**
     * A variable payment that settled short waits `waitMinutes` (counted again from each top-up) for the
     * shopper to pay the rest; then it is refunded to the shopper (`refund`), or held for the merchant
     * to accept as paid or refund (`hold`).
     */
    underpayment: z
      .object({
        waitMinutes: z.number().int().min(0).default(60),
        then: z.enum(["hold", "refund"]).default("hold"),
      })
      .prefault({}),
    /**
     * The service lets an account hold about 5 open variable-rate shifts (403 "too many open orders" beyond).
     * Payments may open `limit - reservedForRefunds` of them, so that refunds in coins paid back at a
     * variable rate can always be made; a waiting variable shift whose payment page nobody looked at (nor
     * asked for the session again, nor tried to complete the cart) for `idleMinutes`, with no deposit and no
     * order placed, is cancelled as soon as the service allows. A day by default: a shopper may pay from an
     * exchange hours later, and a storefront that never shows the plugin's payment view counts from creation.
     */
    variablePool: z
      .object({
        limit: z.number().int().min(1).default(5),
        reservedForRefunds: z.number().int().min(0).default(1),
        idleMinutes: z.number().int().min(6).default(1440),
        perShopper: z.number().int().min(1).default(1),
      })
      .prefault({}),
    /** Redirects of the deprecated hosted checkout. */
    checkout: z.object({ successUrl: z.url(), cancelUrl: z.url() }).optional(),
    /** The store's public backend URL, for registering the webhook (`/hooks/crypto-swap/{token}`). */
    backendUrl: z.url().optional(),
    /** Hook id from `createHook`; when set, notifications naming another hook are ignored. */
    webhookHookId: z.string().min(1).optional(),
    requestTimeoutMs: z.number().int().positive().default(10_000),
    maxRetries: z.number().int().min(0).max(5).default(2),
    catalogueTtlSeconds: seconds.default(600),
    /**
     * Messages to the shopper through the store's Notification Module: payment received, refund address
     * needed, refunded, payment expired. The store's provider for `channel` sends them; `templates` names
     * the store's own template for a message instead of `crypto-swap.<message>`.
     */
    notifications: z
      .object({
        enabled: z.boolean().default(true),
        channel: z.string().min(1).default("email"),
        templates: z.partialRecord(z.enum(["payment_received", "payment_short", "refund_address_needed", "refunded", "payment_expired"]), z.string().min(1)).prefault({}),
        /**
         * The storefront's payment page of a cart, `{cart_id}` and `{payment_session_id}` filled in: the
         * refund-address message links to it. Without it the message says where to go.
         */
        paymentPageUrl: z
          .url({ protocol: /^https?$/ })
          .refine((url) => url.includes("{cart_id}") || url.includes("{payment_session_id}"), "must contain {cart_id} or {payment_session_id}")
          .optional(),
      })
      .prefault({}),
    /** How reconciliation follows this provider's shifts. */
    reconcile: z
      .object({
        /** Poll cadence while a deposit is on its way (pending, processing, settling). */
        inFlightSeconds: cadenceSeconds.default(5),
        /** Poll cadence while waiting for a deposit, after the first `freshWaitingMinutes`. */
        waitingSeconds: cadenceSeconds.default(30),
        /**
         * A shift waits this long at the in-flight cadence first: shoppers pay in the minutes after they see
         * the address, and one who paid and closed the page should not wait a slow poll for their order.
         */
        freshWaitingMinutes: z.number().min(0).max(1440).default(15),
        reviewSeconds: cadenceSeconds.default(300),
        /**
         * Poll cadence of a variable shift whose payment is over while its address still takes deposits (until
         * it expires, days later): a shopper who pays it again is given the money back (`overpayment: "refund"`)
         * or the merchant sees it (`overpaid`).
         */
        openAddressSeconds: cadenceSeconds.default(3600),
        /** Poll cadence while a refund is queued or being sent. */
        refundSeconds: cadenceSeconds.default(60),
        /** Longest wait between retries after failed reads or actions. */
        maxBackoffSeconds: cadenceSeconds.default(600),
        /** Shifts synced at once. */
        concurrency: z.number().int().min(1).max(64).default(8),
        /** Upstream reads per minute the reconciliation may spend (the service limits by IP). */
        maxReadsPerMinute: z.number().int().positive().default(600),
        /**
         * Read due shifts 50 to a request with the service's bulk read (`GET /v2/shifts?ids=`: the real service
         * has it, its spec does not list it) instead of one by one. A service that refuses it is read one by one.
         */
        bulkRead: z.boolean().default(true),
        /**
         * Attempts at one action of a shift (placing the order, capture, a cancel, passing on a refund
         * address) before it stops retrying and waits in `attention` for an admin. Retries back off like
         * failed reads; with the default cadence, 10 attempts span about 40 minutes.
         */
        maxActionAttempts: z.number().int().min(1).max(100).default(10),
        /** Cancel an order placed before payment when its shift expires unpaid, releasing its stock. */
        cancelUnpaidOrders: z.boolean().default(true),
      })
      .prefault({}),
    /** Admission control of the store routes that spend the service's budget (see `admissionSchema`). */
    admission: admissionSchema.prefault({}),
    messages: messagesSchema.optional(),
  })
  .superRefine((options, ctx) => {
    if (options.mode === "checkout" && !options.checkout) {
      ctx.addIssue({ code: "custom", path: ["checkout"], message: "successUrl and cancelUrl are required in checkout mode" })
    }
  })

export type CryptoSwapOptionsInput = z.input<typeof optionsSchema>
export type CryptoSwapOptions = z.output<typeof optionsSchema>
export type Settlement = z.output<typeof settlementSchema>
export type AdmissionOptions = z.output<typeof admissionSchema>

/** Parses the provider options; a wrong config fails boot with a message naming the key (never its value). */
export function parseOptions(options: unknown): CryptoSwapOptions {
  const result = optionsSchema.safeParse(options)
  if (!result.success) {
    const problems = result.error.issues.map((issue) => `\`${issue.path.join(".") || "(options)"}\` ${issue.message}`)
    throw new Error(`crypto-swap payment provider: invalid options: ${problems.join("; ")}`)
  }
  return result.data
}
