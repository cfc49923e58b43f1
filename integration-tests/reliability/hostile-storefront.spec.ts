import fc from "fast-check"
import { medusaIntegrationTestRunner } from "@medusajs/test-utils"
import { useSandbox } from "../helpers/sandbox"
import { watchSecrets } from "../helpers/secret-watch"
import { createStoreFixture, PROVIDERS } from "../helpers/store-fixtures"
import { storefront } from "../helpers/storefront"
import { reconcile } from "../helpers/ledger"
import { findCoinNetwork, coinSchema } from "../../src/lib/swap-service"
import { storefrontInputSchema } from "../../src/lib/shift/storefront-input"
import { internalDetail, send, type RawAnswer } from "./http"
import { figure, reportSecrets, tallyOf, tallyTable, writeReportSection, type Tally } from "./report"
import { stateSnapshot, snapshotSize } from "./state"
import { propertyParams, propertySeed } from "../helpers/property-runs"

jest.setTimeout(300_000)

const env = useSandbox()
const watch = watchSecrets({ onClean: reportSecrets("hostile-storefront") })

/** Generated requests: to the plugin's store routes, and payment session `data` through Medusa's own route. */
const ROUTE_RUNS = 700
const SESSION_RUNS = 300
const ROUTES = "/store/crypto-swap"
const BTC = { deposit_coin: "BTC", deposit_network: "bitcoin" }
const BTC_REFUND = "bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq"
const TOKEN = /^[A-Za-z0-9._:-]+$/
/** Providers that turn `data` into a shift: the coin the shopper names is checked against the catalogue. */
const SHIFT_PROVIDERS = [PROVIDERS.default, PROVIDERS.settled, PROVIDERS.beforePayment]

type Query = Array<[string, string]>
type Attack = { kind: string; route: string; method: string; path: string; headers: Record<string, string>; body?: string }

const queryString = (query: Query) =>
  query.length ? `?${query.map(([key, value]) => `${key}=${encodeURIComponent(value)}`).join("&")}` : ""

medusaIntegrationTestRunner({
  testSuite: ({ api, getContainer }) => {
    it("refuses generated hostile storefront input with a 4xx and a reason, never a 5xx, a state change or another cart's session", async () => {
      const container = getContainer()
      const baseUrl = api.defaults.baseURL as string
      const store = await createStoreFixture(container)
      const shop = storefront(api, store)
      const KEY = { "x-publishable-api-key": store.publishableKey }
      const JSON_TYPE = { ...KEY, "content-type": "application/json" }

      // --- The shoppers the attacks aim at ----------------------------------------------------
      // A waiting direct shift, a deposit of the wrong amount waiting for a refund address, and a
      // hosted checkout; the attacker has a cart of their own with an empty payment collection.
      const waitingCart = await shop.createCart()
      const waiting = await shop.createPaymentSession(waitingCart.id, PROVIDERS.default, { ...BTC, refund_address: BTC_REFUND })
      const refundCart = await shop.createCart()
      const refund = await shop.createPaymentSession(refundCart.id, PROVIDERS.default, BTC)
      await env.control.deposit(refund.session.data.shift_id, { amount: "0.00001" })
      const checkoutCart = await shop.createCart()
      const checkout = await shop.createPaymentSession(checkoutCart.id, PROVIDERS.checkout, BTC)
      await reconcile(container)
      const attackerCart = await shop.createCart()
      const {
        data: { payment_collection: attackerCollection },
      } = await api.post("/store/payment-collections", { cart_id: attackerCart.id }, shop.headers)
      const victims = [
        { cart: waitingCart, ...waiting },
        { cart: refundCart, ...refund },
        { cart: checkoutCart, ...checkout },
      ]
      // What would give another cart's payment away, wherever it showed up in an answer.
      const secrets = victims.flatMap(({ session }) =>
        [session.data.shift_id, session.data.deposit_address, session.data.checkout_id, session.data.pay_url].filter(Boolean)
      ) as string[]
      const coins = coinSchema.array().parse(await (await fetch(`${env.sandbox.baseUrl}/v2/coins`)).json())

      // --- Generators -------------------------------------------------------------------------
      const victim = fc.constantFrom(...victims)
      const cartIds = [attackerCart.id, ...victims.map(({ cart }) => cart.id)]
      const otherCart = (cartId: string) => fc.constantFrom(...cartIds.filter((id) => id !== cartId))
      const tokenValid = fc.stringMatching(/^[A-Za-z0-9._:-]{1,64}$/)
      const unknownCartId = fc.stringMatching(/^[0-9A-Z]{26}$/).map((id) => `cart_${id}`)
      /** A string no id, coin or address field may take: empty, blank, too long, odd characters, injections. */
      const badText = fc.oneof(
        fc.string({ minLength: 1, maxLength: 40 }).filter((text) => !TOKEN.test(text.trim())),
        fc.string({ unit: "binary", minLength: 1, maxLength: 40 }).filter((text) => !TOKEN.test(text.trim())),
        fc.stringMatching(/^[A-Za-z0-9]{257,400}$/),
        fc.constantFrom("", "   ", "BTC\u0000", "x' OR '1'='1", "'; DROP TABLE cart;--", "../../admin", "<script>alert(1)</script>", "\u202eBTC", "ＢＴＣ", "$where", "{{7*7}}")
      )
      const badId = (prefix: string) =>
        fc.oneof(badText, fc.stringMatching(/^[0-9A-Za-z]{1,40}$/).map((id) => `${id}_${prefix}`), fc.stringMatching(/^[0-9A-Za-z]{60,80}$/).map((id) => `${prefix}_${id}`), tokenValid.filter((id) => !id.startsWith(`${prefix}_`)))
      const wrongType = fc.oneof(fc.integer(), fc.boolean(), fc.constant(null), fc.array(fc.string(), { maxLength: 3 }), fc.dictionary(fc.string(), fc.string(), { maxKeys: 3 }))
      const unknownKey = fc.oneof(
        fc.constantFrom("amount", "settle_address", "settle_coin", "shift_id", "checkout_id", "status", "mode", "refunds", "ip", "__proto__", "constructor", "provider"),
        fc.stringMatching(/^[a-z_]{1,20}$/)
      )

      /**
       * A query the route would accept, with one mutation that makes it hostile. `allowed` is the
       * set of keys it knows, so an added key is always unknown.
       */
      const hostileQuery = (valid: Query, allowed: string[], fields: Record<string, fc.Arbitrary<string>>) =>
        fc.oneof(
          // The query parser drops `__proto__` and `constructor` itself: what is left is the valid query.
          fc.tuple(unknownKey.filter((key) => !allowed.includes(key) && !(key in Object.prototype)), fc.string({ maxLength: 20 })).map(([key, value]) => ({
            kind: "unknown query field",
            query: [...valid, [key, value]] as Query,
          })),
          ...Object.entries(fields).map(([field, value]) =>
            value.map((bad) => ({
              kind: `bad ${field}`,
              query: (valid.some(([k]) => k === field) ? valid.map(([k, v]) => (k === field ? [k, bad] : [k, v])) : [...valid, [field, bad]]) as Query,
            }))
          ),
          ...(valid.length === 0
            ? []
            : [
                fc.constantFrom(...valid).map(([key, value]) => ({ kind: "repeated or nested query field", query: [...valid, [key, value]] as Query })),
                fc.tuple(fc.constantFrom(...valid), fc.constantFrom("[]", "[a]", "[0]", "[__proto__]")).map(([[key, value], suffix]) => ({
                  kind: "repeated or nested query field",
                  query: valid.map(([k, v]) => (k === key ? [`${k}${suffix}`, v] : [k, v])) as Query,
                })),
                fc.constantFrom(...valid).map(([key]) => ({ kind: "missing query field", query: valid.filter(([k]) => k !== key) })),
              ])
        )
      const get = (route: string, path: string) => (mutation: { kind: string; query: Query }): Attack => ({
        kind: mutation.kind,
        route,
        method: "GET",
        path: `${path}${queryString(mutation.query)}`,
        headers: KEY,
      })

      const cartQuery: Query = [["cart_id", attackerCart.id]]
      const cartField = fc.oneof(badId("cart"), unknownCartId)
      const providerField = fc.oneof(badText, fc.constantFrom(PROVIDERS.system, "pp_crypto-swap_nope", "pp_crypto-swap_crypto-swap-", "pp_stripe_stripe"))
      const coinsRoute = hostileQuery(cartQuery, ["cart_id", "provider_id"], { cart_id: cartField, provider_id: providerField }).map(
        get("GET coins", `${ROUTES}/coins`)
      )
      const estimateQuery: Query = [...cartQuery, ["coin", "BTC"], ["network", "bitcoin"]]
      const unknownPair = fc
        .tuple(fc.oneof(tokenValid, fc.constantFrom("BTC", "ETH", "USDT", "XRP")), fc.oneof(tokenValid, fc.constantFrom("bitcoin", "ethereum", "ripple", "tron")))
        .filter(([coin, network]) => !findCoinNetwork(coins, coin.trim(), network.trim()))
      const estimateRoute = fc.oneof(
        hostileQuery(estimateQuery, ["cart_id", "coin", "network", "provider_id"], {
          cart_id: cartField,
          coin: badText,
          network: badText,
          provider_id: providerField,
        }).map(get("GET estimate", `${ROUTES}/estimate`)),
        fc
          .oneof(
            unknownPair.map(([coin, network]) => ({ kind: "coin and network not offered", coin, network })),
            fc.constantFrom({ kind: "the store's own settle coin", coin: "USDC", network: "ethereum" }, { kind: "an offline network", coin: "USDT", network: "avax" })
          )
          .map(({ kind, coin, network }) => get("GET estimate", `${ROUTES}/estimate`)({ kind, query: [...cartQuery, ["coin", coin], ["network", network]] }))
      )
      const permissionsRoute = hostileQuery([], [], {}).map(get("GET permissions", `${ROUTES}/permissions`))

      /** Another cart's session, or an id that is no session: the same answer either way. */
      const sessionTarget = fc.oneof(
        { weight: 3, arbitrary: victim.chain((v) => otherCart(v.cart.id).map((cartId) => ({ kind: "another cart's session", id: v.session.id, cartId }))) },
        { weight: 1, arbitrary: fc.stringMatching(/^[0-9A-Z]{26}$/).map((id) => ({ kind: "unknown session", id: `payses_${id}`, cartId: attackerCart.id })) },
        {
          weight: 2,
          arbitrary: fc.tuple(badId("payses"), fc.constantFrom(...cartIds)).map(([id, cartId]) => ({ kind: "malformed session id", id, cartId })),
        }
      )
      const sessionPath = (id: string, tail = "") => `${ROUTES}/payment-sessions/${encodeURIComponent(id)}${tail}`
      const statusRoute = fc.oneof(
        sessionTarget.map(({ kind, id, cartId }) => ({ kind, route: "GET payment-sessions/:id", method: "GET", path: sessionPath(id) + queryString([["cart_id", cartId]]), headers: KEY })),
        victim.chain((v) =>
          hostileQuery([["cart_id", v.cart.id]], ["cart_id"], { cart_id: cartField }).map(get("GET payment-sessions/:id", sessionPath(v.session.id)))
        )
      )

      /** A body the route would take from its owner (every field required), broken in one way. */
      const hostileBody = (valid: Record<string, unknown>, fields: Record<string, fc.Arbitrary<unknown>>) =>
        fc.oneof(
          fc.tuple(unknownKey.filter((key) => !Object.prototype.hasOwnProperty.call(valid, key) && !Object.prototype.hasOwnProperty.call(fields, key)), fc.jsonValue({ maxDepth: 2 })).map(([key, value]) => ({
            kind: "unknown body field",
            body: JSON.stringify({ ...valid, [key]: value }),
          })),
          ...Object.entries(fields).map(([field, value]) =>
            value.map((bad) => ({ kind: `bad ${field}`, body: JSON.stringify({ ...valid, [field]: bad }) }))
          ),
          fc.constantFrom(...Object.keys(valid)).map((key) => ({
            kind: "missing body field",
            body: JSON.stringify(Object.fromEntries(Object.entries(valid).filter(([k]) => k !== key))),
          })),
          fc.jsonValue({ maxDepth: 3 }).map((value) => ({ kind: "random JSON body", body: JSON.stringify(value) })),
          fc.nat({ max: JSON.stringify(valid).length - 2 }).map((cut) => ({ kind: "malformed JSON", body: JSON.stringify(valid).slice(0, cut + 1) }))
        )
      const post = (route: string, path: string) => ({ kind, body }: { kind: string; body: string }): Attack => ({
        kind,
        route,
        method: "POST",
        path,
        headers: JSON_TYPE,
        body,
      })
      const refundAddressRoute = fc.oneof(
        sessionTarget.map(({ kind, id, cartId }) =>
          post("POST refund-address", sessionPath(id, "/refund-address"))({ kind, body: JSON.stringify({ cart_id: cartId, address: BTC_REFUND }) })
        ),
        victim.chain((v) =>
          hostileBody(
            { cart_id: v.cart.id, address: BTC_REFUND },
            { cart_id: fc.oneof(cartField, wrongType), address: fc.oneof(badText, wrongType), memo: fc.oneof(fc.constantFrom("", "\u0000", "é", "m".repeat(129)), wrongType) }
          ).map(post("POST refund-address", sessionPath(v.session.id, "/refund-address")))
        )
      )
      const requoteRoute = fc.oneof(
        sessionTarget.map(({ kind, id, cartId }) => post("POST requote", sessionPath(id, "/requote"))({ kind, body: JSON.stringify({ cart_id: cartId }) })),
        victim.chain((v) =>
          hostileBody({ cart_id: v.cart.id }, { cart_id: fc.oneof(cartField, wrongType) }).map(post("POST requote", sessionPath(v.session.id, "/requote")))
        )
      )
      const wrongTransport = fc
        .tuple(
          fc.constantFrom(
            { route: "POST refund-address", path: sessionPath(refund.session.id, "/refund-address"), body: { cart_id: refundCart.id, address: BTC_REFUND } },
            { route: "POST requote", path: sessionPath(waiting.session.id, "/requote"), body: { cart_id: waitingCart.id } }
          ),
          fc.oneof(
            // Form encoding is one Medusa reads: only types it does not parse are wrong.
            fc.constantFrom("text/plain", "application/xml", "multipart/form-data; boundary=x", "application/octet-stream").map((type) => ({
              kind: "wrong content type",
              headers: { ...KEY, "content-type": type },
            })),
            fc.constantFrom<{ kind: string; headers: Record<string, string> }>({ kind: "no or wrong publishable key", headers: { "content-type": "application/json" } }, {
              kind: "no or wrong publishable key",
              headers: { "content-type": "application/json", "x-publishable-api-key": "pk_0000000000000000" },
            })
          )
        )
        .map(([target, { kind, headers }]): Attack => ({
          kind,
          route: target.route,
          method: "POST",
          path: target.path,
          headers,
          // The owner's own body: only the transport is wrong, so a 2xx here would be a state change.
          body: JSON.stringify(target.body),
        }))

      const routeAttack: fc.Arbitrary<Attack> = fc.oneof(
        { weight: 2, arbitrary: coinsRoute },
        { weight: 3, arbitrary: estimateRoute },
        { weight: 1, arbitrary: permissionsRoute },
        { weight: 3, arbitrary: statusRoute },
        { weight: 3, arbitrary: refundAddressRoute },
        { weight: 3, arbitrary: requoteRoute },
        { weight: 1, arbitrary: wrongTransport }
      )

      // Payment session `data` through Medusa's own route, into the attacker's empty collection or a
      // victim's collection holding a waiting shift.
      const validData = { ...BTC, refund_address: BTC_REFUND }
      const dataField = fc.oneof(badText, wrongType)
      const hostileData = fc.oneof(
        // Keys the provider knows are no unknown keys (`session_id` and `customer_ip` are replaced by the server).
        fc.tuple(unknownKey.filter((key) => !Object.prototype.hasOwnProperty.call(storefrontInputSchema.shape, key)), fc.jsonValue({ maxDepth: 2 })).map(([key, value]) => ({
          kind: "unknown data field",
          data: { ...validData, [key]: value } as unknown,
          shiftOnly: false,
        })),
        fc.constantFrom(...victims).map(({ session }) => ({
          kind: "another cart's shift or checkout in data",
          data: { ...validData, shift_id: session.data.shift_id ?? session.data.checkout_id, checkout_id: session.data.checkout_id } as unknown,
          shiftOnly: false,
        })),
        ...(["deposit_coin", "deposit_network", "refund_address"] as const).map((field) =>
          dataField.map((bad) => ({ kind: `bad ${field}`, data: { ...validData, [field]: bad } as unknown, shiftOnly: false }))
        ),
        fc.oneof(fc.constantFrom("", "\u0000", "é", "m".repeat(129)), wrongType).map((memo) => ({
          kind: "bad refund_memo",
          data: { ...validData, refund_memo: memo } as unknown,
          shiftOnly: false,
        })),
        fc.constantFrom("deposit_coin", "deposit_network").map((field) => ({
          kind: "missing data field",
          data: Object.fromEntries(Object.entries(validData).filter(([key]) => key !== field)) as unknown,
          shiftOnly: false,
        })),
        fc.jsonValue({ maxDepth: 3 }).map((data) => ({ kind: "random JSON data", data, shiftOnly: false })),
        unknownPair.map(([deposit_coin, deposit_network]) => ({
          kind: "coin and network not offered",
          data: { deposit_coin, deposit_network } as unknown,
          shiftOnly: true,
        })),
        fc
          .constantFrom(
            { kind: "the store's own settle coin", data: { deposit_coin: "USDC", deposit_network: "ethereum" } },
            { kind: "an offline network", data: { deposit_coin: "USDT", deposit_network: "avax" } },
            { kind: "a memo on a network without memos", data: { ...validData, refund_memo: "123" } }
          )
          .map((choice) => ({ ...choice, shiftOnly: true }))
      )
      const sessionAttack: fc.Arbitrary<Attack> = fc
        .tuple(hostileData, fc.constantFrom(attackerCollection.id, waiting.collection.id), fc.constantFrom(...SHIFT_PROVIDERS, PROVIDERS.checkout))
        .map(([{ kind, data, shiftOnly }, collectionId, providerId]) => ({
          kind,
          route: "POST /store/payment-collections/:id/payment-sessions",
          method: "POST",
          path: `/store/payment-collections/${collectionId}/payment-sessions`,
          headers: JSON_TYPE,
          // Hosted checkouts take no coin from the storefront: only shape errors are hostile there.
          body: JSON.stringify({ provider_id: shiftOnly && providerId === PROVIDERS.checkout ? PROVIDERS.default : providerId, data }),
        }))

      // --- Firing ------------------------------------------------------------------------------
      const tally: Tally = new Map()
      const routes = new Map<string, number>()
      // The answer to a session that does not exist, per route: another cart's must be the same.
      const notFound = new Map<string, string>()
      let sent = 0
      const fire = async (attack: Attack) => {
        const answer: RawAnswer = await send(baseUrl, attack)
        sent += 1
        tallyOf(tally, attack.kind, answer.status)
        routes.set(attack.route, (routes.get(attack.route) ?? 0) + 1)
        watch.check(answer, `answer to ${attack.kind}`)
        const where = `${attack.kind}: ${attack.method} ${attack.path.slice(0, 120)} ${attack.body?.slice(0, 200) ?? ""} answered ${answer.status}: ${answer.text.slice(0, 300)}`
        if (answer.status < 400 || answer.status >= 500) throw new Error(where)
        expect(internalDetail(answer.text, attack)).toBeUndefined()
        // A refusal says why, in words: the route's message, or the router's own when a path of dot
        // segments (".", "..", which URLs resolve) leads to no route at all.
        const noRoute = answer.status === 404 && /Cannot (GET|POST) \//.test(answer.text)
        if (!noRoute) expect(typeof (answer.data as { message?: unknown } | undefined)?.message).toBe("string")
        for (const secret of secrets) expect(answer.text).not.toContain(secret)
        if (attack.kind === "another cart's session" || attack.kind === "unknown session") {
          const seen = notFound.get(attack.route)
          if (seen === undefined) notFound.set(attack.route, `${answer.status} ${answer.text}`)
          else expect(`${answer.status} ${answer.text}`).toBe(seen)
        }
      }

      const before = await stateSnapshot(container)
      await env.control.clearRequests()
      // Found by seed 848456142: a refusal quoting an attacker's own field name `D:\…` was taken for a source path.
      const echoedPath = (route: string, path: string, body: Record<string, unknown>) =>
        post(route, path)({ kind: "unknown body field", body: JSON.stringify({ ...body, 'nD:"y4wh 2': null, "D:\\Users\\x": "C:\\src\\index.ts:12" }) })
      await fc.assert(fc.asyncProperty(routeAttack, fire), {
        ...propertyParams("hostile store routes", ROUTE_RUNS),
        examples: [
          [echoedPath("POST requote", sessionPath(waiting.session.id, "/requote"), { cart_id: waitingCart.id })],
          [echoedPath("POST refund-address", sessionPath(refund.session.id, "/refund-address"), { cart_id: refundCart.id, address: BTC_REFUND })],
        ],
      })
      // Found by this property (fixed by the plugin's check before Medusa's workflow): a NUL byte in
      // `data` was a 500, and any refused `data` cost the collection's waiting session its life.
      const intoWaiting = (kind: string, data: Record<string, unknown>): Attack => ({
        kind,
        route: "POST /store/payment-collections/:id/payment-sessions",
        method: "POST",
        path: `/store/payment-collections/${waiting.collection.id}/payment-sessions`,
        headers: JSON_TYPE,
        body: JSON.stringify({ provider_id: PROVIDERS.default, data }),
      })
      const routeSent = sent
      await fc.assert(fc.asyncProperty(sessionAttack, fire), {
        ...propertyParams("hostile session data", SESSION_RUNS),
        examples: [
          [intoWaiting("bad refund_memo", { ...validData, refund_memo: "\u0000" })],
          [intoWaiting("coin and network not offered", { deposit_coin: "NOPE", deposit_network: "bitcoin" })],
        ],
      })

      const sessionSent = sent - routeSent

      // Nothing changed here, and nothing was asked of the service but reads.
      expect(await stateSnapshot(container)).toEqual(before)
      const upstream: Array<{ method: string; path: string }> = watch.check(await env.control.requests(), "upstream requests")
      expect(upstream.filter((request) => request.method !== "GET")).toEqual([])
      expect(notFound.size).toBeGreaterThan(0)

      writeReportSection(
        "Reliability: hostile storefront input",
        [
          `\`integration-tests/reliability/hostile-storefront.spec.ts\`: ${figure(sent)} generated requests (fast-check, seed ${propertySeed()}) from a shopper with a cart of their own, against a store holding another shopper's waiting shift, a wrong-amount deposit waiting for a refund address and a hosted checkout.`,
          "",
          `- Every plugin store route (${figure(sent - sessionSent)}): queries and bodies the route would accept from their owner, with one field made hostile (malformed, of the wrong type, too long, injected, unknown, repeated or nested), missing or added, another cart's session or an unknown one, random or broken JSON, the wrong content type or publishable key.`,
          `- Medusa's own \`POST /store/payment-collections/:id/payment-sessions\` with the plugin's providers (${figure(sessionSent)}): hostile \`data\` (the same field mutations, another cart's shift or checkout id, random JSON, a coin and network the service does not offer, the store's own settle coin, an offline network, a memo where there is none), into the attacker's own payment collection and into the collection of a shopper whose shift is waiting.`,
          `- Every answer was a 4xx with a message; none was a 5xx or carried a stack, a path, SQL or the private key. Another cart's session was answered exactly like a session that does not exist, and no answer named another cart's shift, deposit address, checkout or pay page.`,
          `- State compared before and after: ${figure(snapshotSize(before))} rows of ledger, history, carts, sessions, payments, captures, refunds and orders, unchanged; ${figure(upstream.length)} upstream requests, all reads (none created, cancelled or changed a shift).`,
          "",
          "| route | requests |",
          "| --- | --- |",
          ...[...routes.entries()].sort().map(([route, count]) => `| ${route} | ${figure(count)} |`),
          "",
          tallyTable(tally, "input"),
        ].join("\n")
      )
    })
  },
})
