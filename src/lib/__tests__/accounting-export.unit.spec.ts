import { csvField, exportLine, type LedgerMovement } from "../accounting-export"

describe("csvField", () => {
  it("quotes a field with a comma, quote or line break, doubling its quotes", () => {
    expect(csvField("plain")).toBe("plain")
    expect(csvField('a,"b"')).toBe('"a,""b"""')
    expect(csvField("line\nbreak")).toBe('"line\nbreak"')
    expect(csvField(null)).toBe("")
  })

  it("keeps a spreadsheet from running a text as a formula, and leaves amounts, negative ones too, as numbers", () => {
    expect(csvField("=HYPERLINK(\"http://evil\")")).toBe("\"'=HYPERLINK(\"\"http://evil\"\")\"")
    expect(csvField("+1+1")).toBe("'+1+1")
    expect(csvField("@SUM(A1)")).toBe("'@SUM(A1)")
    expect(csvField("-2+3")).toBe("'-2+3")
    expect(csvField("\tcmd")).toBe("'\tcmd")
    expect(csvField("-1.25")).toBe("-1.25")
    expect(csvField("0.001")).toBe("0.001")
    expect(csvField(-3)).toBe("-3")
  })
})

describe("exportLine", () => {
  const movement = (row: Partial<LedgerMovement>): LedgerMovement => ({
    id: "csshift_1", kind: "payment", shift_id: "s1", order_id: "order_1", order_display_id: 1001, refund_id: null, refund_of_shift_id: null,
    status: "settled", attention: null, created_at: "2026-11-01T00:00:00.000Z", captured_at: "2026-11-01T00:10:00.000Z", expires_at: null,
    type: "variable", amount_due: "100", currency_code: "usd", deposit_coin: "ETH", deposit_network: "ethereum", deposit_amount: "0.02",
    deposit_hash: null, settle_coin: "USDC", settle_network: "ethereum", settle_amount: "100", settle_hash: null, rate: "5000",
    credit: null, accepted_short: null, refund_cost_asked: null, ...row,
  })

  it("judges a settled payment with its top-ups, and a top-up as part of its payment's line", () => {
    expect(exportLine(movement({ settle_amount: "99.5" })).difference).toBe("-0.5")
    // Paid 50 on its own and 52 through a top-up credited to it: 2 above the 100 due, not 50 short.
    expect(exportLine(movement({ settle_amount: "50", credit: "52" })).difference).toBe("2")
    expect(exportLine(movement({ kind: "top_up", settle_amount: "52", amount_due: "50" })).difference).toBeNull()
    // A shortfall the merchant accepted is counted in the credit, but was never received.
    expect(exportLine(movement({ settle_amount: "90", credit: "10", accepted_short: "10" })).difference).toBe("-10")
    expect(exportLine(movement({ kind: "refund", settle_amount: "0.001" })).difference).toBeNull()
    // What the ledger counts besides the line's own columns is not exported.
    expect(exportLine(movement({ credit: "52" }))).not.toHaveProperty("credit")
  })
})
