import fc from "fast-check"
import BigNumberJS from "bignumber.js"
import { decideStatus, type StatusPolicy } from "../status-map"
import { planShiftActions } from "../shift-actions"
import { missingAmount, paymentClosed, underpaymentWindowEnd } from "../underpayment"
import { addDecimals, lessPercent } from "../../money"
import { propertyParams } from "../../../../integration-tests/helpers/property-runs"
import { freshPayment } from "./ledger-row-fixture"

const params = (name: string, numRuns: number) => propertyParams(`underpayment ${name}`, numRuns)

/** Amounts as the service writes them: up to 6 decimals (the settle coin's), never floats. */
const amount = (max: number) => fc.integer({ min: 1, max: max * 1_000_000 }).map((micros) => new BigNumberJS(micros).shiftedBy(-6).toFixed())
const deposit = fc.record({
  status: fc.constantFrom("pending", "processing", "settling", "settled", "refund", "refunded"),
  settleAmount: fc.option(amount(600), { nil: undefined }),
  depositHash: fc.hexaString({ minLength: 8, maxLength: 8 }),
})
const policyOf = (amountDue: string, tolerance: string, credit: string | null): StatusPolicy => ({
  authorizeOn: "detected",
  placeOrder: "after_payment",
  amountDue,
  underpaymentTolerancePercent: tolerance,
  overpaymentTolerancePercent: "1",
  credit,
})
const row = freshPayment

describe("underpayment properties", () => {
  it("no sequence of deposits and top-ups authorizes or captures a payment whose money is below the floor", () => {
    fc.assert(
      fc.property(
        amount(500),
        fc.constantFrom("0", "0.5", "2"),
        fc.array(deposit, { minLength: 1, maxLength: 5 }),
        fc.array(amount(300), { maxLength: 3 }),
        (amountDue, tolerance, deposits, topUps) => {
          const credit = topUps.length ? addDecimals(...topUps) : null
          const shift = deposits.length === 1 ? { type: "variable", ...deposits[0] } : { type: "variable", status: "multiple", deposits }
          const decision = decideStatus(shift, policyOf(amountDue, tolerance, credit))
          const plan = planShiftActions({ ...row, amount_due: amountDue }, shift, decision, true)
          if (!plan.authorize && !plan.capture) return
          // Only money the service has priced counts (a deposit it has not priced counts as nothing), and the settled top-ups'.
          const valid = deposits.filter((d) => !["refund", "refunded"].includes(d.status))
          const own = addDecimals("0", ...valid.map((d) => d.settleAmount ?? "0"))
          const floor = lessPercent(amountDue, tolerance)
          expect(new BigNumberJS(own).plus(credit ?? "0").gte(floor)).toBe(true)
          if (plan.capture) expect(valid.every((d) => d.status === "settled")).toBe(true)
        }
      ),
      params("floor", 500)
    )
  })

  it("what is missing and what is paid too much add up exactly to what arrived, never more", () => {
    fc.assert(
      fc.property(amount(500), amount(600), fc.array(amount(300), { maxLength: 3 }), (amountDue, settled, topUps) => {
        const credit = topUps.length ? addDecimals(...topUps) : null
        const received = addDecimals(settled, credit ?? "0")
        const decision = decideStatus({ type: "variable", status: "settled", settleAmount: settled }, policyOf(amountDue, "0", credit))
        const missing = missingAmount(amountDue, received)
        if (decision.stage === "underpaid") {
          expect(new BigNumberJS(missing!).plus(received).toFixed()).toBe(new BigNumberJS(amountDue).toFixed())
          expect(decision.excessAmount).toBeUndefined()
        } else {
          expect(missing).toBeNull()
        }
        if (decision.excessAmount) {
          // The refund of an overpayment is the excess alone: what arrived less the amount due.
          expect(new BigNumberJS(decision.excessAmount).plus(amountDue).toFixed()).toBe(new BigNumberJS(received).toFixed())
          expect(new BigNumberJS(decision.excessAmount).lte(received)).toBe(true)
        }
      }),
      params("exact", 500)
    )
  })
})

describe("the wait for a top-up", () => {
  const since = "2026-11-25T10:00:00.000Z"

  it("starts when the payment is judged short and again from each top-up", () => {
    expect(underpaymentWindowEnd({ underpaid: "10", underpaid_since: since }, 60)?.toISOString()).toBe("2026-11-25T11:00:00.000Z")
    expect(underpaymentWindowEnd({ underpaid: "10", underpaid_since: since, top_up_at: "2026-11-25T10:30:00.000Z" }, 60)?.toISOString()).toBe(
      "2026-11-25T11:30:00.000Z"
    )
  })

  it("ends once it was settled, held, accepted or refunded instead; an admin's refund still lets it end, so its top-ups go back too", () => {
    for (const decided of [{ underpayment_settled: "refund" }, { underpaid_held: true }, { accepted_short: "5" }, { refund_instead: { by: "user_1" } }]) {
      expect(underpaymentWindowEnd({ underpaid: "10", underpaid_since: since, ...decided }, 60)).toBeNull()
    }
    expect(underpaymentWindowEnd({ underpaid: "10", underpaid_since: since, held_refund: "held_csshift_1" }, 60)).not.toBeNull()
    expect(underpaymentWindowEnd({ underpaid: null, underpaid_since: null }, 60)).toBeNull()
  })

  it("is planned once it ran out, for a settled short payment only", () => {
    const short = { type: "variable", status: "settled", settleAmount: "20" }
    const decision = decideStatus(short, policyOf("50", "0", null))
    const at = new Date("2026-11-25T11:00:01.000Z")
    const flags = { underpaid: "20", underpaid_since: since }
    expect(planShiftActions({ ...row, amount_due: "50", flags, underpayment_wait_minutes: 60 }, short, decision, false, at).settleUnderpayment).toBe(true)
    expect(planShiftActions({ ...row, amount_due: "50", flags, underpayment_wait_minutes: 120 }, short, decision, false, at).settleUnderpayment).toBe(false)
    const inFlight = { type: "variable", status: "processing", settleAmount: "20" }
    expect(
      planShiftActions({ ...row, amount_due: "50", flags, underpayment_wait_minutes: 60 }, inFlight, decideStatus(inFlight, policyOf("50", "0", null)), false, at)
        .settleUnderpayment
    ).toBe(false)
  })

  it("tells that a payment arrived short once its deposit is confirmed, not while the service may still send it back", () => {
    const tell = (status: string) => {
      const shift = { type: "variable", status, settleAmount: "20" }
      return planShiftActions({ ...row, amount_due: "50" }, shift, decideStatus(shift, policyOf("50", "0", null)), true).events
    }
    // Under the minimum, held for review (hours), or pending: it may yet go back, and no top-up is taken meanwhile.
    expect(tell("review")).not.toContain("crypto-swap.shift.underpaid")
    expect(tell("pending")).not.toContain("crypto-swap.shift.underpaid")
    expect(tell("processing")).toContain("crypto-swap.shift.underpaid")
    expect(tell("settled")).toContain("crypto-swap.shift.underpaid")
  })

  it("says no more that a payment is short once everything it received went back", () => {
    const flags = { underpaid: "20", underpaid_since: since }
    for (const shift of [
      { type: "variable", status: "refunded" },
      { type: "variable", status: "multiple", deposits: [{ status: "refunded", depositHash: "0xa" }, { status: "refunded", depositHash: "0xb" }] },
    ]) {
      const plan = planShiftActions({ ...row, amount_due: "50", flags }, shift, decideStatus(shift, policyOf("50", "0", null)), true)
      expect({ underpaid: plan.flags.underpaid, since: plan.flags.underpaid_since }).toEqual({ underpaid: null, since: null })
    }
  })

  it("credits a settled top-up to its payment once", () => {
    const topUp = { ...row, kind: "top_up" as const, amount_due: "30" }
    const settled = { type: "fixed", status: "settled", settleAmount: "30" }
    const decision = decideStatus(settled, policyOf("30", "0", null))
    expect(planShiftActions(topUp, settled, decision, true).creditTopUp).toBe(true)
    expect(planShiftActions({ ...topUp, captured_at: new Date() }, settled, decision, false).creditTopUp).toBe(false)
    // A top-up is no payment of its own: nothing is authorized, captured or canceled for it.
    expect(planShiftActions(topUp, settled, decision, true)).toMatchObject({ authorize: false, capture: false, cancelExpired: false })
  })
})

describe("a payment that takes no more money", () => {
  const waiting = { status: "settled", flags: { underpaid: "25" } }
  it("is closed once its order was placed or canceled, never while it only waits for the rest", () => {
    expect(paymentClosed(waiting)).toBe(false)
    expect(paymentClosed({ ...waiting, authorized_at: new Date() })).toBe(true)
    // An order placed before payment and canceled: a top-up for it is refunded, never credited.
    expect(paymentClosed({ ...waiting, order_canceled_at: new Date() })).toBe(true)
  })
})
