import { BTC_ADDRESS, useSandbox } from "./sandbox-client"

// cancel-order and set-refund-address: what the account (not the shopper's order page) may do to a shift.

describe("sandbox order actions", () => {
  const client = useSandbox()

  it("requires the secret on cancel-order and names the header when it is missing or unusable", async () => {
    const shift = await client().fixedShift()
    await client().advanceClock(5 * 60)
    const missing = await client().post("/v2/cancel-order", { orderId: shift.id }, {})
    expect(missing.status).toBe(401)
    expect(missing.body.error.message).toContain("x-service-secret")
    const example = await client().post("/v2/cancel-order", { orderId: shift.id }, { "x-service-secret": "<PRIVATE_KEY>" })
    expect(example.status).toBe(401)
    expect(example.body.error.message).toContain("x-service-secret")
    expect((await client().shift(shift.id)).body.status).toBe("waiting")
    expect((await client().post("/v2/cancel-order", { orderId: shift.id }, client().secretHeaders)).status).toBe(204)
  })

  it("requires the secret on set-refund-address and answers 201 with the shift", async () => {
    const shift = await client().fixedShift()
    await client().deposit(shift.id, { amount: "0.0001" })
    const missing = await client().post(`/v2/shifts/${shift.id}/set-refund-address`, { address: BTC_ADDRESS }, {})
    expect(missing.status).toBe(401)
    expect(missing.body.error.message).toContain("x-service-secret")
    const set = await client().post(`/v2/shifts/${shift.id}/set-refund-address`, { address: BTC_ADDRESS }, client().secretHeaders)
    expect(set.status).toBe(201)
    expect(set.body).toEqual(expect.objectContaining({ id: shift.id, status: "refund", refundAddress: BTC_ADDRESS }))
  })

  it("lets only the account that created a shift cancel it or set its refund address", async () => {
    const shift = await client().fixedShift()
    await client().advanceClock(5 * 60)
    const other = (await client().post("/create-account", {}, {})).body
    const asOther = { "x-service-secret": other.secret }
    const cancel = await client().post("/v2/cancel-order", { orderId: shift.id }, asOther)
    expect(cancel.status).toBe(404)
    expect(cancel.body.error.message).toBe("Order not found")
    await client().deposit(shift.id, { amount: "0.0001" })
    const refund = await client().post(`/v2/shifts/${shift.id}/set-refund-address`, { address: BTC_ADDRESS }, asOther)
    expect(refund.status).toBe(404)
    expect((await client().shift(shift.id)).body.refundAddress).toBeUndefined()
  })

  it("moves expiresAt to the moment of cancellation", async () => {
    const shift = await client().variableShift()
    await client().advanceClock(6 * 60)
    const now = (await client().get("/sandbox/clock", {})).body.now
    expect((await client().post("/v2/cancel-order", { orderId: shift.id }, client().secretHeaders)).status).toBe(204)
    const cancelled = (await client().shift(shift.id)).body
    expect(cancelled.status).toBe("expired")
    expect(Date.parse(cancelled.expiresAt)).toBeGreaterThanOrEqual(Date.parse(now))
    expect(Date.parse(cancelled.expiresAt)).toBeLessThan(Date.parse(now) + 1000)
    expect(cancelled.updatedAt).toBe(cancelled.expiresAt)
  })
})
