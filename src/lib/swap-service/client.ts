import { Agent, request, type Dispatcher } from "undici"
import { setTimeout as sleep } from "node:timers/promises"
import type { z } from "@medusajs/framework/zod"
import { parseRetryAfter, SwapServiceError } from "./errors"
import type { RequestMetric } from "./metrics"
import { assertQuoteUsable, assertSettleMemoAllowed, toServiceCommissionRate, type CoinNetwork } from "./rules"
import {
  accountSchema,
  checkoutSchema,
  coinSchema,
  errorBodySchema,
  hookSchema,
  pairRateSchema,
  permissionsSchema,
  quoteSchema,
  shiftSchema,
  type Checkout,
  type Coin,
  type Hook,
  type PairRate,
  type Quote,
  type Shift,
} from "./schemas"

export type SwapServiceClientOptions = {
  /** API base; `/v2/...` and `/create-account` are appended. */
  baseUrl: string
  graphqlUrl: string
  /** Pay page base of the hosted checkout: `${payUrl}/checkout/{id}`. */
  payUrl: string
  /** Sent as `affiliateId`. */
  accountId: string
  /** Sent in the secret header; never logged, never part of an error. */
  privateKey: string
  secretHeader?: string
  timeoutMs?: number
  /** Retries of calls that are safe to repeat. */
  maxRetries?: number
  onMetric?: (metric: RequestMetric) => void
  dispatcher?: Dispatcher
  now?: () => Date
}

/** `x-user-ip`: the end user's IP when a request is made on their behalf. */
export type RequestContext = { userIp?: string }

/** Exactly one of the two amounts, as a decimal string. */
export type QuoteRequest = {
  depositCoin: string
  depositNetwork: string
  settleCoin: string
  settleNetwork: string
} & ({ depositAmount: string; settleAmount?: never } | { settleAmount: string; depositAmount?: never })

type Refund = { refundAddress?: string; refundMemo?: string }
type Settle = { settleAddress: string; settleMemo?: string }

export type FixedShiftRequest = Settle & Refund & { quote: Quote; externalId?: string; coins?: Coin[] }
export type VariableShiftRequest = Settle &
  Refund & {
    depositCoin: string
    depositNetwork: string
    settleCoin: string
    settleNetwork: string
    externalId?: string
    coins?: Coin[]
  }
export type CheckoutRequest = {
  settleCoin: string
  settleNetwork: string
  settleAmount: string
  settleAddress: string
  settleMemo?: string
  successUrl: string
  cancelUrl: string
  coins?: Coin[]
}

type Call<T> = {
  operation: string
  method: "GET" | "POST"
  pathTemplate: string
  path?: string
  url?: string
  query?: Record<string, string | undefined>
  body?: unknown
  /** Attach the secret header. */
  secret?: boolean
  userIp?: string
  /** safe: retry any retryable failure; rate-limit: retry only a 429 (nothing was created). */
  retry: "safe" | "rate-limit"
  schema?: z.ZodType<T>
}

const MAX_RETRY_WAIT_MS = 5000

/** Removes undefined fields so optional request fields are omitted, not sent as null. */
function compact<T extends Record<string, unknown>>(value: T): T {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as T
}

function graphqlString(value: string): string {
  return JSON.stringify(value)
}

/**
 * The one place that speaks HTTP to the swap service: typed requests, zod-parsed responses, one error
 * type, per-request timeouts over a shared keep-alive pool, retries only where a repeat is safe.
 */
export class SwapServiceClient {
  private readonly dispatcher: Dispatcher
  private readonly ownsDispatcher: boolean
  private readonly secretHeader: string
  private readonly timeoutMs: number
  private readonly maxRetries: number

  constructor(private readonly options: SwapServiceClientOptions) {
    this.ownsDispatcher = !options.dispatcher
    this.dispatcher = options.dispatcher ?? new Agent({ keepAliveTimeout: 10_000, connections: 64 })
    this.secretHeader = (options.secretHeader ?? "x-service-secret").toLowerCase()
    this.timeoutMs = options.timeoutMs ?? 10_000
    this.maxRetries = options.maxRetries ?? 2
  }

  private now(): Date {
    return this.options.now?.() ?? new Date()
  }

  async getCoins(): Promise<Coin[]> {
    return this.call({ operation: "getCoins", method: "GET", pathTemplate: "/v2/coins", retry: "safe", schema: coinSchema.array() })
  }

  async getPermissions(userIp: string): Promise<{ createShift: boolean }> {
    return this.call({
      operation: "getPermissions",
      method: "GET",
      pathTemplate: "/v2/permissions",
      userIp,
      retry: "safe",
      schema: permissionsSchema,
    })
  }

  async getPair(from: CoinNetwork, to: CoinNetwork, opts: { amount?: string; commissionRatePercent?: string } = {}): Promise<PairRate> {
    return this.call({
      operation: "getPair",
      method: "GET",
      pathTemplate: "/v2/pair/:from/:to",
      path: `/v2/pair/${encodeURIComponent(pairId(from))}/${encodeURIComponent(pairId(to))}`,
      query: this.pairQuery({ amount: opts.amount, commissionRatePercent: opts.commissionRatePercent }),
      secret: true,
      retry: "safe",
      schema: pairRateSchema,
    })
  }

  async getPairs(pairs: Array<{ from: CoinNetwork; to: CoinNetwork }>, opts: { commissionRatePercent?: string } = {}): Promise<PairRate[]> {
    return this.call({
      operation: "getPairs",
      method: "GET",
      pathTemplate: "/v2/pairs",
      query: { ...this.pairQuery(opts), pairs: pairs.map(({ from, to }) => `${pairId(from)}_${pairId(to)}`).join(",") },
      secret: true,
      retry: "safe",
      schema: pairRateSchema.array(),
    })
  }

  async createQuote(quote: QuoteRequest, ctx: RequestContext = {}): Promise<Quote> {
    return this.call({
      operation: "createQuote",
      method: "POST",
      pathTemplate: "/v2/quotes",
      body: {
        affiliateId: this.options.accountId,
        depositCoin: quote.depositCoin,
        depositNetwork: quote.depositNetwork,
        settleCoin: quote.settleCoin,
        settleNetwork: quote.settleNetwork,
        depositAmount: quote.depositAmount ?? null,
        settleAmount: quote.settleAmount ?? null,
      },
      secret: true,
      userIp: ctx.userIp,
      // A quote has no side effect: asking again is harmless.
      retry: "safe",
      schema: quoteSchema,
    })
  }

  /**
   * Creates a fixed shift from a quote. A retry after a lost answer meets "Quote has already been
   * accepted" with the shift's id: that shift is recovered instead of making a second one.
   */
  async createFixedShift(req: FixedShiftRequest, ctx: RequestContext = {}): Promise<Shift> {
    assertQuoteUsable(req.quote, this.now())
    if (req.coins) assertSettleMemoAllowed(req.coins, { coin: req.quote.settleCoin, network: req.quote.settleNetwork }, req.settleMemo)
    try {
      return await this.call({
        operation: "createFixedShift",
        method: "POST",
        pathTemplate: "/v2/shifts/fixed",
        body: compact({
          quoteId: req.quote.id,
          affiliateId: this.options.accountId,
          settleAddress: req.settleAddress,
          settleMemo: req.settleMemo,
          refundAddress: req.refundAddress,
          refundMemo: req.refundMemo,
          externalId: req.externalId,
        }),
        secret: true,
        userIp: ctx.userIp,
        retry: "safe",
        schema: shiftSchema,
      })
    } catch (error) {
      if (error instanceof SwapServiceError && error.orderId && /already been accepted/i.test(error.message)) {
        const existing = await this.getShift(error.orderId)
        const same = existing.quoteId === req.quote.id && (!req.externalId || existing.externalId === req.externalId)
        if (same) return existing
      }
      throw error
    }
  }

  async createVariableShift(req: VariableShiftRequest, ctx: RequestContext = {}): Promise<Shift> {
    if (req.coins) assertSettleMemoAllowed(req.coins, { coin: req.settleCoin, network: req.settleNetwork }, req.settleMemo)
    return this.call({
      operation: "createVariableShift",
      method: "POST",
      pathTemplate: "/v2/shifts/variable",
      body: compact({
        affiliateId: this.options.accountId,
        depositCoin: req.depositCoin,
        depositNetwork: req.depositNetwork,
        settleCoin: req.settleCoin,
        settleNetwork: req.settleNetwork,
        settleAddress: req.settleAddress,
        settleMemo: req.settleMemo,
        refundAddress: req.refundAddress,
        refundMemo: req.refundMemo,
        externalId: req.externalId,
      }),
      secret: true,
      userIp: ctx.userIp,
      // No way to find a variable shift again: only a 429 (nothing created) is retried.
      retry: "rate-limit",
      schema: shiftSchema,
    })
  }

  async getShift(id: string): Promise<Shift> {
    return this.call({
      operation: "getShift",
      method: "GET",
      pathTemplate: "/v2/shifts/:id",
      path: `/v2/shifts/${encodeURIComponent(id)}`,
      retry: "safe",
      schema: shiftSchema,
    })
  }

  /** The service's bulk read (`GET /v2/shifts?ids=`), in chunks; unknown ids are left out. */
  async getShifts(ids: string[]): Promise<Shift[]> {
    const chunks: string[][] = []
    for (let i = 0; i < ids.length; i += 50) chunks.push(ids.slice(i, i + 50))
    const results = await Promise.all(
      chunks.map((chunk) =>
        this.call({
          operation: "getShifts",
          method: "GET",
          pathTemplate: "/v2/shifts",
          query: { ids: chunk.join(",") },
          retry: "safe",
          schema: shiftSchema.array(),
        })
      )
    )
    return results.flat()
  }

  async setRefundAddress(shiftId: string, refund: { address: string; memo?: string }): Promise<Shift> {
    return this.call({
      operation: "setRefundAddress",
      method: "POST",
      pathTemplate: "/v2/shifts/:id/set-refund-address",
      path: `/v2/shifts/${encodeURIComponent(shiftId)}/set-refund-address`,
      body: compact({ address: refund.address, memo: refund.memo }),
      secret: true,
      retry: "rate-limit",
      schema: shiftSchema,
    })
  }

  async cancelOrder(shiftId: string): Promise<void> {
    await this.call({
      operation: "cancelOrder",
      method: "POST",
      pathTemplate: "/v2/cancel-order",
      body: { orderId: shiftId },
      secret: true,
      retry: "rate-limit",
    })
  }

  async createAccount(): Promise<{ id: string; secret: string }> {
    return this.call({
      operation: "createAccount",
      method: "POST",
      pathTemplate: "/create-account",
      body: {},
      retry: "rate-limit",
      schema: accountSchema,
    })
  }

  async createCheckout(req: CheckoutRequest, ctx: RequestContext = {}): Promise<Checkout> {
    if (req.coins) assertSettleMemoAllowed(req.coins, { coin: req.settleCoin, network: req.settleNetwork }, req.settleMemo)
    return this.call({
      operation: "createCheckout",
      method: "POST",
      pathTemplate: "/v2/checkout",
      body: compact({
        settleCoin: req.settleCoin,
        settleNetwork: req.settleNetwork,
        settleAmount: req.settleAmount,
        settleAddress: req.settleAddress,
        settleMemo: req.settleMemo,
        affiliateId: this.options.accountId,
        successUrl: req.successUrl,
        cancelUrl: req.cancelUrl,
      }),
      secret: true,
      userIp: ctx.userIp,
      retry: "rate-limit",
      schema: checkoutSchema,
    })
  }

  async getCheckout(id: string): Promise<Checkout> {
    return this.call({
      operation: "getCheckout",
      method: "GET",
      pathTemplate: "/v2/checkout/:id",
      path: `/v2/checkout/${encodeURIComponent(id)}`,
      retry: "safe",
      schema: checkoutSchema,
    })
  }

  checkoutPayUrl(checkoutId: string): string {
    return `${this.options.payUrl.replace(/\/+$/, "")}/checkout/${encodeURIComponent(checkoutId)}`
  }

  async createHook(targetUrl: string): Promise<Hook> {
    new URL(targetUrl)
    const data = await this.graphql(
      "createHook",
      `mutation { createHook(targetUrl: ${graphqlString(targetUrl)}) { id createdAt updatedAt targetUrl enabled } }`
    )
    return hookSchema.parse(data.createHook)
  }

  async deleteHook(id: string): Promise<boolean> {
    const data = await this.graphql("deleteHook", `mutation { deleteHook(id: ${graphqlString(id)}) }`)
    return data.deleteHook === true
  }

  async close(): Promise<void> {
    if (this.ownsDispatcher) await this.dispatcher.close()
  }

  private pairQuery(opts: { amount?: string; commissionRatePercent?: string }) {
    return {
      affiliateId: this.options.accountId,
      amount: opts.amount,
      commissionRate: opts.commissionRatePercent === undefined ? undefined : toServiceCommissionRate(opts.commissionRatePercent),
    }
  }

  /** GraphQL errors arrive inside an HTTP 200: they are errors all the same. */
  private async graphql(operation: string, query: string): Promise<Record<string, unknown>> {
    const response = await this.call<{ data?: Record<string, unknown> | null; errors?: Array<{ message?: string }> }>({
      operation,
      method: "POST",
      pathTemplate: "/graphql",
      url: this.options.graphqlUrl,
      body: { query },
      secret: true,
      retry: "rate-limit",
    })
    if (response?.errors?.length || !response?.data) {
      const message = response?.errors?.map((e) => e.message ?? "GraphQL error").join("; ") || "Empty GraphQL answer"
      throw new SwapServiceError({ operation, message, status: 200, code: "GRAPHQL_ERROR" })
    }
    return response.data
  }

  private async call<T>(call: Call<T>): Promise<T> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.attempt(call, attempt)
      } catch (error) {
        const failure = error as SwapServiceError
        const repeatable = call.retry === "safe" ? failure.retryable : failure.status === 429
        const wait = failure.retryAfterMs ?? 100 * 2 ** (attempt - 1)
        if (!repeatable || attempt > this.maxRetries || wait > MAX_RETRY_WAIT_MS) throw failure
        await sleep(wait)
      }
    }
  }

  private async attempt<T>(call: Call<T>, attempt: number): Promise<T> {
    const url = new URL(call.url ?? `${this.options.baseUrl.replace(/\/+$/, "")}${call.path ?? call.pathTemplate}`)
    for (const [key, value] of Object.entries(call.query ?? {})) if (value !== undefined) url.searchParams.set(key, value)
    const headers: Record<string, string> = { accept: "application/json" }
    if (call.body !== undefined) headers["content-type"] = "application/json"
    if (call.secret) headers[this.secretHeader] = this.options.privateKey
    if (call.userIp) headers["x-user-ip"] = call.userIp

    const started = performance.now()
    const report = (status: RequestMetric["status"], errorCode?: string) =>
      this.options.onMetric?.({
        method: call.method,
        pathTemplate: call.pathTemplate,
        status,
        durationMs: performance.now() - started,
        attempt,
        errorCode,
      })

    let statusCode: number
    let text: string
    let retryAfter: string | string[] | undefined
    try {
      const response = await request(url, {
        dispatcher: this.dispatcher,
        method: call.method,
        headers,
        body: call.body === undefined ? undefined : JSON.stringify(call.body),
        headersTimeout: this.timeoutMs,
        bodyTimeout: this.timeoutMs,
        signal: AbortSignal.timeout(this.timeoutMs),
      })
      statusCode = response.statusCode
      retryAfter = response.headers["retry-after"]
      text = await response.body.text()
    } catch (error) {
      // Built anew: undici's errors may hold the request, and with it the secret header.
      const timedOut = /timeout|aborted/i.test(`${(error as Error).name} ${(error as { code?: string }).code ?? ""}`)
      report(timedOut ? "timeout" : "network_error", (error as { code?: string }).code)
      throw new SwapServiceError({
        operation: call.operation,
        message: timedOut ? "The swap service did not answer in time" : "The swap service could not be reached",
        code: timedOut ? "TIMEOUT" : "NETWORK_ERROR",
        networkFailure: true,
      })
    }
    report(statusCode)

    if (statusCode >= 400) throw this.errorFrom(call.operation, statusCode, text, retryAfter)
    if (!call.schema) {
      if (!text) return undefined as T
      return this.parseJson(call.operation, statusCode, text) as T
    }
    const parsed = call.schema.safeParse(this.parseJson(call.operation, statusCode, text))
    if (!parsed.success) throw this.malformed(call.operation, statusCode, "an unexpected answer")
    return parsed.data
  }

  private parseJson(operation: string, status: number, text: string): unknown {
    try {
      return JSON.parse(text)
    } catch {
      throw this.malformed(operation, status, "an answer that is not JSON")
    }
  }

  private malformed(operation: string, status: number, what: string): SwapServiceError {
    return new SwapServiceError({
      operation,
      message: `The swap service sent ${what}`,
      status,
      code: "MALFORMED_RESPONSE",
      networkFailure: true,
    })
  }

  private errorFrom(operation: string, status: number, text: string, retryAfter: string | string[] | undefined): SwapServiceError {
    let body: z.output<typeof errorBodySchema> | undefined
    try {
      const parsed = errorBodySchema.safeParse(JSON.parse(text))
      if (parsed.success) body = parsed.data
    } catch {
      // Not JSON: a proxy's page, most likely.
    }
    const range = (value: string | number | null | undefined) => (value === null || value === undefined ? undefined : String(value))
    return new SwapServiceError({
      operation,
      status,
      message: body?.error.message ?? `The swap service answered HTTP ${status}`,
      code: body?.error.code ?? undefined,
      orderId: body?.error.orderId ?? undefined,
      depositRangeMin: range(body?.error.depositRangeMin),
      depositRangeMax: range(body?.error.depositRangeMax),
      retryAfterMs: status === 429 ? parseRetryAfter(retryAfter) : undefined,
    })
  }
}

function pairId({ coin, network }: CoinNetwork): string {
  return `${coin.toLowerCase()}-${network.toLowerCase()}`
}
