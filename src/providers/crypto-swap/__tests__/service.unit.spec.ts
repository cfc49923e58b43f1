import BigNumberJS from "bignumber.js"
import { BigNumber, MedusaError } from "@medusajs/framework/utils"
import type { Logger } from "@medusajs/framework/types"
import { startSandbox, type Sandbox } from "../../../sandbox"
import { SHIFT_CREATED_EVENT } from "../../../lib/shift/plugin-events"
import { CryptoSwapProviderService } from "../service"
import type { CryptoSwapOptionsInput } from "../../../lib/options"
import { OBSERVATION_MAX_AGE_MS, withSyncObservation } from "../../../lib/shift/sync-observation"
import type { Shift } from "../../../lib/swap-service"

const SETTLE_ADDRESS = "0x1111111111111111111111111111111111111111"
const BTC_REFUND = "bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq"
const XRP_ADDRESS = "rPT1Sjq2YGrBMTttX4GZHjKu9dyfzbpAYe"

let sandbox: Sandbox
const logged: string[] = []
const logger = new Proxy({} as Logger, {
  get: () => (...args: unknown[]) => logged.push(args.map(String).join(" ")),
})

beforeAll(async () => {
  sandbox = await startSandbox()
})
afterAll(async () => {
  await sandbox.close()
})
afterEach(async () => {
  await control("DELETE", "/sandbox/faults")
})

async function control(method: string, path: string, body?: unknown) {
  const response = await fetch(`${sandbox.baseUrl}${path}`, {
    method,
    headers: { "content-type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  })
  if (!response.ok) throw new Error(`${method} ${path}: ${response.status} ${await response.text()}`)
  const text = await response.text()
  return text ? JSON.parse(text) : undefined
}

const walk = async (shiftId: string, statuses: string[]) => {
  for (const status of statuses) await control("POST", `/sandbox/shifts/${shiftId}/status`, { status })
}
const deposit = (shiftId: string, body: Record<string, unknown> = {}) =>
  control("POST", `/sandbox/shifts/${shiftId}/deposit`, body)

function provider(overrides: Partial<CryptoSwapOptionsInput> = {}, eventBus?: { emit: jest.Mock }) {
  return new CryptoSwapProviderService(
    { logger, event_bus: eventBus as never },
    {
      baseUrl: sandbox.baseUrl,
      graphqlUrl: sandbox.graphqlUrl,
      payUrl: sandbox.payUrl,
      accountId: sandbox.account.id,
      privateKey: sandbox.account.secret,
      settlement: { usd: { coin: "USDC", network: "ethereum", address: SETTLE_ADDRESS } },
      checkout: { successUrl: "https://shop.test/done", cancelUrl: "https://shop.test/cart" },
      ...overrides,
    }
  )
}

let sessions = 0
async function initiate(service: CryptoSwapProviderService, data: Record<string, unknown>, amount: unknown = "25.5") {
  sessions += 1
  return service.initiatePayment({
    amount: amount as string,
    currency_code: "usd",
    data: { customer_ip: "203.0.113.7", session_id: `payses_${sessions}`, ...data },
  })
}

async function medusaError(promise: Promise<unknown>): Promise<MedusaError> {
  const error = await promise.then(
    () => {
      throw new Error("expected a MedusaError")
    },
    (e: unknown) => e
  )
  expect(error).toBeInstanceOf(MedusaError)
  return error as MedusaError
}

describe("validateOptions", () => {
  const valid = {
    baseUrl: "https://swap.test",
    graphqlUrl: "https://swap.test/graphql",
    payUrl: "https://pay.swap.test",
    accountId: "acc",
    privateKey: "super-secret-key",
    settlement: { usd: { coin: "USDC", network: "ethereum", address: SETTLE_ADDRESS } },
  }

  it("accepts a complete configuration", () => {
    expect(() => CryptoSwapProviderService.validateOptions(valid)).not.toThrow()
  })

  it("names the wrong key and never echoes a value", () => {
    const attempt = (options: Record<string, unknown>) => () => CryptoSwapProviderService.validateOptions(options)
    expect(attempt({ ...valid, privateKey: "" })).toThrow(/`privateKey`/)
    expect(attempt({ ...valid, commissionRate: "2.5" })).toThrow(/`commissionRate` must be a decimal number from 0 to 2/)
    expect(attempt({ ...valid, settlement: { USD: valid.settlement.usd } })).toThrow(/`settlement.USD`/)
    expect(attempt({ ...valid, mode: "checkout" })).toThrow(/`checkout`/)
    expect(attempt({ ...valid, baseUrl: "super-secret-key" })).not.toThrow(/super-secret-key/)
  })
})

describe("initiatePayment", () => {
  it("fixes the settle amount to the amount due, rounded up to the settle coin's precision", async () => {
    const result = await initiate(provider(), { deposit_coin: "btc", deposit_network: "bitcoin" }, "10.1234567")
    expect(result.status).toBe("pending")
    expect(result.data).toMatchObject({
      mode: "shift",
      shift_type: "fixed",
      amount: "10.1234567",
      settle_coin: "USDC",
      settle_amount: "10.123457",
      deposit_coin: "BTC",
      status: "waiting",
    })
    expect(result.id).toBe(result.data!.shift_id)
  })

  it("normalises Medusa's BigNumber amounts", async () => {
    const fromObject = await initiate(provider(), { deposit_coin: "ETH", deposit_network: "ethereum" }, new BigNumber(12.5))
    expect(fromObject.data!.amount).toBe("12.5")
    const fromRaw = await initiate(provider(), { deposit_coin: "ETH", deposit_network: "ethereum" }, { value: "7.25", precision: 20 })
    expect(fromRaw.data!.amount).toBe("7.25")
  })

  it("takes the variable flow where the catalogue demands it and shows the range", async () => {
    const coins = await control("GET", "/v2/coins")
    const variableOnly = coins.find((coin: any) => Array.isArray(coin.depositVariableOnly) && coin.depositVariableOnly.length)
    const network = variableOnly.depositVariableOnly[0]
    const result = await initiate(provider(), { deposit_coin: variableOnly.coin, deposit_network: network }, "150")
    expect(result.data).toMatchObject({ shift_type: "variable", settle_amount: "150" })
    expect(result.data!.deposit_min).toEqual(expect.any(String))
    expect(result.data!.deposit_max).toEqual(expect.any(String))
  })

  it("creates a hosted checkout in checkout mode", async () => {
    const result = await initiate(provider({ mode: "checkout" }), { deposit_coin: "BTC", deposit_network: "bitcoin" })
    expect(result.data).toMatchObject({ mode: "checkout", settle_amount: "25.5", status: "waiting" })
    expect(result.data!.pay_url).toBe(`${sandbox.payUrl}/checkout/${result.data!.checkout_id}`)
    const checkout = await control("GET", `/v2/checkout/${result.data!.checkout_id}`)
    expect(new URL(checkout.successUrl).searchParams.get("crypto_swap_session")).toBe(result.data!.session_id)
  })

  it("refuses a hosted checkout settling on a memo network without a memo, before calling the service", async () => {
    const xrp = { coin: "XRP", network: "ripple", address: XRP_ADDRESS }
    const BTC = { deposit_coin: "BTC", deposit_network: "bitcoin" }
    await control("DELETE", "/sandbox/requests")
    const untagged = await medusaError(initiate(provider({ mode: "checkout", settlement: { usd: xrp } }), BTC))
    expect(untagged.type).toBe(MedusaError.Types.UNEXPECTED_STATE)
    expect(untagged.message).toBe("Crypto payments are misconfigured: XRP on ripple takes a memo (tag), but the settlement has none.")
    expect((await control("GET", "/sandbox/requests")).filter((r: any) => r.path !== "/v2/coins")).toHaveLength(0)

    const tagged = await initiate(provider({ mode: "checkout", settlement: { usd: { ...xrp, memo: "12345" } } }), BTC)
    expect(tagged.data).toMatchObject({ mode: "checkout", settle_coin: "XRP", checkout_id: expect.any(String) })
    // A shift's settle memo is optional (spec 2.3 rule 3): shift mode still settles there without one,
    // and says once in the log that an exchange's deposit address would need its tag.
    const shifts = provider({ settlement: { usd: xrp } })
    logged.length = 0
    for (let i = 0; i < 2; i += 1) {
      expect((await initiate(shifts, BTC)).data).toMatchObject({ mode: "shift", settle_coin: "XRP", shift_id: expect.any(String) })
    }
    expect(logged.filter((line) => line.includes("settles XRP on ripple without a memo"))).toHaveLength(1)
  })

  it("follows the checkout's paid shift when the payer switched coins, keeping nothing of the shift before", async () => {
    const service = provider({ mode: "checkout" })
    const { data } = await initiate(service, { deposit_coin: "BTC", deposit_network: "bitcoin" })
    // The payer picks a coin on the pay page: a new shift, listed first in the checkout's `orders`.
    const pick = async (coinNetwork: string) => {
      const response = await fetch(`${sandbox.baseUrl}/checkout/${data!.checkout_id}/shifts`, {
        method: "POST",
        body: new URLSearchParams({ deposit: coinNetwork }),
        redirect: "manual",
      })
      expect(response.status).toBe(303)
      return (await control("GET", `/v2/checkout/${data!.checkout_id}`)).orders[0].id as string
    }
    const btc = await pick("btc-bitcoin")
    const seen = (await service.getPaymentStatus({ data })).data!
    expect(seen).toMatchObject({ shift_id: btc, deposit_coin: "BTC" })

    // The payer switches to ETH, then pays the BTC address after all: the paid shift beats the later unpaid one.
    const eth = await pick("eth-ethereum")
    await deposit(btc)
    await walk(btc, ["processing"])
    const onBtc = await service.authorizePayment({ data: seen })
    expect(onBtc).toMatchObject({ status: "authorized", data: { shift_id: btc, deposit_coin: "BTC" } })

    // Then pays ETH too: the BTC shift the payment follows still holds its money and keeps governing.
    await deposit(eth)
    await walk(eth, ["processing"])
    expect(await service.authorizePayment({ data: onBtc.data })).toMatchObject({ status: "authorized", data: { shift_id: btc } })
    // Once the service sends the BTC deposit back, ETH governs, and nothing of the BTC shift lingers in the data.
    await walk(btc, ["review", "refund"])
    const onEth = await service.authorizePayment({ data: onBtc.data })
    const ethShift = await control("GET", `/v2/shifts/${eth}`)
    expect(onEth).toMatchObject({
      status: "authorized",
      data: { shift_id: eth, deposit_coin: "ETH", deposit_network: "ethereum", deposit_address: ethShift.depositAddress, deposit_amount: ethShift.depositAmount },
    })
  })

  it("announces every shift it creates, so the ledger follows it from the start, and never fails the payment over it", async () => {
    const emit = jest.fn().mockResolvedValue(undefined)
    const announcing = provider({}, { emit })
    const { data } = await initiate(announcing, { deposit_coin: "BTC", deposit_network: "bitcoin" })
    expect(emit).toHaveBeenCalledWith({ name: SHIFT_CREATED_EVENT, data: { session_id: data!.session_id, data } })

    emit.mockRejectedValueOnce(new Error("event bus down"))
    expect((await initiate(announcing, { deposit_coin: "BTC", deposit_network: "bitcoin" })).data).toMatchObject({ shift_id: expect.any(String) })
  })

  it("refuses a currency without a settlement wallet", async () => {
    const error = await medusaError(
      provider().initiatePayment({ amount: 5, currency_code: "gbp", data: { session_id: "s", deposit_coin: "BTC", deposit_network: "bitcoin" } })
    )
    expect(error.message).toMatch(/not set up for GBP/)
  })

  it("refuses storefront data it does not know, before any upstream call", async () => {
    await control("DELETE", "/sandbox/requests")
    const error = await medusaError(initiate(provider(), { deposit_coin: "BTC", deposit_network: "bitcoin", settle_address: "0xevil" }))
    expect(error.type).toBe(MedusaError.Types.INVALID_DATA)
    expect(error.message).toMatch(/unknown field\(s\): settle_address/)
    expect((await control("GET", "/sandbox/requests")).filter((r: any) => r.path !== "/v2/coins")).toHaveLength(0)
  })

  it("tells a shopper's mistake from an outage", async () => {
    const tooSmall = await medusaError(initiate(provider(), { deposit_coin: "BTC", deposit_network: "bitcoin" }, "0.01"))
    expect(tooSmall.type).toBe(MedusaError.Types.INVALID_DATA)
    expect(tooSmall.message).toMatch(/Amount too low/)

    await control("POST", "/sandbox/faults", { method: "POST", path: "/v2/quotes", status: 503, body: "down" })
    const outage = await medusaError(initiate(provider({ maxRetries: 0 }), { deposit_coin: "BTC", deposit_network: "bitcoin" }))
    expect(outage.type).toBe(MedusaError.Types.UNEXPECTED_STATE)
    expect(outage.message).toMatch(/unavailable right now/)
    expect(JSON.stringify(outage)).not.toContain(sandbox.account.secret)
  })
})

describe("authorizePayment, getPaymentStatus and retrievePayment", () => {
  it("follow the shift through its life", async () => {
    const service = provider()
    const { data } = await initiate(service, { deposit_coin: "LTC", deposit_network: "litecoin" })
    const shiftId = data!.shift_id as string

    const waiting = await medusaError(service.authorizePayment({ data }))
    expect(waiting.type).toBe(MedusaError.Types.PAYMENT_AUTHORIZATION_ERROR)
    expect(waiting.message).toMatch(/Waiting for your deposit: send [\d.]+ LTC/)
    expect((await service.getPaymentStatus({ data })).status).toBe("pending")

    await deposit(shiftId)
    await walk(shiftId, ["processing"])
    const authorized = await service.authorizePayment({ data })
    expect(authorized.status).toBe("authorized")
    expect(authorized.data).toMatchObject({ status: "processing", deposit_hash: expect.any(String), session_id: data!.session_id })

    await walk(shiftId, ["settling", "settled"])
    expect((await service.getPaymentStatus({ data })).status).toBe("captured")
    expect((await service.retrievePayment({ data })).data).toMatchObject({ status: "settled", settle_hash: expect.any(String) })
  })

  it("answers pending_authorization when the order is placed before payment", async () => {
    const service = provider({ placeOrder: "before_payment" })
    const { data } = await initiate(service, { deposit_coin: "BTC", deposit_network: "bitcoin" })
    expect((await service.authorizePayment({ data })).status).toBe("pending_authorization")
  })
})

describe("capturePayment", () => {
  it("confirms a settled shift and refuses anything else with the reason", async () => {
    const service = provider()
    const { data } = await initiate(service, { deposit_coin: "BTC", deposit_network: "bitcoin" })
    const shiftId = data!.shift_id as string
    await deposit(shiftId)
    const early = await medusaError(service.capturePayment({ data }))
    expect(early.message).toMatch(/can't be captured yet: the swap is "pending"/)
    await walk(shiftId, ["processing", "settling", "settled"])
    expect((await service.capturePayment({ data })).data).toMatchObject({ status: "settled" })
  })

  it("never authorize a settled payment whose money the ledger gives back to the shopper", async () => {
    const service = provider()
    const { data } = await initiate(service, { deposit_coin: "BTC", deposit_network: "bitcoin" })
    await deposit(data!.shift_id as string)
    await walk(data!.shift_id as string, ["processing", "settling", "settled"])
    const refused = await medusaError(service.authorizePayment({ data: { ...data, given_back: true } }))
    expect(refused.type).toBe(MedusaError.Types.NOT_ALLOWED)
    expect(refused.message).toMatch(/being refunded/)
    expect((await service.authorizePayment({ data })).status).toBe("captured")
  })

  it("authorize a short variable payment only with the credit its top-ups brought, as the ledger mirrors it", async () => {
    const service = provider()
    const { data } = await initiate(service, { deposit_coin: "ETH", deposit_network: "zksync" }, "150")
    const shiftId = data!.shift_id as string
    await deposit(shiftId, { amount: data!.deposit_min })
    await walk(shiftId, ["processing", "settling", "settled"])
    const short = await medusaError(service.capturePayment({ data }))
    expect(short.message).toMatch(/can't be captured yet/)
    expect((await service.getPaymentStatus({ data })).status).toBe("error")
    // What the settled top-ups brought, mirrored into the data: the rest is covered.
    const settled = ((await control("GET", `/v2/shifts/${shiftId}`)) as Shift).settleAmount!
    const credit = new BigNumberJS("150").minus(settled).toFixed()
    expect((await service.authorizePayment({ data: { ...data, credit } })).status).toBe("captured")
    const almost = new BigNumberJS(credit).minus("0.000001").toFixed()
    expect((await service.getPaymentStatus({ data: { ...data, credit: almost } })).status).toBe("error")
  })
})

describe("authorize and capture within the plugin's sync", () => {
  /** The shift as the sync's own read gives it, without going through the provider. */
  const observe = async (shiftId: string) => ({ shift: (await control("GET", `/v2/shifts/${shiftId}`)) as Shift, observed_at: new Date().toISOString() })

  async function paidShift(service: CryptoSwapProviderService, statuses: string[]) {
    const { data } = await initiate(service, { deposit_coin: "BTC", deposit_network: "bitcoin" })
    await deposit(data!.shift_id as string)
    await walk(data!.shift_id as string, statuses)
    return data!
  }

  it("take the shift the sync observed moments ago instead of reading it again", async () => {
    const service = provider()
    const data = await paidShift(service, ["processing"])
    const observed = await observe(data.shift_id as string)
    sandbox.clearRequests()
    const authorized = await withSyncObservation({ ...observed, session_id: data.session_id as string, checkout_id: null }, () =>
      service.authorizePayment({ data })
    )
    expect(authorized).toMatchObject({ status: "authorized", data: { status: "processing", deposit_hash: expect.any(String) } })
    expect(sandbox.requests()).toEqual([])

    await walk(data.shift_id as string, ["settling", "settled"])
    const settled = await observe(data.shift_id as string)
    sandbox.clearRequests()
    const captured = await withSyncObservation({ ...settled, session_id: data.session_id as string, checkout_id: null }, () =>
      service.capturePayment({ data: authorized.data })
    )
    expect(captured.data).toMatchObject({ status: "settled", settle_hash: expect.any(String) })
    expect(sandbox.requests()).toEqual([])
  })

  it("decide on the observation, not on what the service says since", async () => {
    const service = provider()
    const data = await paidShift(service, ["processing", "settling"])
    const settling = await observe(data.shift_id as string)
    await walk(data.shift_id as string, ["settled"])
    const early = await medusaError(
      withSyncObservation({ ...settling, session_id: data.session_id as string, checkout_id: null }, () => service.capturePayment({ data }))
    )
    expect(early.message).toMatch(/the swap is "settling"/)
  })

  it("read the service when the observation is stale, about another payment, or not theirs to take", async () => {
    const service = provider()
    const data = await paidShift(service, ["processing"])
    const other = await paidShift(service, ["processing"])
    const observed = await observe(data.shift_id as string)
    const reads = async (observation: Parameters<typeof withSyncObservation>[0], call: () => Promise<unknown>) => {
      sandbox.clearRequests()
      await withSyncObservation(observation, call)
      return sandbox.requests().map((request) => `${request.method} ${request.path}`)
    }
    const mine = { ...observed, session_id: data.session_id as string, checkout_id: null }
    const readOnce = [`GET /v2/shifts/${data.shift_id}`]
    const stale = new Date(Date.now() - OBSERVATION_MAX_AGE_MS - 1000).toISOString()
    expect(await reads({ ...mine, observed_at: stale }, () => service.authorizePayment({ data }))).toEqual(readOnce)
    // Another session's sync, or its shift handed with this session's id.
    expect(await reads({ ...mine, session_id: other.session_id as string }, () => service.authorizePayment({ data }))).toEqual(readOnce)
    expect(await reads(mine, () => service.authorizePayment({ data: other }))).toEqual([`GET /v2/shifts/${other.shift_id}`])
    // Only authorize and capture take it: what else the provider does reads as before.
    expect(await reads(mine, () => service.getPaymentStatus({ data }))).toEqual(readOnce)
  })

  it("leave a shopper's cart completion running meanwhile to read the service", async () => {
    const service = provider()
    const data = await paidShift(service, ["processing"])
    const observed = await observe(data.shift_id as string)
    sandbox.clearRequests()
    let release!: () => void
    const sync = withSyncObservation({ ...observed, session_id: data.session_id as string, checkout_id: null }, () => new Promise<void>((resolve) => (release = resolve)))
    expect((await service.authorizePayment({ data })).status).toBe("authorized")
    release()
    await sync
    expect(sandbox.requests().map((request) => request.path)).toEqual([`/v2/shifts/${data.shift_id}`])
  })

  it("take the observation of a hosted checkout's shift without reading the checkout", async () => {
    const service = provider({ mode: "checkout" })
    const { data } = await initiate(service, { deposit_coin: "BTC", deposit_network: "bitcoin" })
    await fetch(`${sandbox.payUrl}/checkout/${data!.checkout_id}/shifts`, { method: "POST", body: new URLSearchParams({ deposit: "ETH-ethereum" }), redirect: "manual" })
    const shiftId = (await control("GET", `/v2/checkout/${data!.checkout_id}`)).orders[0].id as string
    await deposit(shiftId)
    await walk(shiftId, ["processing"])
    const observed = await observe(shiftId)
    sandbox.clearRequests()
    const session = { ...observed, session_id: data!.session_id as string, checkout_id: data!.checkout_id as string }
    const authorized = await withSyncObservation(session, () => service.authorizePayment({ data }))
    expect(authorized).toMatchObject({ status: "authorized", data: { shift_id: shiftId, status: "processing" } })
    expect(sandbox.requests()).toEqual([])
    // Another checkout's observation is not this one's.
    await withSyncObservation({ ...session, checkout_id: "another" }, () => service.authorizePayment({ data }))
    expect(sandbox.requests().map((request) => request.path)).toEqual([`/v2/checkout/${data!.checkout_id}`, `/v2/shifts/${shiftId}`])
  })
})

describe("updatePayment", () => {
  it("keeps the amount fixed and takes the mirrored data as given, without asking the service", async () => {
    const service = provider()
    const { data } = await initiate(service, { deposit_coin: "BTC", deposit_network: "bitcoin" })
    await control("POST", "/sandbox/faults", { path: "/v2/shifts/*", status: 503 })
    const mirrored = await service.updatePayment({ data: { ...data, status: "pending" }, amount: "25.50", currency_code: "usd" })
    expect(mirrored.data).toMatchObject({ shift_id: data!.shift_id, status: "pending" })
    const error = await medusaError(service.updatePayment({ data, amount: 30, currency_code: "usd" }))
    expect(error.message).toMatch(/fixed when it is created/)
  })
})

describe("cancelPayment and deletePayment", () => {
  it("cancelPayment defers the cancel of a fresh unpaid shift, then cancels it once the service allows", async () => {
    const service = provider()
    const { data } = await initiate(service, { deposit_coin: "BTC", deposit_network: "bitcoin" })
    const early = await service.cancelPayment({ data })
    expect(early.data).toMatchObject({ cancel_requested_at: expect.any(String), status: "waiting" })
    await control("POST", "/sandbox/clock", { advanceSeconds: 301 })
    const later = await service.cancelPayment({ data })
    expect(later.data).toMatchObject({ status: "expired", canceled_at: expect.any(String) })
    expect((await control("GET", `/v2/shifts/${data!.shift_id}`)).status).toBe("expired")
  })

  it("deletePayment asks nothing of the service: the cancel is left to reconciliation", async () => {
    const service = provider()
    const { data } = await initiate(service, { deposit_coin: "BTC", deposit_network: "bitcoin" })
    await control("POST", "/sandbox/faults", { path: "/v2/shifts/*", status: 503 })
    await control("POST", "/sandbox/faults", { path: "/v2/cancel-order", status: 503 })
    const deleted = await service.deletePayment({ data })
    expect(deleted.data).toMatchObject({ status: "waiting", cancel_requested_at: expect.any(String) })
    expect(deleted.data).not.toHaveProperty("canceled_at")
  })

  it("never drop a deposit in flight: delete refuses once the mirrored status shows it, cancel leaves the shift alone", async () => {
    const service = provider()
    const { data } = await initiate(service, { deposit_coin: "BTC", deposit_network: "bitcoin" })
    await deposit(data!.shift_id as string)
    const refused = await medusaError(service.deletePayment({ data: { ...data, status: "pending" } }))
    expect(refused.message).toMatch(/already on its way/)
    // Money going back to the shopper frees the cart for a new payment.
    const givenBack = { ...data, status: "settled", given_back: true }
    expect(await service.deletePayment({ data: givenBack })).toEqual({ data: givenBack })
    const canceled = (await service.cancelPayment({ data })).data
    expect(canceled).toMatchObject({ status: "pending" })
    expect(canceled).not.toHaveProperty("refund_owed")
    expect(canceled).not.toHaveProperty("canceled_at")
  })

  it("cancelPayment never fails on the service's account: a deposit the data shows is not read, a shift it can't read is left to expire", async () => {
    const service = provider()
    const { data } = await initiate(service, { deposit_coin: "BTC", deposit_network: "bitcoin" })
    await control("POST", "/sandbox/faults", { path: "/v2/shifts/*", status: 503 })
    const seen = { ...data, status: "settled" }
    expect(await service.cancelPayment({ data: seen })).toEqual({ data: seen })
    expect((await service.cancelPayment({ data })).data).toMatchObject({ status: "waiting", cancel_requested_at: expect.any(String) })
  })

  it("are no-ops for a session that never got a shift", async () => {
    expect(await provider().deletePayment({ data: { session_id: "x" } })).toEqual({ data: { session_id: "x" } })
  })
})

describe("refundPayment", () => {
  it("moves nothing, reads nothing and keeps nothing in the data: concurrent refunds can't overwrite each other, the ledger records them", async () => {
    const service = provider()
    const { data } = await initiate(service, { deposit_coin: "BTC", deposit_network: "bitcoin", refund_address: BTC_REFUND }, "40")
    const shiftId = data!.shift_id as string
    await deposit(shiftId)
    await walk(shiftId, ["processing", "settling", "settled"])
    // The service can't be reached: a refund must not fail for it, or Medusa deletes a refund the ledger may have seen.
    await control("POST", "/sandbox/faults", { method: "GET", path: `/v2/shifts/${shiftId}`, status: 503, times: 10 })
    const context = { idempotency_key: "ref_1" }
    const [first, second] = await Promise.all([
      service.refundPayment({ data, amount: { value: "15", precision: 20 } as any, context }),
      service.refundPayment({ data, amount: new BigNumber(25), context: { idempotency_key: "ref_2" } }),
    ])
    for (const answer of [first, second]) {
      expect(answer.data).toEqual(JSON.parse(JSON.stringify(data)))
      expect(answer.data).not.toHaveProperty("refunds")
    }
  })
})

describe("getWebhookActionAndData", () => {
  async function paidCheckout(service: CryptoSwapProviderService, settle: boolean) {
    const { data } = await initiate(service, { deposit_coin: "BTC", deposit_network: "bitcoin" })
    // What a payer does on the hosted page: pick a coin, which creates the checkout's shift.
    await fetch(`${sandbox.payUrl}/checkout/${data!.checkout_id}/shifts`, {
      method: "POST",
      body: new URLSearchParams({ deposit: "ETH-ethereum" }),
      redirect: "manual",
    })
    const shift = { id: (await control("GET", `/v2/checkout/${data!.checkout_id}`)).orders[0].id as string }
    await deposit(shift.id)
    if (settle) await walk(shift.id, ["processing", "settling", "settled"])
    const hook = { id: "hook_1", createdAt: "", updatedAt: "", enabled: true, accountId: sandbox.account.id, targetUrl: "https://shop.test/hooks" }
    const body = { meta: { hook }, payload: { shiftId: shift.id, checkoutId: data!.checkout_id, status: "success", txid: "0xabc" } }
    return { data, body }
  }

  it("acts on what the API says, with the session and its store amount", async () => {
    const service = provider({ mode: "checkout" })
    const { data, body } = await paidCheckout(service, true)
    const result = await service.getWebhookActionAndData({ data: body, rawData: JSON.stringify(body), headers: {} })
    expect(result).toEqual({ action: "captured", data: { session_id: data!.session_id, amount: "25.5" } })
  })

  it("does not believe a success for a shift that has not settled", async () => {
    const service = provider({ mode: "checkout" })
    const { data, body } = await paidCheckout(service, false)
    const result = await service.getWebhookActionAndData({ data: body, rawData: "", headers: {} })
    expect(result).toEqual({ action: "pending", data: { session_id: data!.session_id, amount: "25.5" } })
  })

  it("ignores forged and foreign notifications", async () => {
    const service = provider({ mode: "checkout", webhookHookId: "hook_1" })
    const { body } = await paidCheckout(service, true)
    const forged = [
      { ...body, meta: { hook: { ...body.meta.hook, accountId: "someone-else" } } },
      { ...body, meta: { hook: { ...body.meta.hook, id: "hook_2" } } },
      { ...body, payload: { ...body.payload, checkoutId: "unknown" } },
      { ...body, payload: { ...body.payload, shiftId: "not-this-checkouts-shift" } },
      { nonsense: true },
      "not even an object",
    ]
    for (const data of forged) {
      expect(await service.getWebhookActionAndData({ data: data as any, rawData: "", headers: {} })).toEqual({ action: "not_supported" })
    }
  })

  it("verifies a flood of notifications with a bounded number of reads", async () => {
    // Medusa's built-in webhook route hands anything from anyone to the provider: replays of one
    // notification share one verification, and only a few distinct ones are verified at once.
    const service = provider({ mode: "checkout" })
    const { data, body } = await paidCheckout(service, true)
    sandbox.clearRequests()
    const replays = await Promise.all(
      Array.from({ length: 50 }, () => service.getWebhookActionAndData({ data: body, rawData: "", headers: {} }))
    )
    expect(replays).toEqual(Array(50).fill({ action: "captured", data: { session_id: data!.session_id, amount: "25.5" } }))
    expect(sandbox.requests()).toHaveLength(2)
    sandbox.clearRequests()
    const strangers = await Promise.all(
      Array.from({ length: 50 }, (_, i) =>
        service.getWebhookActionAndData({ data: { ...body, payload: { ...body.payload, checkoutId: `unknown-${i}` } }, rawData: "", headers: {} })
      )
    )
    expect(strangers.every((result) => result.action === "not_supported")).toBe(true)
    // One window: the replayed notification's verification is still in it, so four strangers were read.
    expect(sandbox.requests().length).toBeLessThanOrEqual(5)
  })
})

describe("secrets", () => {
  it("never appear in logs or session data", async () => {
    const service = provider()
    const { data } = await initiate(service, { deposit_coin: "BTC", deposit_network: "bitcoin" })
    expect(JSON.stringify(data)).not.toContain(sandbox.account.secret)
    expect(logged.join("\n")).not.toContain(sandbox.account.secret)
  })
})
