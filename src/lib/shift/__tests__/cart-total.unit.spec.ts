import { BigNumber } from "@medusajs/framework/utils"
import { shortOfCartTotal } from "../cart-total"

describe("shortOfCartTotal", () => {
  it("finds a session asking less than its cart's total by the currency's smallest unit or more", () => {
    // 49.99 plus 20 % tax applied after the session: the total is shown as the shopper would pay it, rounded up.
    expect(shortOfCartTotal("49.99", "59.988", "USD")).toEqual({ paid: "49.99", total: "59.99" })
    expect(shortOfCartTotal("49.99", "50", "USD")).toEqual({ paid: "49.99", total: "50" })
    expect(shortOfCartTotal(new BigNumber(1000), new BigNumber(1001), "JPY")).toEqual({ paid: "1000", total: "1001" })
    expect(shortOfCartTotal("10.5", "10.501", "KWD")).toEqual({ paid: "10.5", total: "10.501" })
  })

  it("takes a total's own precision for no shortfall: Medusa keeps every digit of a computed total, and rounds the collection's", () => {
    // 15 EUR with 19 % tax included, as Medusa's cart totals compute it; the collection holds 15.
    expect(shortOfCartTotal("15", new BigNumber("15.0000000000000000000052"), "EUR")).toBeUndefined()
    expect(shortOfCartTotal("59.995", "59.995", "USD")).toBeUndefined()
    expect(shortOfCartTotal("100", "100.4", "JPY")).toBeUndefined()
    expect(shortOfCartTotal("60", "59.99", "USD")).toBeUndefined()
    expect(shortOfCartTotal("49.99", "50", "???")).toEqual({ paid: "49.99", total: "50" })
    expect(shortOfCartTotal(undefined, "50", "USD")).toBeUndefined()
  })
})
