import { classifyFailure, parseRetryAfter, SwapServiceError, type Failure } from ".."

const response = (status: number, message = "Something", code?: string): Failure => ({ kind: "response", status, message, code })

describe("classifyFailure", () => {
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

  it("retries a malformed answer only where the call has no side effect", () => {
    expect(classifyFailure({ kind: "malformed", status: 200, message: "x", sideEffectFree: true })).toEqual({ retryable: true, userError: false })
    expect(classifyFailure({ kind: "malformed", status: 201, message: "x", sideEffectFree: false })).toEqual({ retryable: false, userError: false })
  })

  it("never retries GraphQL errors, and makes a refused request the user's", () => {
    expect(classifyFailure({ kind: "graphql", status: 200, message: "Account not found" })).toEqual({ retryable: false, userError: false })
    expect(classifyFailure({ kind: "invalid_request", message: "bad" })).toEqual({ retryable: false, userError: true })
  })
})

describe("SwapServiceError", () => {
  it("carries the classification and the service's details", () => {
    const error = new SwapServiceError({
      operation: "createQuote",
      kind: "response",
      status: 500,
      message: "Amount too low",
      depositRangeMin: "0.0001",
      depositRangeMax: "3.5",
    })
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
