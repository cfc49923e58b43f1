import type { SwapServiceClient } from "../../swap-service"
import { depositEstimate, openShift } from "../open-shift"

const settlement = { coin: "USDC", network: "ethereum", address: "0x1111111111111111111111111111111111111111" }
const plan = { type: "fixed" as const, depositCoin: "BTC", depositNetwork: "bitcoin", settleAmount: "100" }

/** A client whose quote settles `settleAmount` whatever was asked; it records the shifts it is asked to make. */
function quoting(settleAmount: string) {
  const made: unknown[] = []
  const client = {
    createQuote: async (request: { settleAmount: string }) => ({ id: "quote-1", settleAmount, depositAmount: "0.0015", rate: "66666.66", request }),
    createFixedShift: async (request: unknown) => {
      made.push(request)
      return { id: "shift-1" }
    },
  } as unknown as SwapServiceClient
  return { client, made }
}

describe("openShift", () => {
  it("makes the fixed shift of a quote that settles what was asked", async () => {
    const { client, made } = quoting("100")
    await expect(openShift(client, plan, settlement, { externalId: "payses_1" })).resolves.toMatchObject({ id: "shift-1" })
    expect(made).toHaveLength(1)
  })

  it("makes no shift of a quote that settles less than the amount due: the merchant would be paid short", async () => {
    const { client, made } = quoting("99.99")
    await expect(openShift(client, plan, settlement, { externalId: "payses_1" })).rejects.toThrow(/quoted 99.99 USDC for the 100 asked/)
    expect(made).toEqual([])
  })
})

describe("depositEstimate", () => {
  const coins = [{ coin: "ETH", networks: ["zksync"], tokenDetails: {} }] as never
  const variable = { type: "variable" as const, depositCoin: "ETH", depositNetwork: "zksync", settleAmount: "2" }
  /** A pair whose rate makes a small payment's deposit far below the service's smallest. */
  const pairOf = (min: string) => ({ getPair: async () => ({ rate: "3000", min, max: "10" }) }) as unknown as SwapServiceClient

  it("asks for what pays the amount at the pair's rate, with the margin", async () => {
    expect(await depositEstimate(pairOf("0.0001"), coins, variable, settlement, undefined, () => {})).toBe("0.00067334")
  })

  it("never asks for less than the service's smallest deposit, which would sit in review and go back", async () => {
    expect(await depositEstimate(pairOf("0.00125"), coins, variable, settlement, undefined, () => {})).toBe("0.00125")
  })
})
