import { createServer } from "node:http"
import type { AddressInfo } from "node:net"
import { classifyFailure, mayHaveActed, parseRetryAfter, SwapServiceClient, SwapServiceError, type Failure } from ".."
import type { FaultSpec } from "../../../sandbox"
import { AS_END_USER, BTC_ADDRESS, BTC_TO_USDC, EVM_ADDRESS, failureOf, startAnswerLosingProxy, USDC_CHECKOUT, useSandboxClient, LATE_ANSWER_MS, SHORT_TIMEOUT_MS } from "./sandbox-harness"

// Every kind of failure the client can meet, through the sandbox's faults and its real refusals: how
// it is classified (retryable, the user's), and how many requests reached the service because of it.

const BLOCKED_IP = "198.51.100.9"
const SHIFT_PATH = /^\/v2\/shifts\/[^/]+$/
const PAIR_PATH = /^\/v2\/pair\//
const BTC = { coin: "BTC", network: "bitcoin" }
const ETH = { coin: "ETH", network: "ethereum" }
const errorBody = (message: string, code?: string) => JSON.stringify({ error: { message, ...(code ? { code } : {}) } })
const statusesOf = (requests: { status: number | null }[]) => requests.map((request) => request.status)

describe("mayHaveActed", () => {
  const failed = (failure: Failure) => new SwapServiceError({ operation: "createVariableShift", ...failure })

  it("counts a lost, garbled or faulted answer to a create as one that may have created", () => {
    expect(mayHaveActed(failed({ kind: "timeout", message: "slow" }))).toBe(true)
    expect(mayHaveActed(failed({ kind: "network", message: "reset" }))).toBe(true)
    expect(mayHaveActed(failed({ kind: "malformed", status: 201, message: "not JSON" }))).toBe(true)
    expect(mayHaveActed(failed({ kind: "response", status: 500, message: "Internal error", code: "UNKNOWN" }))).toBe(true)
    expect(mayHaveActed(failed({ kind: "response", status: 503, message: "Unavailable" }))).toBe(true)
    expect(mayHaveActed(new Error("anything else"))).toBe(true)
  })

  it("counts a request no connection carried as one that made nothing, as the client reports it", async () => {
    expect(mayHaveActed(failed({ kind: "network", message: "refused", notSent: true }))).toBe(false)
    expect(mayHaveActed(failed({ kind: "timeout", message: "no connection in time", notSent: true }))).toBe(false)
    const closedPort = await new Promise<number>((resolve) => {
      const server = createServer().listen(0, "127.0.0.1", () => {
        const { port } = server.address() as AddressInfo
        server.close(() => resolve(port))
      })
    })
    const nowhere = `http://127.0.0.1:${closedPort}`
    const unreachable = new SwapServiceClient({ baseUrl: nowhere, graphqlUrl: `${nowhere}/graphql`, payUrl: nowhere, accountId: "acct", privateKey: "key", maxRetries: 0 })
    const failure = await failureOf(unreachable.createVariableShift({ depositCoin: "BTC", depositNetwork: "bitcoin", settleCoin: "USDC", settleNetwork: "ethereum", settleAddress: EVM_ADDRESS }))
    expect(failure).toMatchObject({ code: "NETWORK_ERROR", notSent: true })
    expect(mayHaveActed(failure)).toBe(false)
    await unreachable.close()
  })

  it("counts a refusal as one that made nothing", () => {
    expect(mayHaveActed(failed({ kind: "response", status: 400, message: "Invalid address" }))).toBe(false)
    expect(mayHaveActed(failed({ kind: "response", status: 403, message: "too many open orders" }))).toBe(false)
    expect(mayHaveActed(failed({ kind: "response", status: 429, message: "Rate limit exceeded" }))).toBe(false)
    expect(mayHaveActed(failed({ kind: "response", status: 500, message: "Amount too low" }))).toBe(false)
    expect(mayHaveActed(failed({ kind: "invalid_request", message: "bad memo" }))).toBe(false)
  })
})

describe("classifyFailure", () => {
  const response = (status: number, message = "Something", code?: string): Failure => ({ kind: "response", status, message, code })

  it.each([
    ["Invalid coin"],
    ["Invalid network"],
    ["Amount too low"],
    ["Amount too high"],
    ["Deposit and settle method must be different"],
    ["Memo is not supported for this settle coin"],
    ["Rate unavailable"],
    ["Fixed rate is not available for this pair"],
  ])("reads a 500 %p as the user's validation failure, not an outage", (message) => {
    expect(classifyFailure(response(500, message))).toEqual({ retryable: false, userError: true })
  })

  it("reads a 500 with the BAD_USER_INPUT code as a validation failure", () => {
    expect(classifyFailure(response(500, "Something odd", "BAD_USER_INPUT"))).toEqual({ retryable: false, userError: true })
  })

  it("retries other 500s, 502, 503, 504 and 429", () => {
    for (const failure of [response(500, "Internal error", "UNKNOWN"), response(502), response(503), response(504), response(429, "Rate limit exceeded")]) {
      expect(classifyFailure(failure)).toEqual({ retryable: true, userError: false })
    }
  })

  it("makes 400 and 403 the user's, never retried", () => {
    expect(classifyFailure(response(400, "Invalid address", "BAD_USER_INPUT"))).toEqual({ retryable: false, userError: true })
    expect(classifyFailure(response(403, "Access denied", "FORBIDDEN"))).toEqual({ retryable: false, userError: true })
    expect(classifyFailure(response(403, "too many open orders", "FORBIDDEN"))).toEqual({ retryable: false, userError: true })
  })

  it("makes credentials and unknown orders neither the user's nor retryable", () => {
    expect(classifyFailure(response(401, "The example private key from the documentation cannot be used"))).toEqual({ retryable: false, userError: false })
    expect(classifyFailure(response(404, "Account not found"))).toEqual({ retryable: false, userError: false })
    expect(classifyFailure(response(404, "Order not found"))).toEqual({ retryable: false, userError: false })
  })

  it("retries timeouts and connection failures", () => {
    expect(classifyFailure({ kind: "timeout", message: "slow" })).toEqual({ retryable: true, userError: false })
    expect(classifyFailure({ kind: "network", message: "reset" })).toEqual({ retryable: true, userError: false })
  })

  it("retries a malformed answer only where a repeat is harmless", () => {
    expect(classifyFailure({ kind: "malformed", status: 200, message: "x", safeToRepeat: true })).toEqual({ retryable: true, userError: false })
    expect(classifyFailure({ kind: "malformed", status: 201, message: "x", safeToRepeat: false })).toEqual({ retryable: false, userError: false })
  })

  it("never retries GraphQL errors, and makes a refused request the user's", () => {
    expect(classifyFailure({ kind: "graphql", status: 200, message: "Account not found" })).toEqual({ retryable: false, userError: false })
    expect(classifyFailure({ kind: "invalid_request", message: "bad" })).toEqual({ retryable: false, userError: true })
  })

  it("builds a SwapServiceError carrying the classification and the service's details", () => {
    const error = new SwapServiceError({ operation: "createQuote", kind: "response", status: 500, message: "Amount too low", depositRangeMin: "0.0001", depositRangeMax: "3.5" })
    expect(error).toBeInstanceOf(Error)
    expect(error).toMatchObject({
      name: "SwapServiceError",
      operation: "createQuote",
      status: 500,
      message: "Amount too low",
      userError: true,
      retryable: false,
      depositRangeMin: "0.0001",
      depositRangeMax: "3.5",
    })
  })
})

describe("parseRetryAfter", () => {
  const now = Date.parse("2026-11-22T10:00:00Z")

  it("reads seconds and HTTP dates", () => {
    expect(parseRetryAfter("3", now)).toBe(3000)
    expect(parseRetryAfter(["1.5"], now)).toBe(1500)
    expect(parseRetryAfter("Sun, 22 Nov 2026 10:00:07 GMT", now)).toBe(7000)
    expect(parseRetryAfter("Sun, 22 Nov 2026 09:00:00 GMT", now)).toBe(0)
  })

  it("ignores what it cannot read", () => {
    expect(parseRetryAfter(undefined, now)).toBeUndefined()
    expect(parseRetryAfter("", now)).toBeUndefined()
    expect(parseRetryAfter("soon", now)).toBeUndefined()
    expect(parseRetryAfter("-5", now)).toBeUndefined()
  })
})

describe("SwapServiceClient failures against the sandbox", () => {
  const harness = useSandboxClient()
  const fault = (spec: FaultSpec) => harness.sandbox().addFault(spec)
  const variableShift = (client = harness.client(), overrides: Record<string, unknown> = {}) =>
    client.createVariableShift({ ...BTC_TO_USDC, settleAddress: EVM_ADDRESS, ...overrides }, AS_END_USER)
  const quote = (client = harness.client()) => client.createQuote({ ...BTC_TO_USDC, settleAmount: "100" }, AS_END_USER)

  describe("every answer class, injected on a read (which the client would retry if it may)", () => {
    const MAX_RETRIES = 2
    it.each([
      // status, body, expected error, requests that reached the service
      [500, errorBody("Amount too low"), { code: undefined, message: "Amount too low", userError: true, retryable: false }, 1],
      [500, errorBody("Internal error", "UNKNOWN"), { code: "UNKNOWN", message: "Internal error", userError: false, retryable: true }, 3],
      [400, errorBody("Invalid address", "BAD_USER_INPUT"), { code: "BAD_USER_INPUT", message: "Invalid address", userError: true, retryable: false }, 1],
      [403, errorBody("Access denied", "FORBIDDEN"), { code: "FORBIDDEN", message: "Access denied", userError: true, retryable: false }, 1],
      [404, errorBody("Order not found", "METHOD_NOT_FOUND"), { code: "METHOD_NOT_FOUND", message: "Order not found", userError: false, retryable: false }, 1],
      [404, errorBody("Account not found"), { code: undefined, message: "Account not found", userError: false, retryable: false }, 1],
      [401, errorBody("The example private key from the documentation cannot be used"), { userError: false, retryable: false }, 1],
      [502, "<html>Bad gateway</html>", { code: undefined, message: "The swap service answered HTTP 502", userError: false, retryable: true }, 3],
      [503, errorBody("Service unavailable"), { message: "Service unavailable", userError: false, retryable: true }, 3],
      [504, "", { message: "The swap service answered HTTP 504", userError: false, retryable: true }, 3],
      // Not retried without a Retry-After: the service counts by the minute, a retry at the backoff meets 429 again.
      [429, errorBody("Rate limit exceeded"), { message: "Rate limit exceeded", userError: false, retryable: true, retryAfterMs: undefined }, 1],
    ])("%i %s", async (status, body, expected, requests) => {
      fault({ method: "GET", path: "/v2/pair/*/*", status, body })
      const failure = await failureOf(harness.client({ maxRetries: MAX_RETRIES }).getPair(BTC, ETH))
      expect(failure).toMatchObject({ status, operation: "getPair", ...expected })
      expect(statusesOf(harness.upstream("GET", PAIR_PATH))).toEqual(Array(requests).fill(status))
    })
  })

  describe("the service's own refusals", () => {
    it("500 validation failures are the user's, carry the deposit range, and are sent once", async () => {
      const client = harness.client()
      const tooLow = await failureOf(client.createQuote({ ...BTC_TO_USDC, settleAmount: "0.01" }, AS_END_USER))
      expect(tooLow).toMatchObject({ status: 500, message: "Amount too low", userError: true, retryable: false })
      expect(tooLow.depositRangeMin).toMatch(/^\d+(\.\d+)?$/)
      expect(tooLow.depositRangeMax).toMatch(/^\d+(\.\d+)?$/)

      const invalidCoin = await failureOf(client.getPair({ coin: "NOPE", network: "bitcoin" }, ETH))
      expect(invalidCoin).toMatchObject({ status: 500, message: "Invalid coin", userError: true, retryable: false })

      const memo = await failureOf(variableShift(client, { settleMemo: "123" }))
      expect(memo).toMatchObject({ status: 500, userError: true, retryable: false })
      expect(memo.message).toMatch(/Memo is not supported/)

      const same = await failureOf(client.createQuote({ ...BTC_TO_USDC, settleCoin: "BTC", settleNetwork: "bitcoin", depositAmount: "0.1" }, AS_END_USER))
      expect(same).toMatchObject({ status: 500, message: "Deposit and settle method must be different", userError: true })
      expect(statusesOf(harness.upstream())).toEqual([500, 500, 500, 500])
    })

    it("400 invalid address: status, code and message, the user's, sent once", async () => {
      const failure = await failureOf(variableShift(harness.client(), { settleAddress: "not-an-address" }))
      expect(failure).toMatchObject({ status: 400, code: "BAD_USER_INPUT", userError: true, retryable: false, operation: "createVariableShift" })
      expect(failure.message).toMatch(/Invalid address/)
      expect(harness.upstream("POST")).toHaveLength(1)
    })

    it("403 Access denied and too many open orders: the user's, sent once", async () => {
      harness.sandbox().configure({ blockedIps: [BLOCKED_IP] })
      const denied = await failureOf(harness.client().createQuote({ ...BTC_TO_USDC, settleAmount: "100" }, { userIp: BLOCKED_IP }))
      expect(denied).toMatchObject({ status: 403, code: "FORBIDDEN", message: "Access denied", userError: true, retryable: false })

      harness.sandbox().configure({ maxOpenVariableShifts: 1 })
      const client = harness.client()
      await variableShift(client)
      const tooMany = await failureOf(variableShift(client))
      expect(tooMany).toMatchObject({ status: 403, code: "FORBIDDEN", message: "too many open orders", userError: true, retryable: false })
      expect(statusesOf(harness.upstream("POST"))).toEqual([403, 201, 403])
    })

    it("404 Account not found (a bad secret) and 401 (the example key): neither the user's nor retried", async () => {
      const unknown = await failureOf(harness.client({ privateKey: "not-our-key" }).getPair(BTC, ETH))
      expect(unknown).toMatchObject({ status: 404, message: "Account not found", userError: false, retryable: false })
      const example = await failureOf(quote(harness.client({ privateKey: "<PRIVATE_KEY>" })))
      expect(example).toMatchObject({ status: 401, userError: false, retryable: false })
      expect(statusesOf(harness.upstream())).toEqual([404, 401])
    })

    it("404 Order not found: not retried", async () => {
      const failure = await failureOf(harness.client().getShift("no-such-shift"))
      expect(failure).toMatchObject({ status: 404, message: "Order not found", userError: false, retryable: false })
      expect(harness.upstream("GET", SHIFT_PATH)).toHaveLength(1)
    })
  })

  describe("passing failures of reads: retried up to maxRetries", () => {
    it("retries a 500 that is not a validation failure, reporting each attempt", async () => {
      const { client, metrics } = harness.measuredClient()
      const shift = await variableShift(client)
      fault({ method: "GET", path: "/v2/shifts/*", status: 500, body: errorBody("Internal error", "UNKNOWN"), times: 1 })
      expect((await client.getShift(shift.id)).id).toBe(shift.id)
      expect(statusesOf(harness.upstream("GET", SHIFT_PATH))).toEqual([500, 200])
      expect(metrics.filter((metric) => metric.pathTemplate === "/v2/shifts/:id")).toEqual([
        expect.objectContaining({ method: "GET", status: 500, attempt: 1, errorCode: "UNKNOWN" }),
        expect.objectContaining({ method: "GET", status: 200, attempt: 2, errorCode: undefined }),
      ])
    })

    it.each([502, 503])("recovers from a passing %i", async (status) => {
      fault({ method: "GET", path: "/v2/coins", status, body: "<html>Bad gateway</html>", contentType: "text/html", times: 2 })
      expect((await harness.client({ maxRetries: 2 }).getCoins()).length).toBeGreaterThan(0)
      expect(statusesOf(harness.upstream("GET", /^\/v2\/coins$/))).toEqual([status, status, 200])
    })

    it.each([
      [502, 0],
      [503, 1],
      [502, 3],
    ])("gives up on a lasting %i after maxRetries = %i, with the last failure", async (status, maxRetries) => {
      fault({ method: "GET", path: "/v2/coins", status, body: "<html>Unavailable</html>", contentType: "text/html" })
      const failure = await failureOf(harness.client({ maxRetries }).getCoins())
      expect(failure).toMatchObject({ status, message: `The swap service answered HTTP ${status}`, retryable: true, userError: false })
      expect(harness.upstream("GET", /^\/v2\/coins$/)).toHaveLength(maxRetries + 1)
    })

    it("retries a timeout (an answer later than timeoutMs)", async () => {
      fault({ method: "GET", path: "/v2/coins", delayMs: LATE_ANSWER_MS, times: 1 })
      const { client, metrics } = harness.measuredClient({ timeoutMs: SHORT_TIMEOUT_MS })
      expect((await client.getCoins()).length).toBeGreaterThan(0)
      expect(metrics.map((metric) => [metric.status, metric.errorCode])).toEqual([
        ["timeout", "TIMEOUT"],
        [200, undefined],
      ])
      expect(harness.upstream("GET", /^\/v2\/coins$/)).toHaveLength(2)
    })

    it("fails with a retryable TIMEOUT once the retries are spent", async () => {
      fault({ method: "GET", path: "/v2/coins", delayMs: LATE_ANSWER_MS })
      const failure = await failureOf(harness.client({ timeoutMs: SHORT_TIMEOUT_MS, maxRetries: 1 }).getCoins())
      expect(failure).toMatchObject({ code: "TIMEOUT", status: undefined, retryable: true, userError: false, operation: "getCoins" })
      expect(harness.upstream("GET", /^\/v2\/coins$/)).toHaveLength(2)
    })

    it("retries a connection reset", async () => {
      fault({ method: "GET", path: "/v2/coins", reset: true, times: 1 })
      const { client, metrics } = harness.measuredClient()
      expect((await client.getCoins()).length).toBeGreaterThan(0)
      expect(metrics.map((metric) => metric.status)).toEqual(["network_error", 200])
      expect(statusesOf(harness.upstream("GET", /^\/v2\/coins$/))).toEqual([null, 200])
    })

    it("fails with a retryable NETWORK_ERROR when every attempt is reset", async () => {
      fault({ method: "GET", path: "/v2/coins", reset: true })
      const failure = await failureOf(harness.client({ maxRetries: 1 }).getCoins())
      expect(failure).toMatchObject({ code: "NETWORK_ERROR", status: undefined, retryable: true, userError: false })
      expect(statusesOf(harness.upstream("GET", /^\/v2\/coins$/))).toEqual([null, null])
    })
  })

  describe("429 and Retry-After", () => {
    it("waits out a short Retry-After and tries again", async () => {
      harness.sandbox().configure({ rateLimits: { quotesPerMinute: 1 } })
      const client = harness.client()
      await quote(client)
      // One second of the minute is left: the service says Retry-After: 1.
      harness.sandbox().advanceClock(59)
      expect((await quote(client)).id).toEqual(expect.any(String))
      // Retrying at once, at the client's 5 ms backoff, would have met 429 again.
      expect(statusesOf(harness.upstream("POST", /^\/v2\/quotes$/))).toEqual([201, 429, 201])
    })

    it("surfaces retryAfterMs when it gives up on a short Retry-After", async () => {
      harness.sandbox().configure({ rateLimits: { quotesPerMinute: 1 } })
      const client = harness.client({ maxRetries: 0 })
      await quote(client)
      harness.sandbox().advanceClock(58)
      const failure = await failureOf(quote(client))
      expect(failure).toMatchObject({ status: 429, message: "Rate limit exceeded", retryable: true, userError: false, retryAfterMs: 2000 })
      expect(statusesOf(harness.upstream("POST", /^\/v2\/quotes$/))).toEqual([201, 429])
    })

    it("surfaces a Retry-After longer than it will wait, without waiting", async () => {
      harness.sandbox().configure({ rateLimits: { quotesPerMinute: 1 } })
      const client = harness.client()
      await quote(client)
      const failure = await failureOf(quote(client))
      expect(failure).toMatchObject({ status: 429, retryable: true, userError: false, message: "Rate limit exceeded" })
      expect(failure.retryAfterMs).toBeGreaterThan(5000)
      expect(failure.retryAfterMs).toBeLessThanOrEqual(60_000)
      expect(statusesOf(harness.upstream("POST", /^\/v2\/quotes$/))).toEqual([201, 429])
    })
  })

  describe("malformed answers are MALFORMED_RESPONSE", () => {
    it("an answer that is not JSON", async () => {
      const client = harness.client({ maxRetries: 1 })
      const shift = await variableShift(client)
      fault({ method: "GET", path: "/v2/shifts/*", status: 200, body: '{"id": not json' })
      const failure = await failureOf(client.getShift(shift.id))
      expect(failure).toBeInstanceOf(SwapServiceError)
      expect(failure).toMatchObject({ status: 200, code: "MALFORMED_RESPONSE", retryable: true, userError: false, operation: "getShift" })
      expect(harness.upstream("GET", SHIFT_PATH)).toHaveLength(2)
    })

    it("JSON of the wrong shape", async () => {
      const client = harness.client({ maxRetries: 0 })
      fault({ method: "GET", path: "/v2/coins", status: 200, body: JSON.stringify({ coins: [] }), times: 1 })
      expect(await failureOf(client.getCoins())).toMatchObject({ code: "MALFORMED_RESPONSE", status: 200 })
      fault({ method: "GET", path: "/v2/permissions", status: 200, body: JSON.stringify({ createShift: "yes" }), times: 1 })
      expect(await failureOf(client.getPermissions("203.0.113.7"))).toMatchObject({ code: "MALFORMED_RESPONSE", status: 200 })
      fault({ method: "GET", path: "/v2/shifts", status: 200, body: "null", times: 1 })
      expect(await failureOf(client.getShifts(["a"]))).toMatchObject({ code: "MALFORMED_RESPONSE", status: 200 })
      fault({ method: "POST", path: "/graphql", status: 200, body: JSON.stringify({ data: { createHook: { id: "h" } } }), times: 1 })
      expect(await failureOf(client.createHook("https://shop.example/hook"))).toMatchObject({ code: "MALFORMED_RESPONSE", status: 200 })
    })

    it("a number where a decimal string is required; a read recovers once the answer is right", async () => {
      const body = { min: 0.0001, max: "3", rate: "64000", depositCoin: "BTC", depositNetwork: "bitcoin", settleCoin: "ETH", settleNetwork: "ethereum" }
      fault({ method: "GET", path: "/v2/pair/*/*", status: 200, body: JSON.stringify(body), times: 3 })
      const failure = await failureOf(harness.client({ maxRetries: 2 }).getPair(BTC, ETH))
      expect(failure).toMatchObject({ code: "MALFORMED_RESPONSE", retryable: true })
      expect(failure.message).toMatch(/min/)
      expect(harness.upstream("GET", PAIR_PATH)).toHaveLength(3)
      expect((await harness.client().getPair(BTC, ETH)).min).toMatch(/^\d+(\.\d+)?$/)
    })

    it("a malformed answer to a variable shift is not retryable and not retried", async () => {
      fault({ method: "POST", path: "/v2/shifts/variable", status: 201, body: "{}", times: 1 })
      const failure = await failureOf(variableShift())
      expect(failure).toMatchObject({ status: 201, code: "MALFORMED_RESPONSE", retryable: false, userError: false })
      expect(harness.upstream("POST", /^\/v2\/shifts\/variable$/)).toHaveLength(1)
    })
  })

  describe("creations are retried only where a repeat cannot act twice", () => {
    it("sends a variable shift once despite a 502", async () => {
      fault({ method: "POST", path: "/v2/shifts/variable", status: 502, body: "<html>Bad gateway</html>", contentType: "text/html" })
      const failure = await failureOf(variableShift(harness.client({ maxRetries: 3 })))
      expect(failure).toMatchObject({ status: 502, retryable: true, operation: "createVariableShift" })
      expect(harness.upstream("POST", /^\/v2\/shifts\/variable$/)).toHaveLength(1)
    })

    it("sends a variable shift once despite a 500, a timeout or a reset", async () => {
      const client = harness.client({ timeoutMs: SHORT_TIMEOUT_MS, maxRetries: 3 })
      fault({ method: "POST", path: "/v2/shifts/variable", status: 500, times: 1 })
      expect(await failureOf(variableShift(client))).toMatchObject({ status: 500, retryable: true })
      fault({ method: "POST", path: "/v2/shifts/variable", reset: true, times: 1 })
      const reset = await failureOf(variableShift(client))
      expect(reset).toMatchObject({ code: "NETWORK_ERROR", retryable: true, notSent: false })
      // The request reached the service: it may have made the shift.
      expect(mayHaveActed(reset)).toBe(true)
      fault({ method: "POST", path: "/v2/shifts/variable", delayMs: LATE_ANSWER_MS, status: 201, body: "{}", times: 1 })
      expect(await failureOf(variableShift(client))).toMatchObject({ code: "TIMEOUT", retryable: true })
      expect(harness.upstream("POST", /^\/v2\/shifts\/variable$/)).toHaveLength(3)
    })

    it("sends a checkout once despite a 502", async () => {
      fault({ method: "POST", path: "/v2/checkout", status: 502 })
      const failure = await failureOf(harness.client({ maxRetries: 3 }).createCheckout(USDC_CHECKOUT, AS_END_USER))
      expect(failure).toMatchObject({ status: 502, retryable: true, operation: "createCheckout" })
      expect(harness.upstream("POST", /^\/v2\/checkout$/)).toHaveLength(1)
    })

    it("sends a refund address, a cancel and a hook once despite a 503", async () => {
      const client = harness.client({ maxRetries: 3 })
      for (const path of ["/v2/shifts/*/set-refund-address", "/v2/cancel-order", "/graphql"]) fault({ method: "POST", path, status: 503 })
      await failureOf(client.setRefundAddress("some-shift", { address: BTC_ADDRESS }))
      await failureOf(client.cancelOrder("some-shift"))
      await failureOf(client.createHook("https://shop.example/hook"))
      expect(statusesOf(harness.upstream("POST"))).toEqual([503, 503, 503])
    })

    it("retries a variable shift after a 429, which created nothing", async () => {
      fault({ method: "POST", path: "/v2/shifts/variable", status: 429, headers: { "Retry-After": "0" }, body: errorBody("Rate limit exceeded"), times: 1 })
      expect((await variableShift()).type).toBe("variable")
      expect(statusesOf(harness.upstream("POST", /^\/v2\/shifts\/variable$/))).toEqual([429, 201])
    })

    it("retries a quote (no side effect) after a 502", async () => {
      fault({ method: "POST", path: "/v2/quotes", status: 502, times: 1 })
      expect((await quote()).settleAmount).toBe("100")
      expect(statusesOf(harness.upstream("POST", /^\/v2\/quotes$/))).toEqual([502, 201])
    })
  })

  describe("a retried fixed shift never makes a second shift", () => {
    it("recovers the shift already made from the quote for the same request", async () => {
      const client = harness.client()
      const accepted = await quote(client)
      const request = { quote: accepted, settleAddress: EVM_ADDRESS, externalId: "session_1" }
      const first = await client.createFixedShift(request, AS_END_USER)
      const again = await client.createFixedShift(request, AS_END_USER)
      expect(again.id).toBe(first.id)
      expect(again).toMatchObject({ quoteId: accepted.id, externalId: "session_1" })
      // The service refused the second create and named the shift; the client read it back.
      expect(statusesOf(harness.upstream("POST", /^\/v2\/shifts\/fixed$/))).toEqual([201, 400])
      expect(harness.upstream("GET", SHIFT_PATH).map((read) => read.path)).toEqual([`/v2/shifts/${first.id}`])
    })

    it("does not adopt the shift made from the quote for another external id", async () => {
      const client = harness.client()
      const accepted = await quote(client)
      const first = await client.createFixedShift({ quote: accepted, settleAddress: EVM_ADDRESS, externalId: "session_1" }, AS_END_USER)
      const failure = await failureOf(client.createFixedShift({ quote: accepted, settleAddress: EVM_ADDRESS, externalId: "session_2" }, AS_END_USER))
      expect(failure).toMatchObject({ status: 400, code: "BAD_USER_INPUT", message: "Quote has already been accepted", orderId: first.id, operation: "createFixedShift" })
      expect(statusesOf(harness.upstream("POST", /^\/v2\/shifts\/fixed$/))).toEqual([201, 400])
    })

    it("retries after a 502 that created nothing", async () => {
      const client = harness.client()
      const accepted = await quote(client)
      fault({ method: "POST", path: "/v2/shifts/fixed", status: 502, times: 1 })
      const shift = await client.createFixedShift({ quote: accepted, settleAddress: EVM_ADDRESS }, AS_END_USER)
      expect(shift.quoteId).toBe(accepted.id)
      expect(statusesOf(harness.upstream("POST", /^\/v2\/shifts\/fixed$/))).toEqual([502, 201])
    })

    it("after an answer lost on the way back, returns the one shift the lost attempt made", async () => {
      const proxy = await startAnswerLosingProxy(harness.sandbox().baseUrl, (method, path) => method === "POST" && path === "/v2/shifts/fixed")
      try {
        const client = harness.client({ baseUrl: proxy.baseUrl })
        const accepted = await quote(client)
        const shift = await client.createFixedShift({ quote: accepted, settleAddress: EVM_ADDRESS, externalId: "session_1" }, AS_END_USER)
        expect(shift).toMatchObject({ quoteId: accepted.id, externalId: "session_1" })
        expect(statusesOf(harness.upstream("POST", /^\/v2\/shifts\/fixed$/))).toEqual([201, 400])
      } finally {
        await proxy.close()
      }
    })

    it("after a garbled answer, returns the one shift the first attempt made", async () => {
      const client = harness.client()
      const accepted = await quote(client)
      fault({ method: "POST", path: "/v2/shifts/fixed", status: 200, body: '{"id": "', afterHandling: true, times: 1 })
      const shift = await client.createFixedShift({ quote: accepted, settleAddress: EVM_ADDRESS, externalId: "session_1" }, AS_END_USER)
      expect(shift).toMatchObject({ quoteId: accepted.id, externalId: "session_1" })
      expect(statusesOf(harness.upstream("POST", /^\/v2\/shifts\/fixed$/))).toEqual([200, 400])
      expect(harness.sandbox().shifts()).toHaveLength(1)
    })

    it("after a timeout, still ends with exactly one shift", async () => {
      const client = harness.client({ timeoutMs: SHORT_TIMEOUT_MS })
      const accepted = await quote(client)
      fault({ method: "POST", path: "/v2/shifts/fixed", delayMs: LATE_ANSWER_MS, times: 1 })
      const shift = await client.createFixedShift({ quote: accepted, settleAddress: EVM_ADDRESS }, AS_END_USER)
      expect(shift.quoteId).toBe(accepted.id)
      expect(statusesOf(harness.upstream("POST", /^\/v2\/shifts\/fixed$/)).filter((status) => status === 201)).toHaveLength(1)
    })
  })

  describe("rules checked before any request", () => {
    it("never sends a quote that has expired on the service's clock", async () => {
      const sandbox = harness.sandbox()
      const client = harness.client({ now: () => sandbox.now() })
      const accepted = await quote(client)
      sandbox.advanceClock((Date.parse(accepted.expiresAt) - sandbox.now().getTime()) / 1000 + 1)
      const logged = sandbox.requests().length
      const failure = await failureOf(client.createFixedShift({ quote: accepted, settleAddress: EVM_ADDRESS }, AS_END_USER))
      expect(failure).toMatchObject({ code: "INVALID_REQUEST", userError: true, retryable: false, status: undefined, message: "Quote has already expired. Request a new quote." })
      expect(sandbox.requests()).toHaveLength(logged)
      // The service agrees: the same quote sent anyway is refused as expired.
      const sent = await failureOf(harness.client().createFixedShift({ quote: accepted, settleAddress: EVM_ADDRESS }, AS_END_USER))
      expect(sent).toMatchObject({ status: 400, message: "Quote has already expired. Request a new quote." })
    })

    it("refuses a settle memo for a network without memos when given the catalogue", async () => {
      const client = harness.client()
      const coins = await client.getCoins()
      const accepted = await quote(client)
      harness.sandbox().clearRequests()
      const memo = { settleAddress: EVM_ADDRESS, settleMemo: "123", coins }
      for (const refused of [
        client.createFixedShift({ quote: accepted, ...memo }, AS_END_USER),
        client.createVariableShift({ ...BTC_TO_USDC, ...memo }, AS_END_USER),
        client.createCheckout({ ...USDC_CHECKOUT, ...memo }, AS_END_USER),
      ]) {
        expect(await failureOf(refused)).toMatchObject({ code: "INVALID_REQUEST", userError: true })
      }
      expect(harness.upstream()).toHaveLength(0)
    })

    it("refuses a commission outside 0..2 percent, malformed amounts, quotes with both or no amount, and bad hook URLs", async () => {
      const client = harness.client()
      const refusals = [
        client.getPair(BTC, ETH, { commissionRatePercent: "2.5" }),
        client.getPairs([{ from: BTC, to: ETH }], { commissionRatePercent: "-1" }),
        client.getPair(BTC, ETH, { amount: "1e3" }),
        client.createQuote({ ...BTC_TO_USDC, depositAmount: "1", settleAmount: "1" } as never, AS_END_USER),
        client.createQuote({ ...BTC_TO_USDC } as never, AS_END_USER),
        client.createQuote({ ...BTC_TO_USDC, settleAmount: "12,5" }, AS_END_USER),
        client.createCheckout({ ...USDC_CHECKOUT, settleAmount: "ten" }),
        client.createHook("not a url"),
        client.createHook("ftp://shop.example/hook"),
      ]
      for (const refused of refusals) {
        expect(await failureOf(refused)).toMatchObject({ code: "INVALID_REQUEST", userError: true, retryable: false })
      }
      expect(harness.upstream()).toHaveLength(0)
    })
  })
})
