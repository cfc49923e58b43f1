import { MedusaError, serializeError } from "@medusajs/framework/utils"
import { asRateLimited, RATE_LIMITED, rateLimitedError, waitSeconds } from "../rate-limited"
import { SwapServiceError } from "../swap-service"
import { toMedusaError } from "../to-medusa-error"

const serviceRefusal = (retryAfterMs?: number) =>
  new SwapServiceError({ operation: "createFixedShift", kind: "response", status: 429, message: "Rate limit exceeded", retryAfterMs })

describe("the service's 429 for the shopper", () => {
  it("is a not_allowed error marked rate_limited, with the wait in the message and on the error", () => {
    const error = toMedusaError(serviceRefusal(30_000), "creating the crypto payment")
    expect(error).toBeInstanceOf(MedusaError)
    expect(error).toMatchObject({ type: MedusaError.Types.NOT_ALLOWED, code: RATE_LIMITED })
    expect(error.message).toBe("The crypto payment service is busy; please try again in 30 seconds.")
    expect(asRateLimited(error)).toEqual({ message: error.message, retryAfterSeconds: 30 })
  })

  it("waits a minute when the service names no wait, and rounds a wait up to whole seconds", () => {
    const unknown = toMedusaError(serviceRefusal(), "estimating the payment")
    expect(unknown.message).toBe("The crypto payment service is busy; please try again in a minute.")
    expect(asRateLimited(unknown)?.retryAfterSeconds).toBe(60)
    const short = toMedusaError(serviceRefusal(200), "estimating the payment")
    expect(short.message).toBe("The crypto payment service is busy; please try again in 1 second.")
    expect(asRateLimited(short)?.retryAfterSeconds).toBe(1)
    expect(waitSeconds(1_001)).toBe(2)
  })

  it("keeps its wait through the workflow engine's serialization of a step's error", () => {
    const serialized = JSON.parse(JSON.stringify(serializeError(toMedusaError(serviceRefusal(45_000), "requoting"))))
    expect(asRateLimited(serialized)).toEqual({ message: "The crypto payment service is busy; please try again in 45 seconds.", retryAfterSeconds: 45 })
  })

  it("is told apart from every other refusal", () => {
    expect(asRateLimited(new MedusaError(MedusaError.Types.NOT_ALLOWED, "Crypto payments are not available in your region."))).toBeUndefined()
    expect(asRateLimited(toMedusaError(new SwapServiceError({ operation: "getPair", kind: "response", status: 503, message: "down" }), "x"))).toBeUndefined()
    expect(asRateLimited(undefined)).toBeUndefined()
    expect(asRateLimited("rate_limited")).toBeUndefined()
    // A wait that is not a whole positive number of seconds is replaced by a minute.
    expect(asRateLimited({ ...rateLimitedError("busy", 5), retry_after_seconds: -3, code: RATE_LIMITED, message: "busy" })?.retryAfterSeconds).toBe(60)
  })
})
