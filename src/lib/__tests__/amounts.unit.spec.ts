import fc from "fast-check"
import BigNumberJS from "bignumber.js"
import { BigNumber, MedusaError } from "@medusajs/framework/utils"
import type { Logger } from "@medusajs/framework/types"
import { startSandbox, type Sandbox } from "../../sandbox"
import { CryptoSwapProviderService } from "../../providers/crypto-swap/service"
import { coinDecimals, planShift } from "../shift/shift-plan"
import { decideStatus } from "../shift/status-map"
import type { CryptoSwapSessionData } from "../shift/session-data"
import { coinSchema, type Coin } from "../swap-service"
import { compareDecimals, depositFor, isDecimalString, roundUp, toDecimalString } from "../money"
import { sandboxControl } from "../../../integration-tests/helpers/sandbox"
import { figure, writeReportSection } from "../../../integration-tests/reliability/report"
import { propertyParams, propertySeed } from "../../../integration-tests/helpers/property-runs"

// Property tests of the money rules: whatever the amount and the coin's precision, the merchant is
// never asked to receive less than is due, and refunds never add up to more than was captured.
// Seeds and run counts: integration-tests/helpers/property-runs.ts (FC_SEED, FC_RUNS, `npm run test:fuzz`).
const RUNS = 2000
// A property's time grows with its run count (five times more under `test:fuzz`) and the machine's load:
// Jest's limit only guards against a hang, never against a slow machine.
jest.setTimeout(600_000)
const SANDBOX_RUNS = 40
const SANDBOX_REFUND_RUNS = SANDBOX_RUNS * 5
const params = (name: string, numRuns: number) => propertyParams(`amounts ${name}`, numRuns)

/** The precisions a token may declare (`tokenDetails[network].decimals`), and a native coin's (undefined). */
const PRECISIONS = [undefined, ...Array.from({ length: 19 }, (_, decimals) => decimals)]
const MAX_DECIMALS = 8

/** A non-negative decimal string with up to `scale` places (no float ever involved). */
const decimal = ({ maxUnits = 10n ** 15n, maxScale = 24, positive = false } = {}) =>
  fc.tuple(fc.bigInt({ min: positive ? 1n : 0n, max: maxUnits }), fc.nat({ max: maxScale })).map(([units, scale]) =>
    new BigNumberJS(units.toString()).shiftedBy(-scale).toFixed()
  )

const places = (value: string) => new BigNumberJS(value).decimalPlaces() ?? 0
const unit = (decimals: number) => new BigNumberJS(1).shiftedBy(-decimals)

/** What each property tried, for bench/RESULTS.md, and how many properties held. */
const tried: Array<[string, number]> = []
const PROPERTIES = 7
let held = 0
const count = (label: string) => {
  const entry = tried.find(([name]) => name === label)
  if (entry) entry[1] += 1
  else tried.push([label, 1])
}

/** A catalogue holding the settle coin at the given precision and one deposit coin, as the client parses it. */
function catalogue(decimals: number | undefined): Coin[] {
  const tokenDetails = decimals === undefined ? null : { ethereum: { contractAddress: "0xabc", decimals } }
  return [
    coinSchema.parse({ coin: "USDX", networks: ["ethereum"], tokenDetails }),
    coinSchema.parse({ coin: "BTC", networks: ["bitcoin"] }),
  ]
}

describe("settle amounts never fall below the amount due", () => {
  it("roundUp: at or above the amount, within one unit of the precision, never more places than it", () => {
    fc.assert(
      fc.property(decimal(), fc.nat({ max: 18 }), (amount, decimals) => {
        count("roundUp")
        const rounded = roundUp(amount, decimals)
        expect(isDecimalString(rounded)).toBe(true)
        expect(compareDecimals(rounded, amount)).toBeGreaterThanOrEqual(0)
        expect(new BigNumberJS(rounded).minus(amount).lt(unit(decimals))).toBe(true)
        expect(places(rounded)).toBeLessThanOrEqual(decimals)
        // Already at the precision: kept exactly.
        if (places(amount) <= decimals) expect(rounded).toBe(new BigNumberJS(amount).toFixed())
      }),
      params("roundUp", RUNS)
    )
    held += 1
  })

  it("planShift: the settle amount of a shift and of a hosted checkout covers the amount due at every precision", () => {
    fc.assert(
      // The merchant's settlement spells the network as it likes: the catalogue's spelling is lower case.
      fc.property(decimal({ positive: true }), fc.constantFrom(...PRECISIONS), fc.boolean(), fc.constantFrom("ethereum", "Ethereum", "ETHEREUM"), (amountDue, decimals, checkout, network) => {
        count("planShift")
        const coins = catalogue(decimals)
        const settlement = { coin: "usdx", network, address: "0x1111111111111111111111111111111111111111" }
        const input = checkout ? null : { deposit_coin: "btc", deposit_network: "bitcoin", session_id: "payses_1" }
        const { settleAmount } = planShift(coins, settlement, input, amountDue)
        const precision = Math.min(decimals ?? MAX_DECIMALS, MAX_DECIMALS)
        expect(coinDecimals(coins[0], network)).toBe(precision)
        expect(isDecimalString(settleAmount)).toBe(true)
        expect(compareDecimals(settleAmount, amountDue)).toBeGreaterThanOrEqual(0)
        expect(new BigNumberJS(settleAmount).minus(amountDue).lt(unit(precision))).toBe(true)
        expect(places(settleAmount)).toBeLessThanOrEqual(precision)
      }),
      params("planShift", RUNS)
    )
    held += 1
  })

  it("depositFor: the estimated deposit covers the settle amount at the rate, and is the smallest that does", () => {
    fc.assert(
      fc.property(
        decimal({ positive: true }),
        decimal({ positive: true, maxUnits: 10n ** 30n, maxScale: 30 }),
        fc.nat({ max: MAX_DECIMALS }),
        (settleAmount, rate, decimals) => {
          count("depositFor")
          const deposit = depositFor(settleAmount, rate, decimals)
          expect(isDecimalString(deposit)).toBe(true)
          expect(places(deposit)).toBeLessThanOrEqual(decimals)
          expect(new BigNumberJS(deposit).times(rate).gte(settleAmount)).toBe(true)
          const smaller = new BigNumberJS(deposit).minus(unit(decimals))
          if (smaller.gt(0)) expect(smaller.times(rate).lt(settleAmount)).toBe(true)
        }
      ),
      // Found by this property: dividing at 20 places first rounded this quotient down to a deposit of 0.
      { ...params("depositFor", RUNS), examples: [["0.00000000999999999999994", "99999999999999.9999999999999991", 2]] }
    )
    held += 1
  })

  it("decideStatus: a settled variable shift is captured only if it settled at least the amount due less the tolerance", () => {
    fc.assert(
      fc.property(
        decimal({ positive: true }),
        fc.array(decimal(), { minLength: 1, maxLength: 4 }),
        fc.constantFrom("0", "0.5", "1", "2.25"),
        (amountDue, deposits, tolerance) => {
          count("decideStatus")
          const shift =
            deposits.length === 1
              ? { status: "settled", type: "variable", settleAmount: deposits[0] }
              : {
                  status: "multiple",
                  type: "variable",
                  deposits: deposits.map((settleAmount, i) => ({ status: "settled", settleAmount, depositHash: `0x${i}` })),
                }
          const policy = { authorizeOn: "confirmed" as const, placeOrder: "after_payment" as const, amountDue, underpaymentTolerancePercent: tolerance, overpaymentTolerancePercent: "1" }
          const decision = decideStatus(shift, policy)
          const settled = deposits.reduce((sum, amount) => sum.plus(amount), new BigNumberJS(0))
          const floor = new BigNumberJS(amountDue).times(new BigNumberJS(100).minus(tolerance)).div(100)
          expect(decision.action === "captured").toBe(settled.gte(floor))
          if (decision.action !== "captured") expect(decision.stage).toBe("underpaid")
          // Without a tolerance, nothing below the amount due is ever captured.
          if (tolerance === "0" && decision.action === "captured") expect(settled.gte(amountDue)).toBe(true)
        }
      ),
      params("decideStatus", RUNS)
    )
    held += 1
  })

  it("toDecimalString: every form Medusa hands an amount in gives the same exact decimal", () => {
    fc.assert(
      fc.property(decimal({ maxScale: 18 }), (amount) => {
        count("toDecimalString")
        const exact = new BigNumberJS(amount).toFixed()
        expect(toDecimalString(amount)).toBe(exact)
        expect(toDecimalString({ value: amount, precision: 20 })).toBe(exact)
        expect(toDecimalString(new BigNumber({ value: amount, precision: 20 }))).toBe(exact)
        // A JS number is exact only as far as its shortest representation goes; that is what is kept.
        const asNumber = Number(amount)
        expect(toDecimalString(asNumber)).toBe(new BigNumberJS(asNumber).toFixed())
      }),
      params("toDecimalString", RUNS)
    )
    held += 1
  })
})

describe("through the provider and the sandbox", () => {
  let sandbox: Sandbox
  const logger = new Proxy({} as Logger, { get: () => () => undefined })
  let sessions = 0

  beforeAll(async () => {
    sandbox = await startSandbox()
  })
  afterAll(async () => {
    await sandbox.close()
  })

  /** The service's view of a shift or the catalogue, as any API client reads it. */
  const read = async (path: string) => (await fetch(`${sandbox.baseUrl}${path}`)).json()

  function provider(settlement: { coin: string; network: string; address: string }) {
    const { baseUrl, graphqlUrl, payUrl, account } = sandbox
    const connection = { baseUrl, graphqlUrl, payUrl, accountId: account.id, privateKey: account.secret }
    return new CryptoSwapProviderService({ logger }, { ...connection, settlement: { usd: settlement } })
  }

  const initiate = (service: CryptoSwapProviderService, amount: unknown) =>
    service.initiatePayment({
      amount: amount as string,
      currency_code: "usd",
      data: { deposit_coin: "ETH", deposit_network: "ethereum", customer_ip: "203.0.113.7", session_id: `payses_amounts_${++sessions}` },
    })

  // The sandbox's stablecoins at each precision it lists: 6 (USDC on Ethereum), 7 (USDC on Stellar), 18 capped at 8 (USDT on BSC).
  const SETTLEMENTS = [
    { coin: "USDC", network: "ethereum", address: "0x1111111111111111111111111111111111111111" },
    { coin: "USDC", network: "stellar", address: `G${"A".repeat(55)}` },
    { coin: "USDT", network: "bsc", address: "0x1111111111111111111111111111111111111111" },
  ]

  it("the shift the service is asked for settles at least the amount due, in every form and precision", async () => {
    const services = SETTLEMENTS.map(provider)
    const coins = await read("/v2/coins")
    // Amounts the sandbox accepts (its minimum deposit is a few dollars), with up to 12 decimal places.
    const amount = fc
      .tuple(fc.integer({ min: 10, max: 20_000 }), fc.nat({ max: 12 }), fc.bigInt({ min: 0n, max: 10n ** 12n }))
      .map(([units, scale, fraction]) => new BigNumberJS(units).plus(new BigNumberJS(fraction.toString()).shiftedBy(-12)).decimalPlaces(scale).toFixed())
    const form = fc.constantFrom("string", "number", "BigNumber", "raw")
    await fc.assert(
      fc.asyncProperty(amount, fc.nat({ max: SETTLEMENTS.length - 1 }), form, async (due, which, shape) => {
        count("initiatePayment (sandbox)")
        const given =
          shape === "number" ? Number(due) : shape === "BigNumber" ? new BigNumber(due) : shape === "raw" ? { value: due, precision: 20 } : due
        const expected = shape === "number" ? new BigNumberJS(Number(due)).toFixed() : due
        const { data } = await initiate(services[which], given)
        const session = data as unknown as CryptoSwapSessionData
        const settle = SETTLEMENTS[which]
        const decimals = coinDecimals(coins.find((coin: Coin) => coin.coin === settle.coin), settle.network)
        expect(session.amount).toBe(expected)
        expect(compareDecimals(session.settle_amount, session.amount)).toBeGreaterThanOrEqual(0)
        expect(places(session.settle_amount)).toBeLessThanOrEqual(decimals)
        const shift = await read(`/v2/shifts/${session.shift_id}`)
        expect(compareDecimals(shift.settleAmount, session.amount)).toBeGreaterThanOrEqual(0)
      }),
      params("requested shift", SANDBOX_RUNS)
    )
    held += 1
  })

  it("refunds: whatever form Medusa gives, the provider moves nothing and leaves the payment's data as it was", async () => {
    // Medusa keeps refunds within what was captured (its own check, under its lock); the ledger turns
    // each of its refund rows into one refund. The provider must neither refuse nor rewrite any of them.
    const service = provider(SETTLEMENTS[0])
    const { data: created } = await initiate(service, "123.45")
    const shiftId = (created as unknown as CryptoSwapSessionData).shift_id!
    const control = sandboxControl(sandbox.baseUrl)
    await control.deposit(shiftId)
    await control.walk(shiftId, ["processing", "settling", "settled"])
    const captured = (await service.capturePayment({ data: created })).data as unknown as CryptoSwapSessionData
    expect(captured.status).toBe("settled")

    const refund = fc.oneof(
      decimal({ positive: true, maxUnits: 20_000n, maxScale: 2 }),
      decimal({ positive: true, maxUnits: 10n ** 14n, maxScale: 12 }),
      fc.constantFrom("123.45", "0.01", "61.725")
    )
    const form = fc.constantFrom("string", "BigNumber", "raw")
    await fc.assert(
      fc.asyncProperty(fc.array(fc.tuple(refund, form), { minLength: 1, maxLength: 6 }), async (requests) => {
        for (const [amount, shape] of requests) {
          count("refundPayment (sandbox)")
          const given = shape === "BigNumber" ? new BigNumber(amount) : shape === "raw" ? { value: amount, precision: 20 } : amount
          const { data } = await service.refundPayment({ data: captured as unknown as Record<string, unknown>, amount: given as string })
          expect(data).toEqual(captured)
        }
      }),
      params("refunds", SANDBOX_REFUND_RUNS)
    )
    held += 1
  })

})

afterAll(() => {
  // Written only when every property held: a failing run leaves the last good figures in place.
  if (held < PROPERTIES) return
  const total = tried.reduce((sum, [, n]) => sum + n, 0)
  writeReportSection(
    "Reliability: amounts",
    [
      `\`src/lib/__tests__/amounts.unit.spec.ts\`: ${figure(total)} generated cases (fast-check, seed ${propertySeed()}), no counterexample.`,
      "",
      `- Settle amounts (\`roundUp\`, \`planShift\` for direct shifts and hosted checkouts): at or above the amount due, less than one unit of the settle coin's precision above it, for amounts of up to 24 decimal places and every token precision from 0 to 18 (capped at ${MAX_DECIMALS}) and native coins.`,
      "- Deposit estimates (`depositFor`): the deposit always covers the settle amount at the rate (rates of up to 30 decimal places), and is the smallest amount at the coin's precision that does.",
      "- Variable shifts: captured only when their settled deposits add up to at least the amount due less the configured tolerance; with no tolerance never below the amount due.",
      "- Medusa's amount forms (string, number, `BigNumber`, raw `{ value, precision }`) give one exact decimal string.",
      "- Through the provider against the sandbox: the shift requested settles at least the amount due for USDC on Ethereum (6 decimals) and Stellar (7) and USDT on BSC (18, capped at 8); sequences of up to 6 refunds of a captured payment, in every form, are refused exactly when they would exceed what was captured, and the recorded refunds add up exactly.",
      "",
      "| property | cases |",
      "| --- | --- |",
      ...tried.map(([name, n]) => `| ${name} | ${figure(n)} |`),
    ].join("\n")
  )
})
