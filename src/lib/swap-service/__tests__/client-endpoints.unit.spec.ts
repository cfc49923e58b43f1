import BigNumber from "bignumber.js"
import { Agent, request } from "undici"
import { startSandbox } from "../../../sandbox"
import { compareTimestamps, latestShiftId, SwapServiceClient, SwapServiceError } from ".."
import {
  AS_END_USER,
  BTC_ADDRESS,
  BTC_TO_USDC,
  END_USER_IP,
  EVM_ADDRESS,
  failureOf,
  payerPicksCoin,
  USDC_CHECKOUT,
  useSandboxClient,
  XRP_ADDRESS,
} from "./sandbox-harness"

// Every client method against a real sandbox over loopback HTTP, and what each one put on the wire
// (read back from the sandbox's request log).

const BLOCKED_IP = "198.51.100.9"
const SECRET_HEADER = "x-service-secret"
const NINE_DIGITS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{9}Z$/
const BTC = { coin: "BTC", network: "bitcoin" }
const USDC = { coin: "USDC", network: "ethereum" }
const ETH = { coin: "ETH", network: "ethereum" }

describe("SwapServiceClient endpoints against the sandbox", () => {
  const harness = useSandboxClient()
  const accountId = () => harness.sandbox().account.id
  const onlyRequest = (method: string, path: RegExp) => {
    const requests = harness.upstream(method, path)
    expect(requests).toHaveLength(1)
    return requests[0]
  }

  describe("coins and permissions", () => {
    it("lists the coins, with the catalogue's flags", async () => {
      const coins = await harness.client().getCoins()
      expect(coins.find((coin) => coin.coin === "XRP")).toMatchObject({ networks: ["ripple"], networksWithMemo: ["ripple"] })
      expect(coins.find((coin) => coin.coin === "XMR")).toMatchObject({ fixedOnly: true })
      expect(coins.find((coin) => coin.coin === "ETH")).toMatchObject({ depositVariableOnly: ["zksync"], settleVariableOnly: false })
      expect(onlyRequest("GET", /^\/v2\/coins$/).status).toBe(200)
    })

    it("answers createShift true for an allowed end user and false once configure() blocks the IP", async () => {
      const client = harness.client()
      expect(await client.getPermissions(END_USER_IP)).toEqual({ createShift: true })
      harness.sandbox().configure({ blockedIps: [BLOCKED_IP] })
      expect(await client.getPermissions(BLOCKED_IP)).toEqual({ createShift: false })
      expect(await client.getPermissions(END_USER_IP)).toEqual({ createShift: true })
      expect(harness.upstream("GET", /^\/v2\/permissions$/).map((sent) => sent.userIp)).toEqual([END_USER_IP, BLOCKED_IP, END_USER_IP])
    })
  })

  describe("pair rates", () => {
    it("reads one pair as coin-network ids, with the amount and the commission in percent", async () => {
      const client = harness.client()
      const plain = await client.getPair(BTC, USDC, { amount: "0.5" })
      const withCommission = await client.getPair(BTC, USDC, { commissionRatePercent: "2" })
      expect(plain).toMatchObject({ depositCoin: "BTC", depositNetwork: "bitcoin", settleCoin: "USDC", settleNetwork: "ethereum" })
      expect(new BigNumber(plain.min).isLessThan(plain.max)).toBe(true)
      expect(new BigNumber(withCommission.rate).isLessThan(plain.rate)).toBe(true)
      const [first, second] = harness.upstream("GET", /^\/v2\/pair\//)
      expect(first.path).toBe("/v2/pair/btc-bitcoin/usdc-ethereum")
      expect(first.query).toEqual({ affiliateId: accountId(), amount: "0.5" })
      expect(second.query).toEqual({ affiliateId: accountId(), commissionRate: "2" })
    })

    it("reads several pairs in one request and answers exactly the pairs asked for, in their order", async () => {
      const client = harness.client()
      const rates = await client.getPairs([
        { from: ETH, to: BTC },
        { from: BTC, to: { coin: "usdc", network: "ethereum" } },
      ])
      expect(rates.map((rate) => `${rate.depositCoin}>${rate.settleCoin}`)).toEqual(["ETH>BTC", "BTC>USDC"])
      const sent = onlyRequest("GET", /^\/v2\/pairs$/)
      expect(sent.query).toEqual({ affiliateId: accountId(), pairs: "eth-ethereum,btc-bitcoin,usdc-ethereum" })
      expect(await client.getPairs([])).toEqual([])
      expect(harness.upstream("GET", /^\/v2\/pairs$/)).toHaveLength(1)
    })
  })

  describe("quotes", () => {
    it("quotes a deposit amount, sending the settle amount as null", async () => {
      const quote = await harness.client().createQuote({ ...BTC_TO_USDC, depositAmount: "0.01" }, AS_END_USER)
      expect(quote).toMatchObject({ ...BTC_TO_USDC, depositAmount: "0.01", affiliateId: accountId() })
      expect(new BigNumber(quote.settleAmount).isGreaterThan(0)).toBe(true)
      expect(Date.parse(quote.expiresAt)).toBeGreaterThan(harness.sandbox().now().getTime())
      expect(onlyRequest("POST", /^\/v2\/quotes$/).body).toEqual({ affiliateId: accountId(), ...BTC_TO_USDC, depositAmount: "0.01", settleAmount: null })
    })

    it("quotes a settle amount, sending the deposit amount as null", async () => {
      const quote = await harness.client().createQuote({ ...BTC_TO_USDC, settleAmount: "100" }, AS_END_USER)
      expect(quote).toMatchObject({ ...BTC_TO_USDC, settleAmount: "100", affiliateId: accountId() })
      expect(new BigNumber(quote.depositAmount).times(quote.rate).isGreaterThanOrEqualTo("100")).toBe(true)
      expect(onlyRequest("POST", /^\/v2\/quotes$/).body).toEqual({ affiliateId: accountId(), ...BTC_TO_USDC, depositAmount: null, settleAmount: "100" })
    })
  })

  describe("shifts", () => {
    it("creates a fixed shift from a quote, echoing the external id", async () => {
      const client = harness.client()
      const quote = await client.createQuote({ ...BTC_TO_USDC, settleAmount: "100" }, AS_END_USER)
      const shift = await client.createFixedShift({ quote, settleAddress: EVM_ADDRESS, refundAddress: BTC_ADDRESS, externalId: "session_1" }, AS_END_USER)
      expect(shift).toMatchObject({
        type: "fixed",
        status: "waiting",
        quoteId: quote.id,
        depositAmount: quote.depositAmount,
        settleAddress: EVM_ADDRESS,
        refundAddress: BTC_ADDRESS,
        externalId: "session_1",
        expiresAt: quote.expiresAt,
      })
      expect(shift.depositAddress).toEqual(expect.any(String))
      expect(onlyRequest("POST", /^\/v2\/shifts\/fixed$/).body).toEqual({
        quoteId: quote.id,
        affiliateId: accountId(),
        settleAddress: EVM_ADDRESS,
        refundAddress: BTC_ADDRESS,
        externalId: "session_1",
      })
    })

    it("creates a fixed shift with a settle memo on a memo network", async () => {
      const client = harness.client()
      const coins = await client.getCoins()
      const quote = await client.createQuote({ depositCoin: "BTC", depositNetwork: "bitcoin", settleCoin: "XRP", settleNetwork: "ripple", settleAmount: "200" }, AS_END_USER)
      const shift = await client.createFixedShift({ quote, settleAddress: XRP_ADDRESS, settleMemo: "123456", coins }, AS_END_USER)
      expect(shift).toMatchObject({ settleCoin: "XRP", settleAddress: XRP_ADDRESS, settleMemo: "123456" })
      // The catalogue is the client's own input: it is not sent.
      expect(onlyRequest("POST", /^\/v2\/shifts\/fixed$/).body).not.toHaveProperty("coins")
    })

    it("creates a variable shift with its deposit range", async () => {
      const shift = await harness.client().createVariableShift({ ...BTC_TO_USDC, settleAddress: EVM_ADDRESS, externalId: "session_2" }, AS_END_USER)
      expect(shift).toMatchObject({ ...BTC_TO_USDC, type: "variable", status: "waiting", externalId: "session_2" })
      expect(new BigNumber(shift.depositMin!).isLessThan(shift.depositMax!)).toBe(true)
      expect(onlyRequest("POST", /^\/v2\/shifts\/variable$/).body).toEqual({ affiliateId: accountId(), ...BTC_TO_USDC, settleAddress: EVM_ADDRESS, externalId: "session_2" })
    })

    it("reads a shift as it moves", async () => {
      const client = harness.client()
      const shift = await client.createVariableShift({ ...BTC_TO_USDC, settleAddress: EVM_ADDRESS }, AS_END_USER)
      expect(await client.getShift(shift.id)).toMatchObject({ id: shift.id, status: "waiting" })
      harness.sandbox().deposit(shift.id)
      expect(await client.getShift(shift.id)).toMatchObject({ id: shift.id, status: "pending", depositHash: expect.any(String) })
      expect(harness.upstream("GET", /^\/v2\/shifts\/[^/]+$/).map((sent) => sent.path)).toEqual([`/v2/shifts/${shift.id}`, `/v2/shifts/${shift.id}`])
    })

    it("reads several shifts in one request, leaving unknown ids out", async () => {
      const client = harness.client()
      const shift = await client.createVariableShift({ ...BTC_TO_USDC, settleAddress: EVM_ADDRESS }, AS_END_USER)
      const other = await client.createVariableShift({ ...BTC_TO_USDC, settleAddress: EVM_ADDRESS }, AS_END_USER)
      const read = await client.getShifts([shift.id, "unknown-id", other.id])
      expect(read.map((found) => found.id)).toEqual([shift.id, other.id])
      expect(onlyRequest("GET", /^\/v2\/shifts$/).query).toEqual({ ids: `${shift.id},unknown-id,${other.id}` })
      expect(await client.getShifts(["unknown-1", "unknown-2"])).toEqual([])
    })

    it("leaves out a shift a bulk answer describes oddly, keeping the others, and fails an answer that is no list", async () => {
      const client = harness.client()
      const shift = await client.createVariableShift({ ...BTC_TO_USDC, settleAddress: EVM_ADDRESS }, AS_END_USER)
      const described = await (await fetch(`${harness.sandbox().baseUrl}/v2/shifts/${shift.id}`)).json()
      harness.sandbox().addFault({ method: "GET", path: "/v2/shifts", status: 200, body: JSON.stringify([{ ...described, id: "odd", depositAmount: "1e-7" }, described]), times: 1 })
      expect((await client.getShifts(["odd", shift.id])).map((found) => found.id)).toEqual([shift.id])
      harness.sandbox().addFault({ method: "GET", path: "/v2/shifts", status: 200, body: JSON.stringify({ shifts: [described] }) })
      expect(await failureOf(client.getShifts([shift.id]))).toMatchObject({ code: "MALFORMED_RESPONSE" })
      harness.sandbox().clearFaults()
    })

    it("reads long id lists in chunks, and nothing for no ids", async () => {
      const client = harness.client()
      const shift = await client.createVariableShift({ ...BTC_TO_USDC, settleAddress: EVM_ADDRESS }, AS_END_USER)
      const ids = [...Array.from({ length: 120 }, (_, index) => `missing-${index}`), shift.id]
      expect((await client.getShifts(ids)).map((found) => found.id)).toEqual([shift.id])
      const reads = harness.upstream("GET", /^\/v2\/shifts$/)
      expect(reads.map((sent) => (sent.query as { ids: string }).ids.split(",").length)).toEqual([50, 50, 21])
      expect(await client.getShifts([])).toEqual([])
      expect(harness.upstream("GET", /^\/v2\/shifts$/)).toHaveLength(3)
    })

    it("keeps a status and fields the client does not know", async () => {
      const client = harness.client()
      const shift = await client.createVariableShift({ ...BTC_TO_USDC, settleAddress: EVM_ADDRESS }, AS_END_USER)
      const raw = await request(`${harness.sandbox().baseUrl}/v2/shifts/${shift.id}`)
      const future = { ...((await raw.body.json()) as object), status: "frozen", compliance: { level: 2 } }
      harness.sandbox().addFault({ method: "GET", path: `/v2/shifts/${shift.id}`, status: 200, body: JSON.stringify(future), times: 1 })
      expect(await client.getShift(shift.id)).toMatchObject({ id: shift.id, status: "frozen", compliance: { level: 2 } })
    })
  })

  describe("refund address", () => {
    it("is refused while the shift is not in refund, then set once it is, and only once", async () => {
      const client = harness.client()
      const quote = await client.createQuote({ ...BTC_TO_USDC, settleAmount: "100" }, AS_END_USER)
      const shift = await client.createFixedShift({ quote, settleAddress: EVM_ADDRESS }, AS_END_USER)

      const tooEarly = await failureOf(client.setRefundAddress(shift.id, { address: BTC_ADDRESS }))
      expect(tooEarly).toMatchObject({ status: 400, code: "BAD_USER_INPUT", userError: true, operation: "setRefundAddress" })
      expect(tooEarly.message).toMatch(/only be set while the shift status is refund/)

      // The wrong amount arrives: the shift goes to refund and needs an address.
      harness.sandbox().deposit(shift.id, { amount: "0.5" })
      expect((await client.getShift(shift.id)).status).toBe("refund")
      const updated = await client.setRefundAddress(shift.id, { address: BTC_ADDRESS })
      expect(updated).toMatchObject({ id: shift.id, refundAddress: BTC_ADDRESS })

      const again = await failureOf(client.setRefundAddress(shift.id, { address: "bc1q9h7garjcm3kq4d4ekw8n9yj0szxkgmnl0u4h2n" }))
      expect(again).toMatchObject({ status: 400, userError: true })
      expect(again.message).toMatch(/already set/)
      expect((await client.getShift(shift.id)).refundAddress).toBe(BTC_ADDRESS)

      const sent = harness.upstream("POST", /\/set-refund-address$/)
      expect(sent.map((request) => request.status)).toEqual([400, 201, 400])
      // The service wants the account's secret here, as the sandbox now does.
      expect(sent[1]).toMatchObject({ path: `/v2/shifts/${shift.id}/set-refund-address`, body: { address: BTC_ADDRESS }, headers: expect.arrayContaining(["x-service-secret"]) })
    })
  })

  describe("cancel order", () => {
    it("is refused before 5 minutes and expires the order after the sandbox clock moves past them", async () => {
      const client = harness.client()
      const shift = await client.createVariableShift({ ...BTC_TO_USDC, settleAddress: EVM_ADDRESS }, AS_END_USER)
      const early = await failureOf(client.cancelOrder(shift.id))
      expect(early).toMatchObject({ status: 400, code: "BAD_USER_INPUT", userError: true, retryable: false, operation: "cancelOrder" })
      expect((await client.getShift(shift.id)).status).toBe("waiting")

      harness.sandbox().advanceClock(5 * 60 + 1)
      await expect(client.cancelOrder(shift.id)).resolves.toBeUndefined()
      expect((await client.getShift(shift.id)).status).toBe("expired")
      const sent = harness.upstream("POST", /^\/v2\/cancel-order$/)
      expect(sent.map((request) => request.status)).toEqual([400, 204])
      expect(sent[1].body).toEqual({ orderId: shift.id })
      expect(sent[1].headers).toContain("x-service-secret")
    })
  })

  describe("accounts", () => {
    it("creates an account whose credentials then work", async () => {
      const account = await harness.client().createAccount()
      expect(account).toEqual({ id: expect.any(String), secret: expect.any(String) })
      expect(account.id).not.toBe(accountId())
      expect(onlyRequest("POST", /^\/create-account$/).status).toBe(201)

      const theirs = harness.client({ accountId: account.id, privateKey: account.secret })
      const quote = await theirs.createQuote({ ...BTC_TO_USDC, settleAmount: "50" }, AS_END_USER)
      expect(quote.affiliateId).toBe(account.id)
      const shift = await theirs.createFixedShift({ quote, settleAddress: EVM_ADDRESS }, AS_END_USER)
      expect(shift.quoteId).toBe(quote.id)
      expect(await theirs.getPair(BTC, ETH)).toMatchObject({ depositCoin: "BTC", settleCoin: "ETH" })
    })
  })

  describe("hosted checkout", () => {
    it("creates a checkout and keeps its nine-digit timestamps as the service wrote them", async () => {
      const client = harness.client()
      const checkout = await client.createCheckout(USDC_CHECKOUT, AS_END_USER)
      expect(checkout).toMatchObject({ ...USDC_CHECKOUT, affiliateId: accountId() })
      expect(checkout.createdAt).toMatch(NINE_DIGITS)
      expect(checkout.updatedAt).toMatch(NINE_DIGITS)
      expect(onlyRequest("POST", /^\/v2\/checkout$/).body).toEqual({ ...USDC_CHECKOUT, affiliateId: accountId() })

      const fetched = await client.getCheckout(checkout.id)
      const raw = (await (await request(`${harness.sandbox().baseUrl}/v2/checkout/${checkout.id}`)).body.json()) as Record<string, unknown>
      expect(typeof fetched.createdAt).toBe("string")
      expect(fetched.createdAt).toBe(raw.createdAt)
      expect(fetched.updatedAt).toBe(raw.updatedAt)
      expect(fetched.createdAt).toBe(checkout.createdAt)
    })

    it("has no latest shift before the payer picks a coin, and the newest one after each pick", async () => {
      const client = harness.client()
      const checkout = await client.createCheckout(USDC_CHECKOUT, AS_END_USER)
      const before = await client.getCheckout(checkout.id)
      expect(before.orders ?? []).toEqual([])
      expect(latestShiftId(before)).toBeUndefined()

      const payUrl = client.checkoutPayUrl(checkout.id)
      await payerPicksCoin(payUrl, "btc-bitcoin")
      const afterFirst = await client.getCheckout(checkout.id)
      const firstShiftId = latestShiftId(afterFirst)
      expect(firstShiftId).toEqual(expect.any(String))
      expect(await client.getShift(firstShiftId!)).toMatchObject({ depositCoin: "BTC", settleAmount: "25", settleAddress: EVM_ADDRESS })

      await payerPicksCoin(payUrl, "eth-ethereum")
      const afterSecond = await client.getCheckout(checkout.id)
      const secondShiftId = latestShiftId(afterSecond)
      expect(secondShiftId).not.toBe(firstShiftId)
      expect(afterSecond.orders?.map((order) => order.id)).toEqual([secondShiftId, firstShiftId])
      expect((await client.getShift(secondShiftId!)).depositCoin).toBe("ETH")
      // Each pick moved updatedAt on, by an amount a millisecond Date may not show.
      expect(compareTimestamps(afterFirst.updatedAt, afterSecond.updatedAt)).toBe(-1)
      expect(compareTimestamps(afterSecond.createdAt, afterSecond.updatedAt)).toBe(-1)
    })

    it("links the pay page of a checkout", async () => {
      const { payUrl } = harness.sandbox()
      expect(harness.client().checkoutPayUrl("c-1")).toBe(`${payUrl}/checkout/c-1`)
      expect(harness.client({ payUrl: `${payUrl}/` }).checkoutPayUrl("a/b c")).toBe(`${payUrl}/checkout/a%2Fb%20c`)
      const checkout = await harness.client().createCheckout(USDC_CHECKOUT, AS_END_USER)
      const page = await request(harness.client().checkoutPayUrl(checkout.id))
      expect(page.statusCode).toBe(200)
      expect(await page.body.text()).toContain("25")
    })
  })

  describe("hooks over GraphQL", () => {
    it("creates and deletes a hook", async () => {
      const client = harness.client()
      const targetUrl = "https://shop.example/hooks/crypto-swap/token"
      const hook = await client.createHook(targetUrl)
      expect(hook).toMatchObject({ id: expect.any(String), targetUrl, enabled: true, createdAt: expect.any(String), updatedAt: expect.any(String) })
      expect(await client.deleteHook(hook.id)).toBe(true)
      const calls = harness.upstream("POST", /^\/graphql$/)
      expect(calls.map((call) => call.status)).toEqual([200, 200])
      expect((calls[0].body as { query: string }).query).toBe(`mutation { createHook(targetUrl: "${targetUrl}") { id createdAt updatedAt targetUrl enabled } }`)
      expect((calls[1].body as { query: string }).query).toBe(`mutation { deleteHook(id: "${hook.id}") }`)
    })

    it("turns GraphQL errors inside an HTTP 200 into a SwapServiceError", async () => {
      const badSecret = await harness.client({ privateKey: "not-our-key" }).createHook("https://shop.example/hook").catch((error: unknown) => error)
      expect(badSecret).toBeInstanceOf(SwapServiceError)
      expect(badSecret).toMatchObject({ status: 200, code: "GRAPHQL_ERROR", message: "Account not found", operation: "createHook", retryable: false, userError: false })

      const unknownHook = await failureOf(harness.client().deleteHook("no-such-hook"))
      expect(unknownHook).toMatchObject({ status: 200, code: "GRAPHQL_ERROR", message: "Hook not found", operation: "deleteHook" })
      expect(harness.upstream("POST", /^\/graphql$/).map((call) => call.status)).toEqual([200, 200])
    })
  })

  describe("headers and affiliate id, as the spec names them", () => {
    it("sends the secret on quotes, shift creations, checkout, pair, pairs and GraphQL, and x-user-ip when the context names the end user", async () => {
      const client = harness.client()
      const quote = await client.createQuote({ ...BTC_TO_USDC, settleAmount: "100" }, AS_END_USER)
      await client.createFixedShift({ quote, settleAddress: EVM_ADDRESS }, AS_END_USER)
      await client.createVariableShift({ ...BTC_TO_USDC, settleAddress: EVM_ADDRESS }, AS_END_USER)
      await client.createCheckout(USDC_CHECKOUT, AS_END_USER)
      await client.getPair(BTC, USDC)
      await client.getPairs([{ from: BTC, to: USDC }])
      await client.createHook("https://shop.example/hook")

      const byPath = (path: string) => harness.upstream().filter((sent) => sent.path === path)
      for (const path of ["/v2/quotes", "/v2/shifts/fixed", "/v2/shifts/variable", "/v2/checkout"]) {
        const [sent] = byPath(path)
        expect(sent.status).toBe(201)
        expect(sent.headers).toEqual(expect.arrayContaining([SECRET_HEADER, "x-user-ip", "content-type", "accept"]))
        expect(sent.userIp).toBe(END_USER_IP)
        expect((sent.body as { affiliateId?: string }).affiliateId).toBe(accountId())
      }
      for (const path of ["/v2/pair/btc-bitcoin/usdc-ethereum", "/v2/pairs"]) {
        const [sent] = byPath(path)
        expect(sent.headers).toContain(SECRET_HEADER)
        expect((sent.query as { affiliateId?: string }).affiliateId).toBe(accountId())
      }
      const [graphql] = byPath("/graphql")
      expect(graphql.headers).toEqual(expect.arrayContaining([SECRET_HEADER, "content-type"]))
      // Only the end user's requests name one.
      for (const sent of [...byPath("/v2/pair/btc-bitcoin/usdc-ethereum"), ...byPath("/v2/pairs"), graphql]) {
        expect(sent.headers).not.toContain("x-user-ip")
      }
    })

    it("sends no x-user-ip without a context (which the sandbox refuses for creations)", async () => {
      const failure = await failureOf(harness.client().createQuote({ ...BTC_TO_USDC, settleAmount: "100" }))
      expect(failure).toMatchObject({ status: 400, code: "BAD_USER_INPUT" })
      const sent = onlyRequest("POST", /^\/v2\/quotes$/)
      expect(sent.headers).toContain(SECRET_HEADER)
      expect(sent.headers).not.toContain("x-user-ip")
    })

    it("keeps the secret off requests that need no credentials", async () => {
      const client = harness.client()
      const shift = await client.createVariableShift({ ...BTC_TO_USDC, settleAddress: EVM_ADDRESS }, AS_END_USER)
      await client.getCoins()
      await client.getShift(shift.id)
      await client.getShifts([shift.id])
      await client.createAccount()
      for (const path of ["/v2/coins", `/v2/shifts/${shift.id}`, "/v2/shifts", "/create-account"]) {
        const [sent] = harness.upstream().filter((logged) => logged.path === path)
        expect(sent.status).toBeLessThan(300)
        expect(sent.headers).not.toContain(SECRET_HEADER)
      }
    })

    it("sends the secret under the header name the deployment uses", async () => {
      const renamed = await startSandbox({ secretHeader: "x-api-key" })
      const client = new SwapServiceClient({ ...renamed, accountId: renamed.account.id, privateKey: renamed.account.secret, secretHeader: "X-Api-Key" })
      try {
        const quote = await client.createQuote({ ...BTC_TO_USDC, settleAmount: "50" }, AS_END_USER)
        expect(quote.affiliateId).toBe(renamed.account.id)
        expect((await client.createFixedShift({ quote, settleAddress: EVM_ADDRESS }, AS_END_USER)).quoteId).toBe(quote.id)
        expect((await client.getPair(BTC, USDC)).depositCoin).toBe("BTC")
        expect((await client.createHook("https://shop.example/hook")).enabled).toBe(true)
        const sent = renamed.requests()
        expect(sent.map((logged) => logged.status)).toEqual([201, 201, 200, 200])
        for (const logged of sent) {
          expect(logged.headers).toContain("x-api-key")
          expect(logged.headers).not.toContain(SECRET_HEADER)
        }
      } finally {
        await client.close()
        await renamed.close()
      }
    })
  })

  describe("connections", () => {
    it("uses an injected dispatcher and leaves it open on close", async () => {
      const agent = new Agent()
      const client = harness.client({ dispatcher: agent })
      expect((await client.getCoins()).length).toBeGreaterThan(0)
      await client.close()
      expect(agent.closed).toBe(false)
      await agent.close()
    })

    it("closes its own pool", async () => {
      const client = harness.client({ maxRetries: 0 })
      await client.getCoins()
      await client.close()
      expect(await failureOf(client.getCoins())).toMatchObject({ code: "NETWORK_ERROR" })
      expect(harness.upstream("GET", /^\/v2\/coins$/)).toHaveLength(1)
    })

    it("can be closed more than once", async () => {
      const client = harness.client()
      await client.getCoins()
      await expect(Promise.all([client.close(), client.close()])).resolves.toEqual([undefined, undefined])
      await expect(client.close()).resolves.toBeUndefined()
    })
  })
})
