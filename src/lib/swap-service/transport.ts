import { setTimeout as sleep } from "node:timers/promises"
import { Agent, request, type Dispatcher } from "undici"
import type { z } from "@medusajs/framework/zod"
import { parseRetryAfter, SwapServiceError, type SwapServiceErrorInit } from "./errors"
import type { RequestMetric } from "./metrics"
import { errorBodySchema, graphqlEnvelopeSchema } from "./schemas"

/**
 * What repeating a call can do, which decides when it is retried:
 * - `safe`: nothing changes upstream (reads, quotes): retried after any retryable failure.
 * - `recoverable`: creates something a repeat finds again (a fixed shift from its quote): retried after any retryable failure.
 * - `unsafe`: a repeat could act twice: retried only after a 429, which did nothing.
 */
export type Repeat = "safe" | "recoverable" | "unsafe"

export type Call<T> = {
  operation: string
  method: "GET" | "POST"
  /** Reported in metrics instead of the concrete path, which may hold a shift id. */
  pathTemplate: string
  url: URL
  body?: unknown
  /** Send the account secret. */
  secret?: boolean
  /** The end user the request is made for (`x-user-ip`). */
  userIp?: string
  repeat: Repeat
  /** A GraphQL call: `errors` inside a 2xx fail it, and `schema` describes `data`. */
  graphql?: boolean
  schema: z.ZodType<T>
  /** Tighter bounds than the client's for a caller that can't wait (both default to the client's). */
  limits?: CallLimits
}

/** A caller's own bounds on a call: milliseconds per attempt, and retries after the first. */
export type CallLimits = { timeoutMs?: number; maxRetries?: number }

export type TransportOptions = {
  secretHeader: string
  timeoutMs: number
  maxRetries: number
  retryBaseDelayMs: number
  onMetric?: (metric: RequestMetric) => void
  dispatcher?: Dispatcher
}

/** The longest wait before a retry; a 429 asking for more is surfaced instead. */
export const MAX_RETRY_WAIT_MS = 5000

const TIMEOUT_CODES = new Set(["UND_ERR_CONNECT_TIMEOUT", "UND_ERR_HEADERS_TIMEOUT", "UND_ERR_BODY_TIMEOUT"])
/**
 * A failure while connecting (refused, no such host, none in time): the request never reached the service.
 * Judged by the call that failed, not the code alone: an established socket reports some of the same codes.
 */
function failedToConnect(error: unknown): boolean {
  const { code, syscall } = (error ?? {}) as { code?: unknown; syscall?: unknown }
  return code === "UND_ERR_CONNECT_TIMEOUT" || syscall === "connect" || syscall === "getaddrinfo"
}

type Answer = { status: number; text: string; retryAfter?: string | string[] }

/**
 * HTTP to the service over one keep-alive pool: per-request timeout, JSON in and out, zod-checked
 * answers, one error type, a metric per attempt and retries where a repeat is safe. The secret lives
 * only in the request headers handed to undici; errors are built anew, never wrapping undici's.
 */
export class Transport {
  // Private fields: logging the client must not dump the key, nor the pool whose queued requests hold it.
  readonly #privateKey: string
  readonly #dispatcher: Dispatcher
  #closing?: Promise<void>
  private readonly ownsDispatcher: boolean
  private readonly options: Omit<TransportOptions, "dispatcher">

  constructor(privateKey: string, { dispatcher, ...options }: TransportOptions) {
    this.#privateKey = privateKey
    this.options = options
    this.ownsDispatcher = !dispatcher
    this.#dispatcher = dispatcher ?? new Agent({ keepAliveTimeout: 30_000, connections: 32 })
  }

  async send<T>(call: Call<T>): Promise<T> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.attempt(call, attempt)
      } catch (error) {
        const wait = this.retryWaitMs(call, error as SwapServiceError, attempt)
        if (wait === undefined) throw error
        await sleep(wait)
      }
    }
  }

  /** Idempotent: undici rejects a second close of its pool, a client's owner may well call it twice. */
  async close(): Promise<void> {
    if (!this.ownsDispatcher) return
    this.#closing ??= this.#dispatcher.close()
    await this.#closing
  }

  /** How long to wait before the next attempt, or undefined to give up. */
  private retryWaitMs(call: Call<unknown>, failure: SwapServiceError, attempt: number): number | undefined {
    if (attempt > (call.limits?.maxRetries ?? this.options.maxRetries)) return undefined
    const repeatable = call.repeat === "unsafe" ? failure.status === 429 : failure.retryable
    if (!repeatable) return undefined
    if (failure.retryAfterMs !== undefined) return failure.retryAfterMs <= MAX_RETRY_WAIT_MS ? failure.retryAfterMs : undefined
    // The service counts by the minute (service-behaviour): a 429 that names no wait would meet 429 again.
    if (failure.status === 429) return undefined
    return Math.min(this.options.retryBaseDelayMs * 2 ** (attempt - 1), MAX_RETRY_WAIT_MS)
  }

  private async attempt<T>(call: Call<T>, attempt: number): Promise<T> {
    const started = performance.now()
    const report = (status: RequestMetric["status"], errorCode?: string) => {
      try {
        this.options.onMetric?.({ method: call.method, pathTemplate: call.pathTemplate, status, durationMs: performance.now() - started, attempt, errorCode })
      } catch {
        // A failing metrics sink must not fail the payment.
      }
    }
    // A timer cleared with the answer: AbortSignal.timeout's outlives it by the whole timeout, thousands
    // of them alive after a tick's reads.
    const timeoutMs = call.limits?.timeoutMs ?? this.options.timeoutMs
    const deadline = new AbortController()
    const timer = setTimeout(() => deadline.abort(), timeoutMs)
    let answer: Answer
    try {
      answer = await this.exchange(call, deadline.signal)
    } catch (error) {
      const code = String((error as { code?: unknown } | undefined)?.code)
      const timedOut = deadline.signal.aborted || TIMEOUT_CODES.has(code)
      const notSent = failedToConnect(error) || undefined
      report(timedOut ? "timeout" : "network_error", timedOut ? "TIMEOUT" : "NETWORK_ERROR")
      throw this.failure(
        timedOut
          ? { operation: call.operation, kind: "timeout", code: "TIMEOUT", message: `The swap service did not answer within ${timeoutMs} ms`, notSent }
          : { operation: call.operation, kind: "network", code: "NETWORK_ERROR", message: "The connection to the swap service failed", notSent }
      )
    } finally {
      clearTimeout(timer)
    }
    try {
      const value = this.interpret(call, answer)
      report(answer.status)
      return value
    } catch (error) {
      report(answer.status, (error as SwapServiceError).code)
      throw error
    }
  }

  private async exchange(call: Call<unknown>, signal: AbortSignal): Promise<Answer> {
    const headers: Record<string, string> = { accept: "application/json" }
    if (call.body !== undefined) headers["content-type"] = "application/json"
    if (call.secret) headers[this.options.secretHeader] = this.#privateKey
    if (call.userIp) headers["x-user-ip"] = call.userIp
    const response = await request(call.url, {
      dispatcher: this.#dispatcher,
      method: call.method,
      headers,
      body: call.body === undefined ? undefined : JSON.stringify(call.body),
      signal,
    })
    // Always read to the end, so the connection goes back to the pool.
    const text = await response.body.text()
    return { status: response.statusCode, text, retryAfter: response.headers["retry-after"] }
  }

  private interpret<T>(call: Call<T>, answer: Answer): T {
    if (answer.status < 200 || answer.status >= 300) throw this.responseFailure(call, answer)
    let body: unknown
    try {
      body = answer.text === "" ? undefined : JSON.parse(answer.text)
    } catch {
      throw this.malformed(call, answer.status, "an answer that is not JSON")
    }
    if (call.graphql) body = this.graphqlData(call, answer.status, body)
    const parsed = call.schema.safeParse(body)
    if (!parsed.success) {
      const issue = parsed.error.issues[0]
      throw this.malformed(call, answer.status, `an unexpected answer (${issue.path.join(".") || "body"}: ${issue.message})`)
    }
    return parsed.data
  }

  /** GraphQL reports failures as HTTP 200 with `errors`: a failure all the same. */
  private graphqlData(call: Call<unknown>, status: number, body: unknown): unknown {
    const envelope = graphqlEnvelopeSchema.safeParse(body)
    if (!envelope.success) throw this.malformed(call, status, "an answer that is not a GraphQL response")
    const errors = envelope.data.errors ?? []
    if (errors.length === 0) return envelope.data.data
    throw this.failure({
      operation: call.operation,
      kind: "graphql",
      status,
      code: "GRAPHQL_ERROR",
      message: errors.map((error) => error.message).join("; "),
    })
  }

  private responseFailure(call: Call<unknown>, answer: Answer): SwapServiceError {
    let details: z.output<typeof errorBodySchema>["error"] | undefined
    try {
      details = errorBodySchema.parse(JSON.parse(answer.text)).error
    } catch {
      // Not the service's error body (a proxy's page, most likely): the status says enough.
    }
    const decimal = (value: string | number | null | undefined) => (value === null || value === undefined ? undefined : String(value))
    return this.failure({
      operation: call.operation,
      kind: "response",
      status: answer.status,
      message: details?.message || `The swap service answered HTTP ${answer.status}`,
      code: details?.code ?? undefined,
      orderId: details?.orderId ?? undefined,
      depositRangeMin: decimal(details?.depositRangeMin),
      depositRangeMax: decimal(details?.depositRangeMax),
      retryAfterMs: answer.status === 429 ? parseRetryAfter(answer.retryAfter) : undefined,
    })
  }

  private malformed(call: Call<unknown>, status: number, what: string): SwapServiceError {
    return this.failure({
      operation: call.operation,
      kind: "malformed",
      status,
      code: "MALFORMED_RESPONSE",
      message: `The swap service sent ${what}`,
      safeToRepeat: call.repeat !== "unsafe",
    })
  }

  /** Text from the service never carries the secret out, even if the service echoed it. */
  private failure(init: SwapServiceErrorInit): SwapServiceError {
    const redact = (value: unknown) =>
      typeof value === "string" && this.#privateKey ? value.split(this.#privateKey).join("[redacted]") : value
    return new SwapServiceError(Object.fromEntries(Object.entries(init).map(([name, value]) => [name, redact(value)])) as SwapServiceErrorInit)
  }
}
