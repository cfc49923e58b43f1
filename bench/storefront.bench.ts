import { medusaIntegrationTestRunner } from "@medusajs/test-utils"
import { useSandboxProcess } from "../integration-tests/helpers/sandbox-process"
import { createStoreFixture, PROVIDERS } from "../integration-tests/helpers/store-fixtures"
import { storefront } from "../integration-tests/helpers/storefront"
import { setTimeout as sleep } from "node:timers/promises"
import { ContainerRegistrationKeys } from "@medusajs/framework/utils"
import { figure, median, ms, percentile, reportBenchmark, size, timed, verdict } from "./harness"

// Benchmarks 1 (checkout overhead) and 4 (storefront status polling): what a shopper's requests cost.
jest.setTimeout(15 * 60 * 1000)

const env = useSandboxProcess()
const BTC = { deposit_coin: "BTC", deposit_network: "bitcoin" }
/** Every upstream path the plugin calls: `*` stands for one path segment in the sandbox's faults. */
const UPSTREAM_PATHS = ["/v2/*", "/v2/*/*", "/v2/*/*/*", "/graphql"]

type PaymentPage = { cartId: string; sessionId: string; shiftId: string }

medusaIntegrationTestRunner({
  testSuite: ({ api, getContainer }) => {
    async function shopper() {
      const store = await createStoreFixture(getContainer())
      const shop = storefront(api, store)
      /** A cart with its payment collection, ready for a payment session (not timed). */
      async function collection() {
        const cart = await shop.createCart()
        const { data } = await api.post("/store/payment-collections", { cart_id: cart.id }, shop.headers)
        return { cartId: cart.id as string, collectionId: data.payment_collection.id as string }
      }
      async function createSession(collectionId: string, providerId: string) {
        const data = providerId === PROVIDERS.system ? {} : BTC
        const response = await api.post(`/store/payment-collections/${collectionId}/payment-sessions`, { provider_id: providerId, data }, shop.headers)
        return response.data.payment_collection.payment_sessions.find((s: { provider_id: string }) => s.provider_id === providerId)
      }
      return { collection, createSession, headers: shop.headers }
    }

    /**
     * `count` sessions of each provider, interleaved (the order alternates per pair), timing only the
     * store route that creates the session; also counts the upstream requests of each crypto session.
     */
    async function measureCheckout({ collection, createSession }: Awaited<ReturnType<typeof shopper>>, count: number) {
      // Warm-up: JIT, connection pools and the coin catalogue (cached 10 minutes by default).
      for (let i = 0; i < 3; i++) {
        await createSession((await collection()).collectionId, PROVIDERS.default)
        await createSession((await collection()).collectionId, PROVIDERS.system)
      }
      const times: Record<string, number[]> = { [PROVIDERS.default]: [], [PROVIDERS.system]: [] }
      const upstream: string[][] = []
      const sessions: PaymentPage[] = []
      for (let i = 0; i < count; i++) {
        const order = i % 2 ? [PROVIDERS.system, PROVIDERS.default] : [PROVIDERS.default, PROVIDERS.system]
        for (const providerId of order) {
          const { cartId, collectionId } = await collection()
          await env.sandbox.clearRequests()
          const { result: session, ms: elapsed } = await timed(() => createSession(collectionId, providerId))
          times[providerId].push(elapsed)
          if (providerId === PROVIDERS.default) {
            expect(session.data.shift_id).toEqual(expect.any(String))
            upstream.push((await env.sandbox.requests()).map((request) => `${request.method} ${request.path.replace(session.data.shift_id, ":id")}`))
            sessions.push({ cartId, sessionId: session.id, shiftId: session.data.shift_id })
          } else {
            expect(session.status).toBe("pending")
          }
        }
      }
      const crypto = times[PROVIDERS.default]
      const system = times[PROVIDERS.system]
      expect(crypto).toHaveLength(count)
      expect(system).toHaveLength(count)
      return {
        crypto: { median: median(crypto), p95: percentile(crypto, 95) },
        system: { median: median(system), p95: percentile(system, 95) },
        upstream,
        sessions,
      }
    }

    /**
     * SQL statements one session costs, each provider on its own: from the request until the database
     * has been quiet for 100 ms (the crypto session's ledger record is written by a subscriber beside
     * the request, and counts).
     */
    async function statementsPerSession({ collection, createSession }: Awaited<ReturnType<typeof shopper>>, providerId: string) {
      const knex = getContainer().resolve(ContainerRegistrationKeys.PG_CONNECTION)
      const { collectionId } = await collection()
      let statements = 0
      const count = () => statements++
      knex.on("query", count)
      try {
        await createSession(collectionId, providerId)
        for (let seen = -1; seen !== statements; ) {
          seen = statements
          await sleep(100)
        }
        return statements
      } finally {
        knex.off("query", count)
      }
    }

    // One test, so the status polling reuses the checkout benchmark's carts instead of making 100 more.
    it("1 and 4. checkout overhead, then storefront status polling on the same carts", async () => {
      const count = size(60, 10)
      const latencyCount = size(15, 3)
      const latencyMs = 50

      const shop = await shopper()
      const plain = await measureCheckout(shop, count)
      const sql = { crypto: await statementsPerSession(shop, PROVIDERS.default), system: await statementsPerSession(shop, PROVIDERS.system) }
      for (const path of UPSTREAM_PATHS) await env.sandbox.addFault({ path, delayMs: latencyMs })
      const slow = await measureCheckout(shop, latencyCount)
      await env.sandbox.clearFaults()

      const requestCounts = plain.upstream.map((requests) => requests.length)
      const sequences = new Map<string, number>()
      for (const requests of plain.upstream) sequences.set(requests.join(", "), (sequences.get(requests.join(", ")) ?? 0) + 1)
      expect(Math.min(...requestCounts)).toBeGreaterThan(0)

      const ratio = plain.crypto.median / plain.system.median
      const p95Ratio = plain.crypto.p95 / plain.system.p95
      // What the injected latency added to the crypto session beyond what it added to the system one,
      // in round trips: the quote and the shift depend on each other, so 2 is the floor.
      const addedMs = slow.crypto.median - slow.system.median - (plain.crypto.median - plain.system.median)
      const sequentialTrips = addedMs / latencyMs
      const slowRequests = slow.upstream.map((requests) => requests.length)

      reportBenchmark("checkout overhead", {
        method:
          `Wall time of \`POST /store/payment-collections/:id/payment-sessions\` (the real store route, over HTTP) with ` +
          `\`${PROVIDERS.default}\` (fixed shift, BTC) and with Medusa's \`${PROVIDERS.system}\`, on the same app, ${count} sessions ` +
          `each, interleaved (the order alternates per pair), each on a fresh cart and payment collection created untimed; ` +
          `3 warm-up sessions per provider first (coin catalogue warm). Upstream requests are the sandbox's request log ` +
          `for each session. Then ${latencyCount} sessions each with ${latencyMs} ms added to every upstream request ` +
          `(sandbox faults with \`delayMs\`). The sandbox runs in a process of its own.`,
        figures: [
          ["crypto-swap median / p95 (latency 0)", `${ms(plain.crypto.median)} / ${ms(plain.crypto.p95)}`],
          ["system_default median / p95 (latency 0)", `${ms(plain.system.median)} / ${ms(plain.system.p95)}`],
          ["**ratio of medians** (latency 0)", ratio.toFixed(2)],
          ["ratio of p95s (latency 0)", p95Ratio.toFixed(2)],
          ["upstream requests per crypto session (min / max)", `${Math.min(...requestCounts)} / ${Math.max(...requestCounts)}`],
          ["SQL statements per session, crypto-swap / system_default", `${sql.crypto} / ${sql.system}`],
          ["upstream request sequences seen", [...sequences].map(([sequence, n]) => `${sequence} (${figure(n)}x)`).join("; ")],
          [`crypto-swap median (latency ${latencyMs} ms)`, ms(slow.crypto.median)],
          [`system_default median (latency ${latencyMs} ms)`, ms(slow.system.median)],
          [`upstream requests per crypto session (latency ${latencyMs} ms, min / max)`, `${Math.min(...slowRequests)} / ${Math.max(...slowRequests)}`],
          ["latency added to a crypto session, in round trips of 50 ms", sequentialTrips.toFixed(2)],
        ],
        findings: [
          `Ratio of medians [<= 1.10]: ${verdict(+ratio.toFixed(2), 1.1)}.`,
          `Upstream requests per session [exactly 2]: ${requestCounts.every((n) => n === 2) ? "met (every session made 2)" : `**missed**: sessions made ${Math.min(...requestCounts)} to ${Math.max(...requestCounts)}`}.`,
          `With ${latencyMs} ms per upstream request the crypto session grew by ${sequentialTrips.toFixed(2)} round trips more than the system one: ` +
            `${sequentialTrips <= 2.5 ? "only the two that depend on each other (the shift needs the quote's id), no avoidable sequential round trip" : "more than the quote and the shift, so some round trips could be avoided or overlapped"}.`,
        ],
      })
      await measureStatusPolling(shop, [...plain.sessions, ...slow.sessions])
    })


    /** Benchmark 4: payment pages polling the status route of sessions made by benchmark 1. */
    async function measureStatusPolling(shop: Awaited<ReturnType<typeof shopper>>, made: PaymentPage[]) {
      const pages = size(70, 10)
      const durationMs = size(20_000, 10_000)
      const everyMs = 2000
      const sessions = made.slice(0, pages)
      expect(sessions).toHaveLength(pages)
      const statusUrl = ({ cartId, sessionId }: PaymentPage) => `/store/crypto-swap/payment-sessions/${sessionId}?cart_id=${cartId}`

      // One request at a time first: the route against Medusa's own cart read, on the same app and cart.
      const serial = { route: [] as number[], cart: [] as number[] }
      for (let i = 0; i < size(50, 5); i++) {
        serial.route.push((await timed(() => api.get(statusUrl(sessions[0]), shop.headers))).ms)
        serial.cart.push((await timed(() => api.get(`/store/carts/${sessions[0].cartId}`, shop.headers))).ms)
      }
      await env.sandbox.clearRequests()

      const routeTimes: number[] = []
      const started = performance.now()
      let lastAnswer = started
      // As a payment page does: ask, show the answer, ask again 2 s later. Pages open at offsets spread over the first 2 s.
      await Promise.all(
        sessions.map(async (session, index) => {
          await sleep((index * everyMs) / pages)
          while (performance.now() - started < durationMs) {
            const { result, ms: elapsed } = await timed(() => api.get(statusUrl(session), shop.headers))
            expect((result as { data: { payment: { stage: string } } }).data.payment.stage).toBe("awaiting_deposit")
            routeTimes.push(elapsed)
            lastAnswer = performance.now()
            await sleep(everyMs)
          }
        })
      )
      const minutes = (lastAnswer - started) / 60_000
      const readsByShift = new Map(sessions.map(({ shiftId }) => [shiftId, 0]))
      const logged = await env.sandbox.requests()
      for (const request of logged) {
        const shiftId = /^\/v2\/shifts\/([^/]+)$/.exec(request.path)?.[1]
        if (request.method === "GET" && shiftId && readsByShift.has(shiftId)) readsByShift.set(shiftId, readsByShift.get(shiftId)! + 1)
      }
      const reads = [...readsByShift.values()]
      const otherRequests = logged.length - reads.reduce((sum, n) => sum + n, 0)
      const perSessionPerMinute = reads.map((n) => n / minutes)
      expect(routeTimes.length).toBeGreaterThanOrEqual(pages)
      expect(reads.every((n) => n > 0)).toBe(true)

      const worst = Math.max(...perSessionPerMinute)
      const serialRatio = median(serial.route) / median(serial.cart)
      // What the pages would ask for if every answer came as fast as one at a time.
      const demand = pages / ((everyMs + median(serial.route)) / 1000)
      const served = routeTimes.length / (minutes * 60)
      reportBenchmark("storefront status polling", {
        method:
          `${pages} of the crypto payment sessions benchmark 1 made (\`${PROVIDERS.default}\`, real carts through the store routes, shifts waiting for a deposit), ` +
          `each polled by its own "page" calling \`GET /store/crypto-swap/payment-sessions/:id?cart_id=\` and waiting ${everyMs / 1000} s after each answer, ` +
          `for ${durationMs / 1000} s, pages opened at offsets spread over the first ${everyMs / 1000} s, all concurrent. Upstream reads are the sandbox's ` +
          `logged \`GET /v2/shifts/:id\` per shift. Before that, ${serial.route.length} polls one at a time against as many \`GET /store/carts/:id\` ` +
          `(Medusa's own cart read) on the same cart.`,
        figures: [
          ["one at a time: status route median / cart read median", `${ms(median(serial.route))} / ${ms(median(serial.cart))}`],
          ["**ratio** status route / cart read (one at a time)", serialRatio.toFixed(2)],
          ["polls answered (all pages)", figure(routeTimes.length)],
          ["polls per second: at one-at-a-time speed / answered", `${demand.toFixed(1)} / ${served.toFixed(1)}`],
          ["polls per page per minute", (routeTimes.length / pages / minutes).toFixed(1)],
          [`route median / p95 under the ${pages} pages`, `${ms(median(routeTimes))} / ${ms(percentile(routeTimes, 95))}`],
          ["upstream reads per session per minute (mean / max)", `${(perSessionPerMinute.reduce((a, b) => a + b, 0) / pages).toFixed(1)} / ${worst.toFixed(1)}`],
          ["other upstream requests during the polling", figure(otherRequests)],
        ],
        findings: [
          `Upstream reads per session per minute [<= 30]: ${verdict(+worst.toFixed(1), 30)} (worst session; the route reads the service at most once per 3 s per session).`,
          `Route p95 under load: ${ms(percentile(routeTimes, 95))}, against ${ms(median(serial.route))} one at a time, where the route costs ` +
            `${serialRatio.toFixed(2)}x Medusa's own cart read. ` +
            (served < demand * 0.9
              ? `The pages would have asked for ${demand.toFixed(1)} answers a second at one-at-a-time speed and got ${served.toFixed(1)}: the app (one process on this 2-core machine, ` +
                `sharing it with PostgreSQL, the sandbox and jest) was saturated and requests queued, so the p95 measures the machine's capacity more than the route.`
              : `The app kept up with the ${demand.toFixed(1)} answers a second the pages asked for.`),
        ],
      })
    }
  },
})
