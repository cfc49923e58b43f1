import { PaymentSessionStatus } from "@medusajs/framework/utils"
import { decideStatus, sentBackInFull, STAGE_OF_STATUS, type StatusPolicy } from "../status-map"

const policy = (overrides: Partial<StatusPolicy> = {}): StatusPolicy => ({
  authorizeOn: "confirmed",
  placeOrder: "after_payment",
  amountDue: "100",
  underpaymentTolerancePercent: "0",
  overpaymentTolerancePercent: "1",
  ...overrides,
})

const { PENDING, PENDING_AUTHORIZATION, AUTHORIZED, CAPTURED, ERROR, CANCELED } = PaymentSessionStatus

describe("status map", () => {
  // Every status of service-behaviour.md, under each authorizeOn setting (placeOrder: after_payment).
  const table: Array<[string, { detected: string; confirmed: string; settled: string }]> = [
    ["waiting", { detected: PENDING, confirmed: PENDING, settled: PENDING }],
    ["pending", { detected: AUTHORIZED, confirmed: PENDING, settled: PENDING }],
    ["processing", { detected: AUTHORIZED, confirmed: AUTHORIZED, settled: PENDING }],
    ["settling", { detected: AUTHORIZED, confirmed: AUTHORIZED, settled: PENDING }],
    ["settled", { detected: CAPTURED, confirmed: CAPTURED, settled: CAPTURED }],
    ["review", { detected: PENDING, confirmed: PENDING, settled: PENDING }],
    ["refund", { detected: ERROR, confirmed: ERROR, settled: ERROR }],
    ["refunding", { detected: ERROR, confirmed: ERROR, settled: ERROR }],
    ["refunded", { detected: ERROR, confirmed: ERROR, settled: ERROR }],
    ["expired", { detected: CANCELED, confirmed: CANCELED, settled: CANCELED }],
    ["some-new-status", { detected: PENDING, confirmed: PENDING, settled: PENDING }],
  ]

  it.each(table)("maps %s for every authorizeOn", (status, expected) => {
    for (const authorizeOn of ["detected", "confirmed", "settled"] as const) {
      expect(decideStatus({ status, type: "fixed" }, policy({ authorizeOn })).session).toBe(expected[authorizeOn])
    }
  })

  it("covers every known service status in the table", () => {
    expect(Object.keys(STAGE_OF_STATUS).sort()).toEqual(
      ["expired", "pending", "processing", "refund", "refunded", "refunding", "review", "settled", "settling", "waiting"].sort()
    )
  })

  it("answers pending_authorization before payment when the order is placed first", () => {
    for (const status of ["waiting", "pending", "review", "unknown-thing"]) {
      expect(decideStatus({ status }, policy({ placeOrder: "before_payment" })).session).toBe(PENDING_AUTHORIZATION)
    }
    expect(decideStatus({ status: "processing" }, policy({ placeOrder: "before_payment" })).session).toBe(AUTHORIZED)
    expect(decideStatus({ status: "refund" }, policy({ placeOrder: "before_payment" })).session).toBe(ERROR)
  })

  it("keeps an unknown status as it is and never authorizes on it", () => {
    const decision = decideStatus({ status: "quantum" }, policy({ authorizeOn: "detected" }))
    expect(decision).toMatchObject({ stage: "unknown", session: PENDING, action: "pending", effectiveStatus: "quantum" })
  })

  it("gives webhook actions matching the session status", () => {
    expect(decideStatus({ status: "settled" }, policy()).action).toBe("captured")
    expect(decideStatus({ status: "processing" }, policy()).action).toBe("authorized")
    expect(decideStatus({ status: "refunded" }, policy()).action).toBe("failed")
    expect(decideStatus({ status: "expired" }, policy()).action).toBe("canceled")
    expect(decideStatus({ status: "waiting" }, policy()).action).toBe("pending")
  })

  describe("variable shifts against the amount due", () => {
    it("captures when the settled amount covers the amount due", () => {
      const decision = decideStatus({ status: "settled", type: "variable", settleAmount: "100.000001" }, policy())
      expect(decision).toMatchObject({ stage: "settled", session: CAPTURED, settledAmount: "100.000001" })
    })

    it("fails an underpayment beyond the tolerance", () => {
      const decision = decideStatus({ status: "settled", type: "variable", settleAmount: "98.9" }, policy({ underpaymentTolerancePercent: "1" }))
      expect(decision).toMatchObject({ stage: "underpaid", session: ERROR })
    })

    it("judges a deposit on its way by what the service says it will settle, before anything is authorized", () => {
      const short = decideStatus({ status: "processing", type: "variable", settleAmount: "3.12" }, policy())
      expect(short).toMatchObject({ stage: "underpaid", session: ERROR, expectedAmount: "3.12" })
      expect(decideStatus({ status: "pending", type: "variable", settleAmount: "100" }, policy())).toMatchObject({ stage: "deposit_detected" })
      // Without the service's figure, the deposit at its rate: 0.05 x 2000 = 100 covers 100.
      expect(decideStatus({ status: "processing", type: "variable", depositAmount: "0.05", rate: "2000" }, policy())).toMatchObject({
        stage: "deposit_confirmed",
        session: AUTHORIZED,
        expectedAmount: "100",
      })
      expect(decideStatus({ status: "processing", type: "variable", depositAmount: "0.04", rate: "2000" }, policy()).stage).toBe("underpaid")
      // Nothing to judge yet: not authorized until the service says what the deposit is worth.
      expect(decideStatus({ status: "processing", type: "variable" }, policy())).toMatchObject({ stage: "deposit_confirmed", session: PENDING })
      // A fixed shift's amount is the quote's: never judged.
      expect(decideStatus({ status: "processing", type: "fixed", settleAmount: "3.12" }, policy()).stage).toBe("deposit_confirmed")
    })

    it("says how much was paid too much, beyond the overpayment tolerance", () => {
      expect(decideStatus({ status: "settled", type: "variable", settleAmount: "120" }, policy()).excessAmount).toBe("20")
      expect(decideStatus({ status: "settled", type: "variable", settleAmount: "101" }, policy()).excessAmount).toBeUndefined()
    })

    it("counts the credit (settled top-ups, an accepted shortfall) with the shift's own money", () => {
      const short = { status: "settled", type: "variable", settleAmount: "40" }
      expect(decideStatus(short, policy({ credit: "60" }))).toMatchObject({ stage: "settled", session: CAPTURED, settledAmount: "40" })
      expect(decideStatus(short, policy({ credit: "59.99" }))).toMatchObject({ stage: "underpaid", session: ERROR })
      // Paid too much in all: the excess is what all of it brought above the amount due.
      expect(decideStatus(short, policy({ credit: "80" })).excessAmount).toBe("20")
      // A shortfall the merchant accepted is no money: the rest paid later is not paid too much.
      expect(decideStatus({ ...short, settleAmount: "50" }, policy({ credit: "60", forgiven: "60" })).excessAmount).toBeUndefined()
      expect(decideStatus({ ...short, settleAmount: "150" }, policy({ credit: "60", forgiven: "60" })).excessAmount).toBe("50")
      // On its way, with the top-ups settled: authorized once the deposit is known to cover the rest.
      expect(decideStatus({ status: "processing", type: "variable", settleAmount: "40" }, policy({ credit: "60" })).session).toBe(AUTHORIZED)
    })

    it("captures a fixed shift only when what it settled covers the amount due: a quote honoured short is no payment in full", () => {
      expect(decideStatus({ status: "settled", type: "fixed", settleAmount: "100" }, policy())).toMatchObject({ stage: "settled", session: CAPTURED })
      expect(decideStatus({ status: "settled", type: "fixed", settleAmount: "99.99" }, policy())).toMatchObject({ stage: "underpaid", session: ERROR })
    })

    it("captures nothing on a variable shift settled without saying what it settled", () => {
      expect(decideStatus({ status: "settled", type: "variable" }, policy({ credit: "100" }))).toMatchObject({ stage: "unknown", session: PENDING })
    })

    it("accepts an underpayment within the tolerance", () => {
      const decision = decideStatus({ status: "settled", type: "variable", settleAmount: "99" }, policy({ underpaymentTolerancePercent: "1" }))
      expect(decision.session).toBe(CAPTURED)
    })
  })

  describe("multiple deposits", () => {
    it("holds nothing once every deposit went back to its sender", () => {
      expect(sentBackInFull({ status: "refunded" })).toBe(true)
      expect(sentBackInFull({ status: "refunding" })).toBe(false)
      expect(sentBackInFull({ status: "multiple", deposits: [{ status: "refunded", depositHash: "0xa" }, { status: "refunded", depositHash: "0xb" }] })).toBe(true)
      expect(sentBackInFull({ status: "multiple", deposits: [{ status: "refunded", depositHash: "0xa" }, { status: "refund", depositHash: "0xb" }] })).toBe(false)
      expect(sentBackInFull({ status: "multiple", deposits: [{ status: "refunded", depositHash: "0xa" }, { status: "settled", depositHash: "0xb" }] })).toBe(false)
    })

    it("settles a fixed shift on its first valid deposit; later ones are the service's to refund", () => {
      const shift = {
        status: "multiple",
        type: "fixed",
        deposits: [
          { status: "settled", depositHash: "0xa", settleAmount: "100" },
          { status: "refund", depositHash: "0xb", issue: "max 1 deposit" },
        ],
      }
      expect(decideStatus(shift, policy())).toMatchObject({ session: CAPTURED, effectiveStatus: "settled" })
    })

    it("treats a re-swept EVM deposit as one payment", () => {
      const shift = {
        status: "multiple",
        type: "variable",
        deposits: [
          { status: "settled", depositHash: "0xa", settleAmount: "100" },
          { status: "settled", depositHash: "0xa", settleAmount: "100" },
          { status: "settled", depositHash: "0xc", settleAmount: "100", issue: "duplicate" },
        ],
      }
      expect(decideStatus(shift, policy())).toMatchObject({ session: CAPTURED, settledAmount: "100" })
      // A sweep under a new hash that lists the same payout is still one payment, not one paid twice.
      const swept = [
        { status: "settled", depositHash: "0xa", settleHash: "0xpay", settleAmount: "100" },
        { status: "settled", depositHash: "0xd", settleHash: "0xpay", settleAmount: "100" },
      ]
      expect(decideStatus({ ...shift, deposits: swept }, policy())).toMatchObject({ settledAmount: "100" })
      expect(decideStatus({ ...shift, deposits: swept }, policy()).excessAmount).toBeUndefined()
    })

    it("adds up a variable shift's deposits and waits for the slowest", () => {
      const deposits = [
        { status: "settled", depositHash: "0xa", settleAmount: "60" },
        { status: "processing", depositHash: "0xb" },
      ]
      // What the second deposit is worth is not known yet: nothing is authorized on the first one alone.
      expect(decideStatus({ status: "multiple", type: "variable", deposits }, policy())).toMatchObject({
        session: PENDING,
        effectiveStatus: "processing",
      })
      const priced = [deposits[0], { ...deposits[1], settleAmount: "40" }]
      expect(decideStatus({ status: "multiple", type: "variable", deposits: priced }, policy())).toMatchObject({
        session: AUTHORIZED,
        expectedAmount: "100",
      })
      const short = [deposits[0], { ...deposits[1], settleAmount: "30" }]
      expect(decideStatus({ status: "multiple", type: "variable", deposits: short }, policy()).stage).toBe("underpaid")
      const settled = deposits.map((d, i) => ({ ...d, status: "settled", settleAmount: i ? "40" : "60" }))
      expect(decideStatus({ status: "multiple", type: "variable", deposits: settled }, policy())).toMatchObject({
        session: CAPTURED,
        settledAmount: "100",
      })
    })

    it("judges a settled deposit without its figure by its deposit at its rate, else not at all", () => {
      const first = { status: "settled", depositHash: "0xa", settleAmount: "100" }
      const again = { status: "settled", depositHash: "0xb", settleHash: "0xpay2" }
      // Counting the second as nothing would take a shopper's second payment as no payment at all.
      // The figures known cover the amount due: captured on them, the rest judged once its figure comes.
      const unpriced = decideStatus({ status: "multiple", type: "variable", settleAmount: "100", deposits: [first, again] }, policy())
      expect(unpriced).toMatchObject({ session: CAPTURED, settledAmount: "100" })
      expect(unpriced.excessAmount).toBeUndefined()
      // Short on what is known: neither captured nor underpaid until the service says.
      const short = decideStatus({ status: "multiple", type: "variable", deposits: [{ ...first, settleAmount: "60" }, again] }, policy())
      expect(short).toMatchObject({ stage: "unknown", settledAmount: undefined })
      expect(short.session).not.toBe(CAPTURED)
      const none = decideStatus({ status: "multiple", type: "variable", deposits: [{ ...first, settleAmount: undefined }, again] }, policy())
      expect(none).toMatchObject({ stage: "unknown", settledAmount: undefined })
      const rated = [first, { ...again, depositAmount: "0.001", rate: "80000" }]
      expect(decideStatus({ status: "multiple", type: "variable", deposits: rated }, policy())).toMatchObject({
        session: CAPTURED,
        settledAmount: "180",
        excessAmount: "80",
      })
    })

    it("fails when every deposit is being refunded", () => {
      const deposits = [{ status: "refunding", depositHash: "0xa" }, { status: "refunded", depositHash: "0xb" }]
      expect(decideStatus({ status: "multiple", type: "fixed", deposits }, policy()).session).toBe(ERROR)
    })
  })
})
