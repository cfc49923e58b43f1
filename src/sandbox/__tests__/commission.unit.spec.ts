import BigNumber from "bignumber.js"
import { useSandbox } from "./sandbox-client"

// Without a commissionRate the service applies its default commission of 0.5 percent, on pairs,
// quotes and shifts alike: "no value" must never price like 0.

const USDC_DECIMALS = 6

describe("sandbox commission", () => {
  const client = useSandbox()
  const pairRate = async (query = "") =>
    (await client().get(`/v2/pair/btc-bitcoin/usdc-ethereum?affiliateId=${client().account.id}${query}`)).body.rate as string

  it("prices a pair without commissionRate like the default 0.5 percent, not like 0", async () => {
    const none = await pairRate()
    const zero = await pairRate("&commissionRate=0")
    expect(none).toBe(await pairRate("&commissionRate=0.5"))
    expect(none).toBe(new BigNumber(zero).times("0.995").toFixed())
  })

  it("applies the same commission to quotes as to the pair rate", async () => {
    const rate = await pairRate()
    const fee = (await client().variableShift()).settleCoinNetworkFee
    const quote = await client().quote({ settleAmount: null, depositAmount: "0.01" })
    const expected = new BigNumber("0.01").times(rate).minus(fee).decimalPlaces(USDC_DECIMALS, BigNumber.ROUND_DOWN)
    expect(quote.body.settleAmount).toBe(expected.toFixed())
  })

  it("applies the same commission to the deposits of variable shifts", async () => {
    const rate = await pairRate()
    const shift = await client().variableShift()
    const deposited = (await client().deposit(shift.id, { amount: "0.01" })).body
    const expected = new BigNumber("0.01").times(rate).minus(shift.settleCoinNetworkFee).decimalPlaces(USDC_DECIMALS, BigNumber.ROUND_DOWN)
    expect(deposited.settleAmount).toBe(expected.toFixed())
  })
})
