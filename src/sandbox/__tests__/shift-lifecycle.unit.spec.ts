import BigNumber from "bignumber.js"
import { BTC_ADDRESS, useSandbox } from "./sandbox-client"

describe("sandbox shift statuses", () => {
  const client = useSandbox()

  /** Moves a shift through `statuses`, checking each read reflects the move. */
  async function walk(shiftId: string, statuses: string[]) {
    for (const status of statuses) {
      const reply = await client().setStatus(shiftId, status)
      expect(reply.status).toBe(200)
      expect((await client().shift(shiftId)).body.status).toBe(status)
    }
  }

  it("walks the happy path waiting -> pending -> processing -> settling -> settled with hashes and amounts", async () => {
    const shift = await client().fixedShift()
    const deposited = await client().deposit(shift.id)
    expect(deposited.body).toEqual(expect.objectContaining({ status: "pending", depositHash: expect.any(String), depositReceivedAt: expect.any(String) }))
    await walk(shift.id, ["processing", "settling"])
    const settling = (await client().shift(shift.id)).body
    expect(settling.settleHash).toMatch(/^0x[0-9a-f]{64}$/)
    await walk(shift.id, ["settled"])
    const settled = (await client().shift(shift.id)).body
    expect(settled).toEqual(expect.objectContaining({ status: "settled", settleAmount: "100", depositAmount: shift.depositAmount, settleHash: settling.settleHash }))
    expect(Date.parse(settled.updatedAt)).toBeGreaterThanOrEqual(Date.parse(settled.createdAt))
  })

  it("holds a shift in review with an issue, then settles or refunds it", async () => {
    const first = await client().fixedShift()
    await client().deposit(first.id)
    const review = await client().setStatus(first.id, "review", { issue: "rate drift" })
    expect(review.body).toEqual(expect.objectContaining({ status: "review", issue: "rate drift" }))
    await walk(first.id, ["settled"])

    const second = await client().fixedShift()
    await client().setStatus(second.id, "pending")
    await walk(second.id, ["processing", "review", "refund"])
    // Held without a stated reason, refunded for that same reason.
    expect((await client().shift(second.id)).body).toEqual(expect.objectContaining({ status: "refund", issue: "review" }))
  })

  it("refunds only once a refund address is set: refund -> refunding -> refunded with the refund hash in settleHash", async () => {
    const shift = await client().fixedShift()
    const wrongAmount = await client().deposit(shift.id, { amount: "0.0001" })
    expect(wrongAmount.body).toEqual(expect.objectContaining({ status: "refund", issue: "incorrect amount" }))

    const tooEarly = await client().setStatus(shift.id, "refunding")
    expect(tooEarly.status).toBe(409)
    expect(tooEarly.body.error.message).toMatch(/refund address/)

    const set = await client().post(`/v2/shifts/${shift.id}/set-refund-address`, { address: BTC_ADDRESS }, client().secretHeaders)
    expect(set.status).toBe(201)
    expect(set.body.refundAddress).toBe(BTC_ADDRESS)
    const again = await client().post(`/v2/shifts/${shift.id}/set-refund-address`, { address: BTC_ADDRESS }, client().secretHeaders)
    expect(again.status).toBe(400)

    await walk(shift.id, ["refunding", "refunded"])
    const refunded = (await client().shift(shift.id)).body
    expect(refunded.settleHash).toMatch(/^[0-9a-f]{64}$/)
  })

  it("accepts set-refund-address only in the refund status and checks the address", async () => {
    const shift = await client().fixedShift()
    const waiting = await client().post(`/v2/shifts/${shift.id}/set-refund-address`, { address: BTC_ADDRESS }, client().secretHeaders)
    expect(waiting.status).toBe(400)
    expect(waiting.body.error.message).toMatch(/refund/)
    await client().deposit(shift.id, { amount: "1" })
    const wrongNetwork = await client().post(`/v2/shifts/${shift.id}/set-refund-address`, { address: "0x52908400098527886E0F7030069857D2E4169EE7" }, client().secretHeaders)
    expect(wrongNetwork.status).toBe(400)
    expect((await client().post("/v2/shifts/nope/set-refund-address", { address: BTC_ADDRESS }, client().secretHeaders)).status).toBe(404)
  })

  it("expires a waiting fixed shift when the sandbox clock passes expiresAt; a late deposit is refunded", async () => {
    const shift = await client().fixedShift()
    await client().advanceClock(14 * 60)
    expect((await client().shift(shift.id)).body.status).toBe("waiting")
    await client().advanceClock(60)
    const expired = (await client().shift(shift.id)).body
    expect(expired.status).toBe("expired")
    expect(expired.updatedAt).toBe(shift.expiresAt)
    const late = await client().deposit(shift.id)
    expect(late.body).toEqual(expect.objectContaining({ status: "refund", issue: "order expired" }))
  })

  it("records several deposits as multiple: a fixed shift settles the first valid one and refunds the rest", async () => {
    const shift = await client().fixedShift()
    await client().deposit(shift.id)
    const second = await client().deposit(shift.id, { txid: "resweep-1" })
    expect(second.body.status).toBe("multiple")
    expect(second.body.deposits).toEqual([
      expect.objectContaining({ status: "pending", depositAmount: shift.depositAmount, settleAmount: "100" }),
      expect.objectContaining({ status: "refund", issue: "max 1 deposit", depositHash: "resweep-1" }),
    ])
    expect(second.body.depositHash).toBeUndefined()
    // Status changes go to the deposit still in progress, or the one named.
    await client().setStatus(shift.id, "processing")
    await client().setStatus(shift.id, "settling", { depositIndex: 0 })
    const read = (await client().shift(shift.id)).body
    expect(read.deposits.map((deposit: any) => deposit.status)).toEqual(["settling", "refund"])
  })

  it("swaps each deposit of a variable shift on its own, up to five", async () => {
    const shift = await client().variableShift()
    // A deposit is swapped at the rate of its time: what a quote for that amount offers.
    const quoted = (await client().quote({ settleAmount: null, depositAmount: "0.01" })).body
    const first = await client().deposit(shift.id, { amount: "0.01" })
    expect(first.body).toEqual(expect.objectContaining({ status: "pending", depositAmount: "0.01", settleAmount: quoted.settleAmount, rate: expect.any(String) }))
    for (let i = 0; i < 4; i++) {
      await client().deposit(shift.id, { amount: "0.01" })
    }
    const sixth = await client().deposit(shift.id, { amount: "0.01" })
    expect(sixth.body.status).toBe("multiple")
    expect(sixth.body.deposits).toHaveLength(6)
    expect(sixth.body.deposits[5]).toEqual(expect.objectContaining({ status: "refund", issue: "too many deposits" }))
  })

  it("holds a variable deposit under the minimum or over the maximum in review, which ends settled or refunded", async () => {
    // The spec is silent on a variable shift here; service-behaviour.md: review "amount out of range".
    const under = await client().variableShift()
    const small = await client().deposit(under.id, { amount: new BigNumber(under.depositMin).minus("0.00000001").toFixed() })
    expect(small.body).toEqual(expect.objectContaining({ status: "review", issue: "amount under min", settleAmount: expect.any(String) }))
    const settled = await client().setStatus(under.id, "settled")
    expect(settled.body).toEqual(expect.objectContaining({ status: "settled", issue: "amount under min", settleAmount: small.body.settleAmount }))

    const refused = await client().variableShift()
    await client().deposit(refused.id, { amount: new BigNumber(refused.depositMin).div(2).toFixed() })
    expect((await client().setStatus(refused.id, "refund")).body).toEqual(expect.objectContaining({ status: "refund", issue: "amount under min" }))

    // A deposit too small to pay the settle network's fee converts to nothing: a reviewer can only send it back.
    const dust = await client().variableShift()
    const nothing = await client().deposit(dust.id, { amount: "0.00000001" })
    expect(nothing.body).toEqual(expect.objectContaining({ status: "review", settleAmount: "0" }))
    const zero = await client().setStatus(dust.id, "settled")
    expect(zero.status).toBe(400)
    expect(zero.body.error.message).toBe("Nothing to settle: refund it, or release it with a settleAmount")

    const over = await client().variableShift()
    const large = await client().deposit(over.id, { amount: new BigNumber(over.depositMax).plus(1).toFixed() })
    expect(large.body).toEqual(expect.objectContaining({ status: "review", issue: "amount over max" }))

    const inRange = await client().variableShift()
    const middle = await client().deposit(inRange.id)
    expect(middle.body.status).toBe("pending")
    expect(new BigNumber(middle.body.depositAmount).gt(inRange.depositMin) && new BigNumber(middle.body.depositAmount).lt(inRange.depositMax)).toBe(true)
  })

  it("holds a late deposit to an expired or cancelled variable shift in review, released settled at the rate of its release", async () => {
    const expired = await client().variableShift()
    await client().advanceClock(7 * 24 * 3600 + 2 * 3600)
    expect((await client().shift(expired.id)).body.status).toBe("expired")
    const late = await client().deposit(expired.id)
    expect(late.body).toEqual(expect.objectContaining({ status: "review", issue: "order expired" }))
    expect((await client().shift(expired.id)).body).toEqual(expect.objectContaining({ status: "review", issue: "order expired" }))
    const released = await client().setStatus(expired.id, "settled", { settleAmount: "45" })
    expect(released.body).toEqual(expect.objectContaining({ status: "settled", settleAmount: "45" }))

    const cancelled = await client().variableShift()
    await client().advanceClock(5 * 60)
    expect((await client().post("/v2/cancel-order", { orderId: cancelled.id }, client().secretHeaders)).status).toBe(204)
    await client().advanceClock(2 * 3600)
    expect((await client().deposit(cancelled.id)).body).toEqual(expect.objectContaining({ status: "review", issue: "order expired" }))
    expect((await client().setStatus(cancelled.id, "refund")).body).toEqual(expect.objectContaining({ status: "refund", issue: "order expired" }))
  })

  it("settles a variable deposit released from review at the rate of its release, when told the amount, and nothing else", async () => {
    const shift = await client().variableShift()
    await client().deposit(shift.id)
    await client().setStatus(shift.id, "review", { issue: "rate drift" })
    const released = await client().setStatus(shift.id, "settled", { settleAmount: "45" })
    expect(released.body).toEqual(expect.objectContaining({ status: "settled", settleAmount: "45" }))
    expect(new BigNumber(released.body.rate).times(released.body.depositAmount).decimalPlaces(8).toFixed()).toBe("45")

    const fixed = await client().fixedShift()
    await client().deposit(fixed.id)
    await client().setStatus(fixed.id, "review")
    expect((await client().setStatus(fixed.id, "settled", { settleAmount: "45" })).status).toBe(400)
    const unreviewed = await client().variableShift()
    await client().deposit(unreviewed.id)
    expect((await client().setStatus(unreviewed.id, "processing", { settleAmount: "45" })).status).toBe(400)
  })

  it("refuses transitions the service cannot make with 409 and the allowed next statuses", async () => {
    const shift = await client().fixedShift()
    const skip = await client().setStatus(shift.id, "settled")
    expect(skip.status).toBe(409)
    expect(skip.body.error.allowed).toEqual(["pending", "expired"])
    await client().deposit(shift.id)
    const backwards = await client().setStatus(shift.id, "waiting")
    expect(backwards.status).toBe(409)
    expect(backwards.body.error.allowed).toEqual(["processing", "review", "refund"])
    await client().setStatus(shift.id, "processing")
    await client().setStatus(shift.id, "settling")
    const refundAfterSend = await client().setStatus(shift.id, "refund")
    expect(refundAfterSend.status).toBe(409)
    expect(refundAfterSend.body.error.allowed).toEqual(["settled"])
    expect((await client().setStatus(shift.id, "bogus")).status).toBe(400)
  })

  it("cancels a waiting order only after five minutes, which expires it", async () => {
    const shift = await client().fixedShift()
    const early = await client().post("/v2/cancel-order", { orderId: shift.id }, client().secretHeaders)
    expect(early.status).toBe(400)
    expect(early.body.error).toEqual({ message: "Orders can only be cancelled after 5 minutes.", code: "BAD_USER_INPUT" })
    await client().advanceClock(5 * 60)
    const cancelled = await client().post("/v2/cancel-order", { orderId: shift.id }, client().secretHeaders)
    expect(cancelled.status).toBe(204)
    expect(cancelled.text).toBe("")
    expect((await client().shift(shift.id)).body.status).toBe("expired")
    const again = await client().post("/v2/cancel-order", { orderId: shift.id }, client().secretHeaders)
    expect(again.status).toBe(400)
    expect(again.body.error.message).toBe("Order already expired")
    expect((await client().post("/v2/cancel-order", { orderId: "unknown" }, client().secretHeaders)).status).toBe(404)
  })

  it("can expire a waiting shift through the control interface", async () => {
    const shift = await client().variableShift()
    expect((await client().setStatus(shift.id, "expired")).body.status).toBe("expired")
  })

  it("reads one shift (404 Order not found when unknown) and several at once without credentials", async () => {
    const a = await client().fixedShift()
    const b = await client().variableShift()
    const missing = await client().shift("0000")
    expect(missing.status).toBe(404)
    expect(missing.body.error.message).toBe("Order not found")
    const bulk = await client().get(`/v2/shifts?ids=${a.id},unknown,${b.id}`, {})
    expect(bulk.status).toBe(200)
    expect(bulk.body.map((shift: any) => shift.id)).toEqual([a.id, b.id])
  })
})
