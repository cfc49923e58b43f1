import { BigNumber } from "@medusajs/framework/utils"
import { shortOfCartTotal } from "../cart-total"

describe("shortOfCartTotal", () => {
  it("finds a session asking less than its cart's total by the currency's smallest unit or more", () => {
    // 49.99 plus 20 % tax applied after the session: the total is shown as the shopper would pay it, rounded up.
    expect(shortOfCartTotal("49.99", { total: "59.988", currency_code: "USD" })).toEqual({ paid: "49.99", total: "59.99", currency: "USD" })
    expect(shortOfCartTotal("49.99", { total: "50", currency_code: "USD" })).toEqual({ paid: "49.99", total: "50", currency: "USD" })
    expect(shortOfCartTotal(new BigNumber(1000), { total: new BigNumber(1001), currency_code: "JPY" })).toEqual({ paid: "1000", total: "1001", currency: "JPY" })
    expect(shortOfCartTotal("10.5", { total: "10.501", currency_code: "KWD" })).toEqual({ paid: "10.5", total: "10.501", currency: "KWD" })
  })

  it("takes a total's own precision for no shortfall: Medusa keeps every digit of a computed total, and rounds the collection's", () => {
    // 15 EUR with 19 % tax included, as Medusa's cart totals compute it; the collection holds 15.
    expect(shortOfCartTotal("15", { total: new BigNumber("15.0000000000000000000052"), currency_code: "EUR" })).toBeUndefined()
    expect(shortOfCartTotal("59.995", { total: "59.995", currency_code: "USD" })).toBeUndefined()
    expect(shortOfCartTotal("100", { total: "100.4", currency_code: "JPY" })).toBeUndefined()
    expect(shortOfCartTotal("60", { total: "59.99", currency_code: "USD" })).toBeUndefined()
    expect(shortOfCartTotal("49.99", { total: "50", currency_code: "???" })).toEqual({ paid: "49.99", total: "50", currency: "???" })
    expect(shortOfCartTotal(undefined, { total: "50", currency_code: "USD" })).toBeUndefined()
  })
})
