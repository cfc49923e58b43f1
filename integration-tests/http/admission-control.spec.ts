import { medusaIntegrationTestRunner } from "@medusajs/test-utils"
import { ContainerRegistrationKeys } from "@medusajs/framework/utils"
import type { MedusaContainer } from "@medusajs/framework/types"
import type { Redis as RedisClient } from "ioredis"
import { useSandbox } from "../helpers/sandbox"
import { watchSecrets } from "../helpers/secret-watch"
import { createStoreFixture, PROVIDERS, type StoreFixture } from "../helpers/store-fixtures"
import { redisAnswers, useRedis } from "../helpers/multi-process"
import { shopperAt, type Answer } from "../helpers/shopper-at"
import { ledgerOf, reconcile } from "../helpers/ledger"
import { ADMISSION_KEY_PREFIX, AdmissionLimiter, admitSession, redisLimiters } from "../../src/lib/admission"
import { admissionSchema } from "../../src/lib/options"

// Admission control through the real store routes: the plugin's default budgets (sessions: 2 a minute per
// shopper IP, 3 per cart, 4 for the store; reads: 30 per IP, 20 per cart) and read caches, counters in
// Redis as a store with several server processes has them. Shoppers are told apart by X-Forwarded-For
// (Medusa trusts one proxy hop). Every test starts with fresh counters; the upstream calls are counted at
// the sandbox.

jest.setTimeout(180_000)

const DEFAULTS = admissionSchema.parse({})
const ROUTES = "/store/crypto-swap"
const BTC = { deposit_coin: "BTC", deposit_network: "bitcoin" }
const COIN_OF: Record<string, string> = { bitcoin: "BTC", litecoin: "LTC", dogecoin: "DOGE", solana: "SOL" }
const REDIS_DB = 9


if (!redisAnswers()) {
  describe("admission control", () => {
    it.skip("skipped: no Redis answers at 127.0.0.1:6379 (CI starts one; see .ci/run)", () => undefined)
  })
} else {
  const redisUrl = useRedis(REDIS_DB)
  // The plugin's own defaults: no roomy test budgets, no disabled caches (medusa-config.ts).
  process.env.CRYPTO_SWAP_TEST_ADMISSION = "{}"
  const env = useSandbox()
  const watch = watchSecrets()

  let redis: RedisClient
  beforeAll(async () => {
    const { Redis } = await import("ioredis")
    redis = new Redis(redisUrl)
  })
  afterAll(async () => {
    delete process.env.CRYPTO_SWAP_TEST_ADMISSION
    await redis?.quit()
  })

  /** Fresh budgets for every test: the counters live in Redis, where every server process reads them. */
  async function resetCounters() {
    const keys = await redis.keys(`${ADMISSION_KEY_PREFIX}*`)
    if (keys.length) await redis.del(...keys)
  }

  const upstream = (method: string, path: string | RegExp) => env.control.requestsTo(method, path)

  async function liveSessions(container: MedusaContainer, collectionId: string) {
    const query = container.resolve(ContainerRegistrationKeys.QUERY)
    const {
      data: [collection],
    } = await query.graph({ entity: "payment_collection", fields: ["payment_sessions.id"], filters: { id: collectionId } })
    return (collection?.payment_sessions ?? []) as Array<{ id: string }>
  }

  /** A refusal for rate reasons: 429, Retry-After, and a message with the same wait that a storefront can show. */
  function expectTooManyRequests(answer: Answer, message: RegExp) {
    expect(answer.status).toBe(429)
    expect(answer.data).toEqual({ type: "not_allowed", code: "rate_limited", message: expect.stringMatching(message), retry_after_seconds: expect.any(Number) })
    const seconds = Number(answer.headers["retry-after"])
    expect(Number.isInteger(seconds)).toBe(true)
    expect(seconds).toBeGreaterThanOrEqual(1)
    expect(seconds).toBeLessThanOrEqual(60)
    expect(answer.data.retry_after_seconds).toBe(seconds)
    expect(answer.data.message).toContain(seconds === 1 ? "in 1 second." : `in ${seconds} seconds.`)
    expect(answer.headers["access-control-expose-headers"]).toMatch(/Retry-After/i)
  }

  medusaIntegrationTestRunner({
    testSuite: ({ api, getContainer }) => {
      let store: StoreFixture

      /** A shopper at `ip`, checked for the account secret; sessions in BTC unless told. */
      const shopper = (ip: string) => {
        const client = shopperAt(api, store, ip, (answer) => watch.check(answer))
        return { ...client, paySession: (collectionId: string, data: Record<string, unknown> = BTC) => client.paySession(collectionId, data) }
      }

      const sessionOf = (answer: Answer) =>
        answer.data.payment_collection.payment_sessions.find((s: { provider_id: string }) => s.provider_id === PROVIDERS.default)

      beforeEach(async () => {
        await env.control.reset()
        await resetCounters()
        store = await createStoreFixture(getContainer())
      })

      describe("payment sessions (a quote and a shift each)", () => {
        it("give a shopper's IP two a minute, then answer 429 with the wait", async () => {
          const shop = shopper("198.51.100.10")
          const carts = [await shop.cart(), await shop.cart(), await shop.cart()]
          expect((await shop.paySession(carts[0].collectionId)).status).toBe(200)
          expect((await shop.paySession(carts[1].collectionId)).status).toBe(200)
          const refused = await shop.paySession(carts[2].collectionId)
          expectTooManyRequests(refused, /^Too many crypto payments were started from your connection; please try again in \d+ seconds?\.$/)
          // Refused before Medusa's workflow: no session, nothing spent upstream.
          expect(await liveSessions(getContainer(), carts[2].collectionId)).toEqual([])
          expect(await upstream("POST", "/v2/shifts/fixed")).toHaveLength(2)
          expect(await upstream("POST", "/v2/quotes")).toHaveLength(2)
        })

        it("give a cart three a minute, from whatever IPs, and keep its last session when refusing the fourth", async () => {
          const { collectionId } = await shopper("198.51.100.20").cart()
          let last: string | undefined
          // Each a different coin: asking again for the same one gets the waiting session back, which costs nothing.
          const coins = ["bitcoin", "litecoin", "dogecoin", "solana"].map((network) => ({ deposit_coin: COIN_OF[network], deposit_network: network }))
          for (const [i, ip] of ["198.51.100.20", "198.51.100.21", "198.51.100.22"].entries()) {
            const created = await shopper(ip).paySession(collectionId, coins[i])
            expect(created.status).toBe(200)
            last = sessionOf(created).id
          }
          const refused = await shopper("198.51.100.23").paySession(collectionId, coins[3])
          expectTooManyRequests(refused, /^Too many crypto payments were started for this cart; please try again in \d+ seconds?\.$/)
          expect((await liveSessions(getContainer(), collectionId)).map((session) => session.id)).toEqual([last])
        })

        it("let an honest shopper pay while another IP floods, and the flood costs the service only its own budget", async () => {
          const flooder = shopper("203.0.113.66")
          const honest = shopper("198.51.100.30")
          const floodCarts = []
          for (let i = 0; i < 8; i++) floodCarts.push(await flooder.cart())
          const honestCart = await honest.cart()
          await env.control.clearRequests()

          const [honestAnswer, ...flood] = await Promise.all([
            honest.paySession(honestCart.collectionId),
            ...floodCarts.map((cart) => flooder.paySession(cart.collectionId)),
          ])
          expect(honestAnswer.status).toBe(200)
          expect(sessionOf(honestAnswer).data.shift_id).toEqual(expect.any(String))
          expect(flood.filter((answer) => answer.status === 200)).toHaveLength(2)
          const refused = flood.filter((answer) => answer.status !== 200)
          expect(refused).toHaveLength(6)
          for (const answer of refused) expectTooManyRequests(answer, /from your connection/)
          // Three shifts upstream: the honest one and the flood's two.
          expect(await upstream("POST", "/v2/shifts/fixed")).toHaveLength(3)
          // The store still has room: a third shopper pays too.
          const third = shopper("198.51.100.31")
          expect((await third.paySession((await third.cart()).collectionId)).status).toBe(200)
        })

        it("are held to the store's budget, shared with the store's other server processes", async () => {
          // Another server process of the store admits two payments through the same Redis counters.
          const otherProcess = new AdmissionLimiter(redisLimiters(redis, ADMISSION_KEY_PREFIX))
          for (const n of [1, 2]) {
            const admission = await admitSession(otherProcess, DEFAULTS, { cart: `collection:elsewhere-${n}`, ip: `192.0.2.${n}` })
            expect(admission.admitted).toBe(true)
          }
          const shoppers = ["198.51.100.40", "198.51.100.41", "198.51.100.42"].map(shopper)
          const carts = []
          for (const shop of shoppers) carts.push(await shop.cart())
          expect((await shoppers[0].paySession(carts[0].collectionId)).status).toBe(200)
          expect((await shoppers[1].paySession(carts[1].collectionId)).status).toBe(200)
          // Four a minute for the store: the third shopper here is the fifth payment.
          const refused = await shoppers[2].paySession(carts[2].collectionId)
          expectTooManyRequests(refused, /^Crypto checkout is very busy right now; please try again in \d+ seconds?\.$/)
          expect(await upstream("POST", "/v2/shifts/fixed")).toHaveLength(2)
          // What the refused request took from its IP's and its cart's budgets was given back.
          expect(await redis.get(`${ADMISSION_KEY_PREFIX}sessions:ip:198.51.100.42`)).toBe("0")
          expect(await redis.get(`${ADMISSION_KEY_PREFIX}sessions:cart:collection:${carts[2].collectionId}`)).toBe("0")
          expect(await redis.get(`${ADMISSION_KEY_PREFIX}sessions:store:store`)).toBe("5")
        })

        it("spend nothing on a top-up asked for again: the waiting one is given back, no shift is made", async () => {
          const shop = shopper("198.51.100.55")
          const { cartId, collectionId } = await shop.cart()
          const made = await shop.paySession(collectionId, { deposit_coin: "ETH", deposit_network: "zksync", refund_address: "0x52908400098527886E0F7030069857D2E4169EE7" })
          const session = sessionOf(made)
          // Half the amount arrives and is confirmed: the rest is to pay.
          await env.control.deposit(session.data.shift_id, { amount: session.data.deposit_min })
          await env.control.setStatus(session.data.shift_id, "processing")
          await reconcile(getContainer())
          const first = await shop.post(`${ROUTES}/payment-sessions/${session.id}/top-up`, { cart_id: cartId })
          expect(first.status).toBe(201)
          const spent = await redis.get(`${ADMISSION_KEY_PREFIX}sessions:store:store`)
          const again = await shop.post(`${ROUTES}/payment-sessions/${session.id}/top-up`, { cart_id: cartId })
          expect({ status: again.status, address: again.data.payment?.top_up?.deposit?.address, message: again.data.message }).toEqual({ status: 201, address: first.data.payment.top_up.deposit.address, message: undefined })
          expect(await redis.get(`${ADMISSION_KEY_PREFIX}sessions:store:store`)).toBe(spent)

          // That one ran out; a double click asks for a new one twice at once: one is made, and the other, handed it, spends nothing.
          const [waiting] = await ledgerOf(getContainer()).listSwapShifts({ payment_session_id: session.id, kind: "top_up" })
          await ledgerOf(getContainer()).updateSwapShifts({ id: waiting.id, expires_at: new Date(Date.now() - 60_000) })
          await resetCounters()
          const clicks = await Promise.all([1, 2].map(() => shop.post(`${ROUTES}/payment-sessions/${session.id}/top-up`, { cart_id: cartId })))
          expect(clicks.map((click) => click.status)).toEqual([201, 201])
          expect(await ledgerOf(getContainer()).listSwapShifts({ payment_session_id: session.id, kind: "top_up" })).toHaveLength(2)
          expect(await redis.get(`${ADMISSION_KEY_PREFIX}sessions:store:store`)).toBe("1")
        })

        it("hold requotes to the same budgets: an honest requote goes through, a repeated one gets 429 and keeps the session", async () => {
          const shop = shopper("198.51.100.50")
          const { cartId, collectionId } = await shop.cart()
          const first = sessionOf(await shop.paySession(collectionId))
          await env.control.advanceClock(16 * 60)
          const requoted = await shop.post(`${ROUTES}/payment-sessions/${first.id}/requote`, { cart_id: cartId })
          expect(requoted.status).toBe(201)
          const fresh = requoted.data.payment_session
          expect(fresh.data.shift_id).toEqual(expect.any(String))
          // Two sessions a minute from this IP are spent (the first and the requote).
          const again = await shop.post(`${ROUTES}/payment-sessions/${fresh.id}/requote`, { cart_id: cartId })
          expectTooManyRequests(again, /from your connection/)
          expect((await liveSessions(getContainer(), collectionId)).map((session) => session.id)).toEqual([fresh.id])
          expect(await upstream("POST", "/v2/shifts/fixed")).toHaveLength(2)
        })

        it("turn the service's own 429 into a 429 with its wait, and leave no half-made session", async () => {
          // As the service does: a few shift creations a minute per calling IP (here 1), answered 429 with Retry-After.
          await env.control.configure({ rateLimits: { shiftsPerMinute: 1 } })
          const first = shopper("198.51.100.60")
          expect((await first.paySession((await first.cart()).collectionId)).status).toBe(200)
          const second = shopper("198.51.100.61")
          const { cartId, collectionId } = await second.cart()
          const refused = await second.paySession(collectionId)
          expectTooManyRequests(refused, /^The crypto payment service is busy; please try again in \d+ seconds?\.$/)
          const refusedUpstream = (await upstream("POST", "/v2/shifts/fixed")).filter((entry) => entry.status === 429)
          expect(refusedUpstream).toHaveLength(1)
          expect(await liveSessions(getContainer(), collectionId)).toEqual([])
          // Its quote was spent at the service, whose window is still full: the store's slot is not given back, or a
          // flood of fresh addresses would go on spending the service's quotes while it refuses their shifts.
          expect(await redis.get(`${ADMISSION_KEY_PREFIX}sessions:store:store`)).toBe("2")
          // The cart is untouched otherwise: once the service has room, the same shopper pays.
          await env.control.reset()
          await resetCounters()
          const paid = await second.paySession(collectionId)
          expect(paid.status).toBe(200)
          expect((await second.get(`${ROUTES}/payment-sessions/${sessionOf(paid).id}?cart_id=${cartId}`)).status).toBe(200)
        })

        it("let a shopper the service refused ask again on the place they spent, once, while the store's minute is full", async () => {
          await env.control.configure({ rateLimits: { shiftsPerMinute: 1 } })
          const first = shopper("198.51.100.62")
          expect((await first.paySession((await first.cart()).collectionId)).status).toBe(200)
          const second = shopper("198.51.100.63")
          const { collectionId } = await second.cart()
          expectTooManyRequests(await second.paySession(collectionId), /^The crypto payment service is busy/)
          // Other shoppers fill the store's minute meanwhile; the service's window has room again.
          await redis.set(`${ADMISSION_KEY_PREFIX}sessions:store:store`, String(DEFAULTS.sessionsPerStorePerMinute), "KEEPTTL")
          await env.control.configure({ rateLimits: {} })
          expectTooManyRequests(await shopper("198.51.100.64").paySession((await shopper("198.51.100.64").cart()).collectionId), /^Crypto checkout is very busy/)
          // The refused shopper pays on the place their refused session spent, without waiting for the next minute.
          expect((await second.paySession(collectionId)).status).toBe(200)
          // Once: another cart of theirs waits like everyone else.
          expectTooManyRequests(await second.paySession((await second.cart()).collectionId), /^Crypto checkout is very busy/)
        })
      })

      describe("reads (estimate, permissions)", () => {
        it("answer any number of shoppers asking for an estimate at once with a bounded number of upstream reads", async () => {
          const shop = shopper("198.51.100.70")
          const { cartId } = await shop.cart()
          await env.control.clearRequests()
          const url = `${ROUTES}/estimate?cart_id=${cartId}&coin=BTC&network=bitcoin`
          const answers = await Promise.all(Array.from({ length: DEFAULTS.readsPerCartPerMinute }, () => shop.get(url)))
          expect(answers.map((answer) => answer.status)).toEqual(Array(DEFAULTS.readsPerCartPerMinute).fill(200))
          expect(new Set(answers.map((answer) => JSON.stringify(answer.data))).size).toBe(1)
          expect(answers[0].data.estimate).toMatchObject({ deposit_coin: "BTC", amount_due: "49.99", deposit_amount: expect.stringMatching(/^\d+\.\d+$/) })
          // The pair's rate, and its rate at the deposit's amount band: two reads for all of them.
          expect(await upstream("GET", /^\/v2\/pair\//)).toHaveLength(2)

          // The cart's read budget is spent.
          expectTooManyRequests(await shop.get(url), /^Too many requests for this cart; please try again in \d+ seconds?\.$/)
          // Another shopper's cart asks the same pair and amount: answered from the cache.
          const other = shopper("198.51.100.71")
          const otherCart = await other.cart()
          const cached = await other.get(`${ROUTES}/estimate?cart_id=${otherCart.cartId}&coin=btc&network=BITCOIN`)
          expect(cached.status).toBe(200)
          expect(cached.data.estimate.deposit_amount).toBe(answers[0].data.estimate.deposit_amount)
          expect(await upstream("GET", /^\/v2\/pair\//)).toHaveLength(2)
        })

        it("answer any number of permission checks from one IP with one upstream read, then 429 past the IP's budget", async () => {
          const shop = shopper("198.51.100.80")
          const answers = await Promise.all(Array.from({ length: DEFAULTS.readsPerIpPerMinute }, () => shop.get(`${ROUTES}/permissions`)))
          for (const answer of answers) expect(answer).toMatchObject({ status: 200, data: { permissions: { create_shift: true } } })
          const asked = await upstream("GET", "/v2/permissions")
          expect(asked).toHaveLength(1)
          expect(asked[0].userIp).toBe("198.51.100.80")
          expectTooManyRequests(await shop.get(`${ROUTES}/permissions`), /^Too many requests from your connection; please try again in \d+ seconds?\.$/)
          // Another shopper is asked about on their own.
          expect((await shopper("198.51.100.81").get(`${ROUTES}/permissions`)).status).toBe(200)
          expect(await upstream("GET", "/v2/permissions")).toHaveLength(2)
        })

        it("turn the service's 429 on an estimate into a 429 with its wait, and read again afterwards", async () => {
          const shop = shopper("198.51.100.90")
          const { cartId } = await shop.cart()
          await env.control.addFault({ method: "GET", path: "/v2/pair/*/*", status: 429, headers: { "Retry-After": "30" }, body: JSON.stringify({ error: { message: "Rate limit exceeded" } }) })
          const url = `${ROUTES}/estimate?cart_id=${cartId}&coin=LTC&network=litecoin`
          const refused = await shop.get(url)
          expectTooManyRequests(refused, /^The crypto payment service is busy; please try again in 30 seconds\.$/)
          expect(refused.headers["retry-after"]).toBe("30")
          expect(await upstream("GET", /^\/v2\/pair\//)).toHaveLength(1)
          // A refusal is not cached: once the service has room, the pair is read again (its rate, and at the amount).
          await env.control.clearFaults()
          const estimated = await shop.get(url)
          expect(estimated.status).toBe(200)
          expect(await upstream("GET", /^\/v2\/pair\//)).toHaveLength(3)
          expect(estimated.data.estimate.deposit_coin).toBe("LTC")
        })
      })
    },
  })
}
