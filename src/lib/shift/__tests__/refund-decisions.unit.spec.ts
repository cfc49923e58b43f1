import { parseOptions } from "../../options"
import { decideLedgerRow, decideShift } from "../ledger-fields"
import { planRefundShift } from "../shift-actions"

const options = parseOptions({
  baseUrl: "https://swap.example",
  graphqlUrl: "https://swap.example/graphql",
  payUrl: "https://pay.swap.example",
  accountId: "acct",
  privateKey: "secret-key-0123456789",
  settlement: { usd: { coin: "USDC", network: "ethereum", address: "0x1111111111111111111111111111111111111111" } },
})

describe("refund shifts", () => {
  it("read a settled refund shift as the shopper refunded, whatever the coin amount against the amount owed", () => {
    // 20 USD owed, paid out as a little BTC: as a payment this would be far "underpaid".
    const refund = { kind: "refund" as const, amount_due: "20" }
    expect(decideShift({ status: "settled", type: "variable", settleAmount: "0.0002" }, refund, options).stage).toBe("refunded")
    expect(decideShift({ status: "settled", type: "variable", settleAmount: "0.0002" }, { kind: "payment", amount_due: "20" }, options).stage).toBe("underpaid")
    expect(decideShift({ status: "waiting" }, refund, options).stage).toBe("awaiting_deposit")
    expect(
      decideLedgerRow({ ...refund, status: "settled", type: "variable", settle_amount: "0.0002", deposits: null }, options).stage
    ).toBe("refunded")
  })

  it("are made once their destination is known, and only then", () => {
    expect(planRefundShift({ status: "creating", refund_address: "bc1q", flags: null }).createRefundShift).toBe(true)
    expect(planRefundShift({ status: "address_needed", refund_address: null, flags: { address_needed: true } }).createRefundShift).toBe(false)
    expect(planRefundShift({ status: "paid_manually", refund_address: "bc1q", flags: null }).createRefundShift).toBe(false)
  })
})
