import { inspect } from "node:util"
import { RequestMetricsRecorder, type RequestMetric, type SwapServiceError } from ".."
import type { FaultSpec } from "../../../sandbox"
import { AS_END_USER, BTC_ADDRESS, BTC_TO_USDC, EVM_ADDRESS, failureOf, useSandboxClient, LATE_ANSWER_MS, SHORT_TIMEOUT_MS } from "./sandbox-harness"

const metric = (fields: Partial<RequestMetric>): RequestMetric => ({
  method: "GET",
  pathTemplate: "/v2/shifts/:id",
  status: 200,
  durationMs: 10,
  attempt: 1,
  ...fields,
})

describe("RequestMetricsRecorder", () => {
  it("keeps only the most recent attempts, oldest first", () => {
    const recorder = new RequestMetricsRecorder(3)
    for (const durationMs of [1, 2]) recorder.record(metric({ durationMs }))
    expect(recorder.recent().map((m) => m.durationMs)).toEqual([1, 2])
    for (const durationMs of [3, 4, 5]) recorder.record(metric({ durationMs }))
    expect(recorder.recent().map((m) => m.durationMs)).toEqual([3, 4, 5])
  })

  it("summarises count, error rate and p50/p95 latency, in all and per endpoint", () => {
    const recorder = new RequestMetricsRecorder()
    for (let durationMs = 1; durationMs <= 20; durationMs++) recorder.record(metric({ durationMs }))
    recorder.record(metric({ method: "POST", pathTemplate: "/v2/quotes", status: 500, durationMs: 7 }))
    recorder.record(metric({ method: "POST", pathTemplate: "/v2/quotes", status: "timeout", durationMs: 100, errorCode: "TIMEOUT" }))
    recorder.record(metric({ method: "POST", pathTemplate: "/v2/quotes", status: 201, durationMs: 3 }))
    recorder.record(metric({ method: "POST", pathTemplate: "/graphql", status: 200, durationMs: 5, errorCode: "GRAPHQL_ERROR" }))

    const summary = recorder.summary()
    expect(summary).toMatchObject({ count: 24, errors: 3, errorRate: 3 / 24, p50Ms: 9, p95Ms: 20 })
    expect(summary.byEndpoint["GET /v2/shifts/:id"]).toEqual({ count: 20, errors: 0, errorRate: 0, p50Ms: 10, p95Ms: 19 })
    expect(summary.byEndpoint["POST /v2/quotes"]).toEqual({ count: 3, errors: 2, errorRate: 2 / 3, p50Ms: 7, p95Ms: 100 })
    expect(summary.byEndpoint["POST /graphql"]).toEqual({ count: 1, errors: 1, errorRate: 1, p50Ms: 5, p95Ms: 5 })
  })

  it("summarises nothing as zeros", () => {
    expect(new RequestMetricsRecorder().summary()).toEqual({ count: 0, errors: 0, errorRate: 0, p50Ms: 0, p95Ms: 0, byEndpoint: {} })
  })
})

describe("metrics and secrets against the sandbox", () => {
  const harness = useSandboxClient()
  const fault = (spec: FaultSpec) => harness.sandbox().addFault(spec)
  const variableShift = (client = harness.client()) => client.createVariableShift({ ...BTC_TO_USDC, settleAddress: EVM_ADDRESS }, AS_END_USER)

  describe("onMetric", () => {
    it("reports method, path template, status, duration and attempt for every attempt", async () => {
      const { client, metrics } = harness.measuredClient({ timeoutMs: SHORT_TIMEOUT_MS, maxRetries: 3 })
      const shift = await variableShift(client)
      fault({ method: "GET", path: "/v2/shifts/*", status: 503, times: 1 })
      fault({ method: "GET", path: "/v2/shifts/*", reset: true, times: 1 })
      fault({ method: "GET", path: "/v2/shifts/*", delayMs: LATE_ANSWER_MS, times: 1 })
      await client.getShift(shift.id)
      await client.getShifts([shift.id])
      await failureOf(client.setRefundAddress(shift.id, { address: BTC_ADDRESS }))
      await failureOf(client.cancelOrder(shift.id))

      expect(metrics.map(({ method, pathTemplate, status, attempt, errorCode }) => ({ method, pathTemplate, status, attempt, errorCode }))).toEqual([
        { method: "POST", pathTemplate: "/v2/shifts/variable", status: 201, attempt: 1, errorCode: undefined },
        { method: "GET", pathTemplate: "/v2/shifts/:id", status: 503, attempt: 1, errorCode: undefined },
        { method: "GET", pathTemplate: "/v2/shifts/:id", status: "network_error", attempt: 2, errorCode: "NETWORK_ERROR" },
        { method: "GET", pathTemplate: "/v2/shifts/:id", status: "timeout", attempt: 3, errorCode: "TIMEOUT" },
        { method: "GET", pathTemplate: "/v2/shifts/:id", status: 200, attempt: 4, errorCode: undefined },
        { method: "GET", pathTemplate: "/v2/shifts", status: 200, attempt: 1, errorCode: undefined },
        { method: "POST", pathTemplate: "/v2/shifts/:id/set-refund-address", status: 400, attempt: 1, errorCode: "BAD_USER_INPUT" },
        { method: "POST", pathTemplate: "/v2/cancel-order", status: 400, attempt: 1, errorCode: "BAD_USER_INPUT" },
      ])
      for (const reported of metrics) {
        expect(Number.isFinite(reported.durationMs)).toBe(true)
        expect(reported.durationMs).toBeGreaterThanOrEqual(0)
      }
      // The concrete path holds the sensitive shift id; the report never does.
      expect(JSON.stringify(metrics)).not.toContain(shift.id)
    })

    it("reports a timed-out attempt as a timeout", async () => {
      const { client, metrics } = harness.measuredClient({ timeoutMs: SHORT_TIMEOUT_MS, maxRetries: 0 })
      fault({ method: "GET", path: "/v2/coins", delayMs: LATE_ANSWER_MS, times: 1 })
      await failureOf(client.getCoins())
      expect(metrics).toEqual([expect.objectContaining({ method: "GET", pathTemplate: "/v2/coins", status: "timeout", attempt: 1, errorCode: "TIMEOUT" })])
    })

    it("reports the template of pair, checkout and GraphQL paths", async () => {
      const { client, metrics } = harness.measuredClient()
      await client.getPair({ coin: "BTC", network: "bitcoin" }, { coin: "ETH", network: "ethereum" })
      await failureOf(client.getCheckout("some-checkout"))
      await failureOf(client.deleteHook("some-hook"))
      expect(metrics.map((reported) => `${reported.method} ${reported.pathTemplate} ${reported.status} ${reported.errorCode}`)).toEqual([
        "GET /v2/pair/:from/:to 200 undefined",
        "GET /v2/checkout/:id 404 undefined",
        "POST /graphql 200 GRAPHQL_ERROR",
      ])
    })

    it("is not failed by a metrics sink that throws", async () => {
      const client = harness.client({
        onMetric: () => {
          throw new Error("sink down")
        },
      })
      expect((await client.getCoins()).length).toBeGreaterThan(0)
    })

    it("feeds RequestMetricsRecorder, whose summary counts attempts and failures", async () => {
      const recorder = new RequestMetricsRecorder()
      const client = harness.client({ onMetric: recorder.record, maxRetries: 2 })
      fault({ method: "GET", path: "/v2/coins", status: 502, times: 2 })
      await client.getCoins()
      await client.getCoins()
      await failureOf(client.getShift("no-such-shift"))
      const summary = recorder.summary()
      expect(summary).toMatchObject({ count: 5, errors: 3, errorRate: 3 / 5 })
      expect(summary.byEndpoint["GET /v2/coins"]).toMatchObject({ count: 4, errors: 2, errorRate: 0.5 })
      expect(summary.byEndpoint["GET /v2/shifts/:id"]).toMatchObject({ count: 1, errors: 1, errorRate: 1 })
      expect(summary.p50Ms).toBeLessThanOrEqual(summary.p95Ms)
      expect(recorder.recent().map((reported) => reported.attempt)).toEqual([1, 2, 3, 1, 1])
    })
  })

  describe("the private key", () => {
    const echoing = (secret: string) => JSON.stringify({ error: { message: `Key ${secret} is not allowed here`, code: secret, orderId: secret } })

    /** Every way an error is commonly logged or serialised. */
    const views = (failure: SwapServiceError) => {
      const { cause } = failure as Error & { cause?: unknown }
      return [
        JSON.stringify(failure),
        inspect(failure, { depth: 10 }),
        inspect(failure, { depth: 10, showHidden: true }),
        failure.message,
        String(failure),
        String(failure.stack),
        inspect(cause, { depth: 10 }),
        JSON.stringify(Object.getOwnPropertyNames(failure).map((name) => String((failure as unknown as Record<string, unknown>)[name]))),
      ]
    }

    it("never appears in errors of network failures, timeouts, HTTP errors or GraphQL errors, nor in metrics", async () => {
      const secret = harness.sandbox().account.secret
      const metrics: RequestMetric[] = []
      const client = harness.client({ timeoutMs: SHORT_TIMEOUT_MS, maxRetries: 0, onMetric: (reported) => metrics.push(reported) })
      const shift = await variableShift(client)
      const quote = () => client.createQuote({ ...BTC_TO_USDC, settleAmount: "100" }, AS_END_USER)
      const failures: SwapServiceError[] = []

      // Network: a reset connection, on a request carrying the secret.
      fault({ method: "GET", path: "/v2/pair/*/*", reset: true, times: 1 })
      failures.push(await failureOf(client.getPair({ coin: "BTC", network: "bitcoin" }, { coin: "ETH", network: "ethereum" })))
      // Timeouts, on reads and creations carrying the secret.
      fault({ method: "POST", path: "/v2/quotes", delayMs: LATE_ANSWER_MS, times: 1 })
      failures.push(await failureOf(quote()))
      fault({ method: "POST", path: "/v2/shifts/fixed", delayMs: LATE_ANSWER_MS, times: 1 })
      failures.push(await failureOf(client.createFixedShift({ quote: await quote(), settleAddress: EVM_ADDRESS }, AS_END_USER)))
      // HTTP errors, one of which echoes the key in every field.
      fault({ method: "POST", path: "/v2/quotes", status: 400, body: echoing(secret), times: 1 })
      failures.push(await failureOf(quote()))
      fault({ method: "POST", path: "/v2/quotes", status: 429, times: 1 })
      failures.push(await failureOf(quote()))
      fault({ method: "POST", path: "/v2/checkout", status: 503, body: `<html>${secret}</html>`, times: 1 })
      failures.push(
        await failureOf(
          client.createCheckout(
            { settleCoin: "USDC", settleNetwork: "ethereum", settleAmount: "10", settleAddress: EVM_ADDRESS, successUrl: "https://a.example", cancelUrl: "https://b.example" },
            AS_END_USER
          )
        )
      )
      // GraphQL errors, one echoing the key.
      fault({ method: "POST", path: "/graphql", status: 200, body: JSON.stringify({ errors: [{ message: `bad ${secret}` }] }), times: 1 })
      failures.push(await failureOf(client.createHook("https://shop.example/hook")))
      failures.push(await failureOf(client.deleteHook("no-such-hook")))
      // A malformed answer echoing the key.
      fault({ method: "GET", path: "/v2/shifts/*", status: 200, body: `not json ${secret}`, times: 1 })
      failures.push(await failureOf(client.getShift(shift.id)))

      expect(failures.map((failure) => failure.code ?? failure.status)).toEqual([
        "NETWORK_ERROR",
        "TIMEOUT",
        "TIMEOUT",
        "[redacted]",
        429,
        503,
        "GRAPHQL_ERROR",
        "GRAPHQL_ERROR",
        "MALFORMED_RESPONSE",
      ])
      for (const failure of failures) {
        expect((failure as Error & { cause?: unknown }).cause).toBeUndefined()
        for (const view of views(failure)) expect(view).not.toContain(secret)
      }
      expect(failures[3]).toMatchObject({ message: "Key [redacted] is not allowed here", orderId: "[redacted]" })
      expect(failures[6].message).toBe("bad [redacted]")

      expect(metrics.length).toBeGreaterThanOrEqual(failures.length)
      expect(JSON.stringify(metrics)).not.toContain(secret)
      expect(inspect(metrics, { depth: 10 })).not.toContain(secret)
    })

    it("never appears when the client itself is logged, even with a request in flight", async () => {
      const secret = harness.sandbox().account.secret
      const client = harness.client({ timeoutMs: 1000 })
      fault({ method: "POST", path: "/v2/quotes", delayMs: 100, times: 1 })
      const pending = client.createQuote({ ...BTC_TO_USDC, settleAmount: "100" }, AS_END_USER)
      expect(inspect(client, { depth: 10, showHidden: true })).not.toContain(secret)
      expect(JSON.stringify(client)).not.toContain(secret)
      expect((await pending).settleAmount).toBe("100")
    })
  })
})
