import { shiftSchema } from "../../swap-service/schemas"
import { ledgerFieldsFromShift } from "../ledger-fields"

const shift = (fields: Record<string, unknown>) =>
  shiftSchema.parse({
    id: "eth-shift",
    createdAt: "2026-11-22T10:00:00.000Z",
    type: "fixed",
    status: "waiting",
    depositCoin: "ETH",
    depositNetwork: "ethereum",
    settleCoin: "USDC",
    settleNetwork: "ethereum",
    settleAddress: "0x52908400098527886E0F7030069857D2E4169EE7",
    depositAmount: "0.0201",
    settleAmount: "49.99",
    ...fields,
  })

describe("ledgerFieldsFromShift", () => {
  const row = {
    shift_id: "eth-shift",
    type: "checkout",
    deposit_address: "0xKEPT",
    refund_address: "0xREFUND",
    refund_memo: null,
  }

  it("keeps the deposit address and the shopper's refund address of the same shift", () => {
    const fields = ledgerFieldsFromShift(shift({ depositAddress: null }), row)
    expect(fields).toMatchObject({ type: "checkout", deposit_address: "0xKEPT", refund_address: "0xREFUND" })
  })

  it("keeps a refund shift's destination, the shopper's address, not the merchant's fallback the shift carries", () => {
    const refundShift = shift({ settleCoin: "BTC", settleAddress: "bc1qSHOPPER", refundAddress: "0xMERCHANT" })
    expect(ledgerFieldsFromShift(refundShift, { kind: "refund", refund_address: "bc1qSHOPPER", refund_memo: null })).toMatchObject({
      refund_address: "bc1qSHOPPER",
    })
    expect(ledgerFieldsFromShift(refundShift, { kind: "refund" })).toMatchObject({ refund_address: "bc1qSHOPPER" })
  })

  it("carries nothing over from another shift of a hosted checkout (the payer switched coins)", () => {
    const fields = ledgerFieldsFromShift(shift({ id: "sol-shift", depositCoin: "SOL", depositNetwork: "solana", depositAddress: "So1NEW" }), row)
    expect(fields).toMatchObject({
      shift_id: "sol-shift",
      type: "checkout",
      deposit_coin: "SOL",
      deposit_address: "So1NEW",
      refund_address: null,
    })
  })

  it("takes a checkout row's first shift as its own", () => {
    const fields = ledgerFieldsFromShift(shift({ depositAddress: "0xNEW" }), { ...row, shift_id: null, deposit_address: null, refund_address: null })
    expect(fields).toMatchObject({ shift_id: "eth-shift", type: "checkout", deposit_address: "0xNEW" })
  })
})
