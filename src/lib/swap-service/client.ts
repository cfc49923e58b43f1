import type { Dispatcher } from "undici"
import { z } from "@medusajs/framework/zod"
import { invalidRequest, SwapServiceError } from "./errors"
import type { RequestMetric } from "./metrics"
import {
  assertDecimalAmount,
  assertQuoteUsable,
  assertSettleMemoAllowed,
  toServiceCommissionRate,
  type CoinNetwork,
} from "./rules"
import {
  accountSchema,
  checkoutSchema,
  coinSchema,
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
import { Transport, type Call, type CallLimits } from "./transport"

export type SwapServiceClientOptions = {
  /** API base; `/v2/...` and `/create-account` are appended. */
  baseUrl: string
  graphqlUrl: string
  /** Pay page base of the hosted checkout: `${payUrl}/checkout/{id}`. */
  payUrl: string
  /** Sent as `affiliateId`. */
  accountId: string
  /** Sent in the secret header only; never kept where logs or errors could show it. */
  privateKey: string
  /** Default "x-service-secret"; deployments name it differently. */
  secretHeader?: string
  /** Per request, connection to last byte. Default 10 000. */
  timeoutMs?: number
  /** Retries of calls that are safe to repeat. Default 2. */
  maxRetries?: number
  /** First backoff between retries, doubled each time (capped at 5 s). Default 250. */
  retryBaseDelayMs?: number
  /** Called for every attempt of every call. */
  onMetric?: (metric: RequestMetric) => void
  /** Replaces the client's own keep-alive pool (which `close()` would end). */
  dispatcher?: Dispatcher
  /** The clock quote expiry is checked against. */
  now?: () => Date
}

/** The end user a request is made for: becomes the `x-user-ip` header. */
export type RequestContext = { userIp?: string }

export type CoinPair = { depositCoin: string; depositNetwork: string; settleCoin: string; settleNetwork: string }

/** Exactly one of the two amounts, as a decimal string. */
export type QuoteRequest = CoinPair &
  ({ depositAmount: string; settleAmount?: undefined } | { settleAmount: string; depositAmount?: undefined })

type Destination = {
  settleAddress: string
  settleMemo?: string
  refundAddress?: string
  refundMemo?: string
  /** Echoed back on the shift: a natural place for the payment session id. */
  externalId?: string
  /** The coin catalogue: when given, a settle memo is refused before sending unless the settle network takes one. */
  coins?: Coin[]
}

export type FixedShiftRequest = Destination & { quote: Quote }
export type VariableShiftRequest = Destination & CoinPair

export type CheckoutRequest = {
  settleCoin: string
  settleNetwork: string
  settleAmount: string
  settleAddress: string
  settleMemo?: string
  successUrl: string
  cancelUrl: string
  /** As for shifts: enables the settle memo check before sending. */
  coins?: Coin[]
}

/** A call as the endpoint methods describe it; the URL is built from the path (default: the template) and query. */
type Endpoint<T> = Omit<Call<T>, "method" | "url"> & { path?: string; query?: Record<string, string | undefined> }

/** Bulk reads are split so the query string stays short. */
const SHIFT_IDS_PER_READ = 50

const HOOK_FIELDS = "id createdAt updatedAt targetUrl enabled"

const pairId = ({ coin, network }: CoinNetwork) => `${coin}-${network}`.toLowerCase()

/** Leaves absent optional fields out of a request body instead of sending them as null. */
function present<T extends Record<string, unknown>>(fields: T): Partial<T> {
  return Object.fromEntries(Object.entries(fields).filter(([, value]) => value !== undefined && value !== null)) as Partial<T>
}

/** Only the pair's fields: requests carry more (the catalogue) that must not be sent. */
function coinPairFields(req: CoinPair): CoinPair {
  return { depositCoin: req.depositCoin, depositNetwork: req.depositNetwork, settleCoin: req.settleCoin, settleNetwork: req.settleNetwork }
}

/** The settle, refund and external-id fields both kinds of shift take. */
function destinationFields(req: Destination) {
  return {
    settleAddress: req.settleAddress,
    ...present({ settleMemo: req.settleMemo, refundAddress: req.refundAddress, refundMemo: req.refundMemo, externalId: req.externalId }),
  }
}

/**
 * The plugin's one client of the swap service (spec v2): typed requests, zod-checked answers, one
 * error type (`SwapServiceError`), the service's rules checked before sending, and retries only
 * where repeating cannot act twice.
 */
export class SwapServiceClient {
  private readonly transport: Transport
  private readonly baseUrl: string
  private readonly graphqlUrl: string
  private readonly payUrl: string
  private readonly accountId: string
  private readonly now: () => Date

  constructor(options: SwapServiceClientOptions) {
    this.baseUrl = options.baseUrl.replace(/\/+$/, "")
    this.graphqlUrl = options.graphqlUrl
    this.payUrl = options.payUrl.replace(/\/+$/, "")
    this.accountId = options.accountId
    this.now = options.now ?? (() => new Date())
    this.transport = new Transport(options.privateKey, {
      secretHeader: (options.secretHeader ?? "x-service-secret").toLowerCase(),
      timeoutMs: options.timeoutMs ?? 10_000,
      maxRetries: options.maxRetries ?? 2,
      retryBaseDelayMs: options.retryBaseDelayMs ?? 250,
      onMetric: options.onMetric,
      dispatcher: options.dispatcher,
    })
  }

  async getCoins(): Promise<Coin[]> {
    return this.get({ operation: "getCoins", pathTemplate: "/v2/coins", schema: z.array(coinSchema) })
  }

  /** Whether the end user at `userIp` may create shifts (the service refuses some regions). */
  async getPermissions(userIp: string): Promise<{ createShift: boolean }> {
    return this.get({ operation: "getPermissions", pathTemplate: "/v2/permissions", userIp, schema: permissionsSchema })
  }

  async getPair(from: CoinNetwork, to: CoinNetwork, opts: { amount?: string; commissionRatePercent?: string } = {}): Promise<PairRate> {
    if (opts.amount !== undefined) assertDecimalAmount("getPair", "amount", opts.amount)
    return this.get({
      operation: "getPair",
      pathTemplate: "/v2/pair/:from/:to",
      path: `/v2/pair/${encodeURIComponent(pairId(from))}/${encodeURIComponent(pairId(to))}`,
      query: this.pairQuery(opts.commissionRatePercent, opts.amount),
      secret: true,
      schema: pairRateSchema,
    })
  }

  /**
   * Rates of several pairs in one request. The service takes a list of coins and answers every pair
   * among them, so the answer is narrowed to the pairs asked for, in their order; a pair the service
   * does not offer is left out.
   */
  async getPairs(pairs: Array<{ from: CoinNetwork; to: CoinNetwork }>, opts: { commissionRatePercent?: string } = {}): Promise<PairRate[]> {
    if (pairs.length === 0) return []
    const assets = [...new Set(pairs.flatMap(({ from, to }) => [pairId(from), pairId(to)]))]
    const rates = await this.get({
      operation: "getPairs",
      pathTemplate: "/v2/pairs",
      query: { ...this.pairQuery(opts.commissionRatePercent), pairs: assets.join(",") },
      secret: true,
      schema: z.array(pairRateSchema),
    })
    const byPair = new Map(
      rates.map((rate) => [
        `${pairId({ coin: rate.depositCoin, network: rate.depositNetwork })}>${pairId({ coin: rate.settleCoin, network: rate.settleNetwork })}`,
        rate,
      ])
    )
    return pairs.flatMap(({ from, to }) => byPair.get(`${pairId(from)}>${pairId(to)}`) ?? [])
  }

  /** A quote has no side effect upstream, so a failed one is simply asked again. */
  async createQuote(req: QuoteRequest, ctx: RequestContext = {}): Promise<Quote> {
    const { depositAmount, settleAmount } = req
    if ((depositAmount === undefined) === (settleAmount === undefined)) {
      throw invalidRequest("createQuote", "A quote takes exactly one of depositAmount and settleAmount")
    }
    if (depositAmount !== undefined) assertDecimalAmount("createQuote", "depositAmount", depositAmount)
    if (settleAmount !== undefined) assertDecimalAmount("createQuote", "settleAmount", settleAmount)
    return this.create(ctx, {
      operation: "createQuote",
      pathTemplate: "/v2/quotes",
      body: {
        affiliateId: this.accountId,
        ...coinPairFields(req),
        // The spec's example sends the unused amount as null.
        depositAmount: depositAmount ?? null,
        settleAmount: settleAmount ?? null,
      },
      repeat: "safe",
      schema: quoteSchema,
    })
  }

  /**
   * A fixed shift from an unexpired quote. Retried after retryable failures because a repeat cannot
   * make a second shift: the quote is single-use, and the service's "Quote has already been
   * accepted" names the shift the lost attempt made, which is returned once it is checked to be ours.
   */
  async createFixedShift(req: FixedShiftRequest, ctx: RequestContext = {}): Promise<Shift> {
    assertQuoteUsable(req.quote, this.now())
    if (req.coins) assertSettleMemoAllowed(req.coins, { coin: req.quote.settleCoin, network: req.quote.settleNetwork }, req.settleMemo)
    try {
      return await this.create(ctx, {
        operation: "createFixedShift",
        pathTemplate: "/v2/shifts/fixed",
        body: {
          quoteId: req.quote.id,
          affiliateId: this.accountId,
          ...destinationFields(req),
        },
        repeat: "recoverable",
        schema: shiftSchema,
      })
    } catch (error) {
      const recovered = await this.acceptedShift(error, req)
      if (recovered) return recovered
      throw error
    }
  }

  /** Not retried except after a 429: a variable shift made by a lost attempt could not be found again. */
  async createVariableShift(req: VariableShiftRequest, ctx: RequestContext = {}): Promise<Shift> {
    if (req.coins) assertSettleMemoAllowed(req.coins, { coin: req.settleCoin, network: req.settleNetwork }, req.settleMemo)
    return this.create(ctx, {
      operation: "createVariableShift",
      pathTemplate: "/v2/shifts/variable",
      body: {
        affiliateId: this.accountId,
        ...coinPairFields(req),
        ...destinationFields(req),
      },
      repeat: "unsafe",
      schema: shiftSchema,
    })
  }

  async getShift(id: string, limits?: CallLimits): Promise<Shift> {
    return this.get({ operation: "getShift", pathTemplate: "/v2/shifts/:id", path: `/v2/shifts/${encodeURIComponent(id)}`, schema: shiftSchema, limits })
  }

  /**
   * The service's bulk read (`GET /v2/shifts?ids=`), a chunk at a time; ids it does not know are left out,
   * and so is a shift the answer describes in a way `getShift` would refuse: one odd shift does not cost
   * the read of the 49 others (its own read reports what is wrong with it).
   */
  async getShifts(ids: string[]): Promise<Shift[]> {
    const shifts: Shift[] = []
    for (let start = 0; start < ids.length; start += SHIFT_IDS_PER_READ) {
      const chunk = ids.slice(start, start + SHIFT_IDS_PER_READ)
      const answers = await this.get({ operation: "getShifts", pathTemplate: "/v2/shifts", query: { ids: chunk.join(",") }, schema: z.array(z.unknown()) })
      for (const answer of answers) {
        const shift = shiftSchema.safeParse(answer)
        if (shift.success) shifts.push(shift.data)
      }
    }
    return shifts
  }

  /** Only while the shift is in `refund`, and only once: the service will not overwrite an address. */
  async setRefundAddress(shiftId: string, refund: { address: string; memo?: string }): Promise<Shift> {
    return this.post({
      operation: "setRefundAddress",
      pathTemplate: "/v2/shifts/:id/set-refund-address",
      path: `/v2/shifts/${encodeURIComponent(shiftId)}/set-refund-address`,
      body: present({ address: refund.address, memo: refund.memo }),
      secret: true,
      repeat: "unsafe",
      schema: shiftSchema,
    })
  }

  /** Expires a waiting shift; the service accepts it only some minutes after creation. */
  async cancelOrder(shiftId: string): Promise<void> {
    await this.post({
      operation: "cancelOrder",
      pathTemplate: "/v2/cancel-order",
      body: { orderId: shiftId },
      secret: true,
      repeat: "unsafe",
      schema: z.unknown(),
    })
  }

  /** A new account; no credentials needed. */
  async createAccount(): Promise<{ id: string; secret: string }> {
    return this.post({
      operation: "createAccount",
      pathTemplate: "/create-account",
      body: {},
      repeat: "unsafe",
      schema: accountSchema,
    })
  }

  /** Deprecated by the service, still served: the payer picks any coin on the service's pay page. */
  async createCheckout(req: CheckoutRequest, ctx: RequestContext = {}): Promise<Checkout> {
    assertDecimalAmount("createCheckout", "settleAmount", req.settleAmount)
    if (req.coins) assertSettleMemoAllowed(req.coins, { coin: req.settleCoin, network: req.settleNetwork }, req.settleMemo)
    return this.create(ctx, {
      operation: "createCheckout",
      pathTemplate: "/v2/checkout",
      body: {
        settleCoin: req.settleCoin,
        settleNetwork: req.settleNetwork,
        settleAmount: req.settleAmount,
        settleAddress: req.settleAddress,
        affiliateId: this.accountId,
        successUrl: req.successUrl,
        cancelUrl: req.cancelUrl,
        ...present({ settleMemo: req.settleMemo }),
      },
      repeat: "unsafe",
      schema: checkoutSchema,
    })
  }

  async getCheckout(id: string, limits?: CallLimits): Promise<Checkout> {
    return this.get({ operation: "getCheckout", pathTemplate: "/v2/checkout/:id", path: `/v2/checkout/${encodeURIComponent(id)}`, schema: checkoutSchema, limits })
  }

  checkoutPayUrl(checkoutId: string): string {
    return `${this.payUrl}/checkout/${encodeURIComponent(checkoutId)}`
  }

  /** Registers a webhook for checkout notifications (GraphQL, the only way the service offers). */
  async createHook(targetUrl: string): Promise<Hook> {
    if (!URL.canParse(targetUrl) || !/^https?:$/.test(new URL(targetUrl).protocol)) {
      throw invalidRequest("createHook", "targetUrl must be an absolute http(s) URL")
    }
    const data = await this.graphql(
      "createHook",
      `mutation { createHook(targetUrl: ${JSON.stringify(targetUrl)}) { ${HOOK_FIELDS} } }`,
      z.looseObject({ createHook: hookSchema })
    )
    return data.createHook
  }

  async deleteHook(id: string): Promise<boolean> {
    const data = await this.graphql("deleteHook", `mutation { deleteHook(id: ${JSON.stringify(id)}) }`, z.looseObject({ deleteHook: z.boolean() }))
    return data.deleteHook
  }

  /** Ends the client's own connection pool (an injected dispatcher is left to its owner). */
  async close(): Promise<void> {
    await this.transport.close()
  }

  /** The shift a previous attempt made from this quote, if "already accepted" names one that matches the request. */
  private async acceptedShift(error: unknown, req: FixedShiftRequest): Promise<Shift | undefined> {
    if (!(error instanceof SwapServiceError) || !error.orderId || !/already been accepted/i.test(error.message)) return undefined
    const shift = await this.getShift(error.orderId)
    const ours =
      shift.quoteId === req.quote.id &&
      shift.settleAddress === req.settleAddress &&
      (req.externalId === undefined || shift.externalId === req.externalId)
    return ours ? shift : undefined
  }

  private pairQuery(commissionRatePercent: string | undefined, amount?: string) {
    return {
      affiliateId: this.accountId,
      amount,
      commissionRate: commissionRatePercent === undefined ? undefined : toServiceCommissionRate(commissionRatePercent),
    }
  }

  /** GETs change nothing upstream: retried after any retryable failure. */
  private get<T>({ path, query, ...read }: Omit<Endpoint<T>, "body" | "repeat">): Promise<T> {
    return this.transport.send({ ...read, method: "GET", url: this.url(path ?? read.pathTemplate, query), repeat: "safe" })
  }

  private post<T>({ path, ...write }: Omit<Endpoint<T>, "query">): Promise<T> {
    return this.transport.send({ ...write, method: "POST", url: this.url(path ?? write.pathTemplate) })
  }

  /** Quotes, shifts and checkouts: always with the secret (spec 5.1) and the end user's IP when known. */
  private create<T>(ctx: RequestContext, creation: Omit<Endpoint<T>, "query" | "path" | "secret" | "userIp">): Promise<T> {
    return this.post({ ...creation, secret: true, userIp: ctx.userIp })
  }

  /** Hook mutations are sent once (a 429 aside): a repeat could register a second hook. */
  private graphql<T>(operation: string, query: string, schema: z.ZodType<T>): Promise<T> {
    return this.transport.send({
      operation,
      method: "POST",
      pathTemplate: "/graphql",
      url: new URL(this.graphqlUrl),
      body: { query },
      secret: true,
      repeat: "unsafe",
      graphql: true,
      schema,
    })
  }

  private url(path: string, query: Record<string, string | undefined> = {}): URL {
    const url = new URL(`${this.baseUrl}${path}`)
    for (const [name, value] of Object.entries(query)) {
      if (value !== undefined) url.searchParams.set(name, value)
    }
    return url
  }
}
