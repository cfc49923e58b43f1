import { createHmac } from "node:crypto"
import fc from "fast-check"
import { medusaIntegrationTestRunner } from "@medusajs/test-utils"
import { Modules, PaymentWebhookEvents } from "@medusajs/framework/utils"
import { useSandbox } from "../helpers/sandbox"
import { watchSecrets } from "../helpers/secret-watch"
import { createStoreFixture, PROVIDERS } from "../helpers/store-fixtures"
import { storefront } from "../helpers/storefront"
import { adminHeaders } from "../helpers/admin"
import { ledgerOf, ledgerRow, reconcile } from "../helpers/ledger"
import { waitFor } from "../helpers/wait-for"
import { trackSubscribers } from "../helpers/events"
import { webhookUrl } from "../../src/lib/webhook-token"
import { internalDetail, send, type RawAnswer } from "./http"
import { figure, reportSecrets, tallyOf, tallyTable, writeReportSection, type Tally } from "./report"
import { stateSnapshot, snapshotSize } from "./state"
import { propertyParams, propertySeed } from "../helpers/property-runs"

jest.setTimeout(300_000)

const env = useSandbox()
const watch = watchSecrets({ onClean: reportSecrets("webhook-attacks") })

/** Generated notifications per phase; at least 1,000 in all. */
const REJECTED_RUNS = 700
const ACCEPTED_RUNS = 500
const BTC = { deposit_coin: "BTC", deposit_network: "bitcoin" }
const BTC_REFUND = "bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq"
const JSON_TYPE = { "content-type": "application/json" }

type Attack = { kind: string; method?: string; path: string; headers?: Record<string, string>; body?: string | Buffer }

medusaIntegrationTestRunner({
  testSuite: ({ api, getContainer }) => {
    it("survives 1,000+ forged, replayed and malformed notifications without a state change, a 5xx or a leak", async () => {
      const container = getContainer()
      const subscribers = trackSubscribers(container)
      const baseUrl = api.defaults.baseURL as string
      const account = env.sandbox.account
      const store = await createStoreFixture(container)
      const shop = storefront(api, store)
      const admin = await adminHeaders(container)

      const tokenPath = (providerId: string, privateKey = account.secret) =>
        new URL(webhookUrl("http://store.test", { providerId, options: { privateKey, accountId: account.id } })).pathname
      const checkoutPath = tokenPath(PROVIDERS.checkout)
      const defaultPath = tokenPath(PROVIDERS.default)
      const token = checkoutPath.split("/").pop()!

      const registered = watch.check(
        await api.post("/admin/crypto-swap/webhooks", { provider_id: PROVIDERS.checkout, backend_url: baseUrl }, admin)
      )
      const hookId: string = registered.data.webhook.hook_id

      // --- Real payments the attacks aim at -------------------------------------------------
      async function checkoutShift() {
        const cart = await shop.createCart()
        const { session } = await shop.createPaymentSession(cart.id, PROVIDERS.checkout, BTC)
        watch.check(session, "payment session")
        await reconcile(container)
        const shift = await env.control.payCheckout(session.data.checkout_id, "ETH", "ethereum")
        return { cartId: cart.id as string, checkoutId: session.data.checkout_id as string, shiftId: shift.id }
      }
      // A: paid, settled, captured through the service's own notification.
      const paid = await checkoutShift()
      await env.control.deposit(paid.shiftId)
      await env.control.walk(paid.shiftId, ["processing", "settling", "settled"])
      // B: waiting for its deposit.
      const unpaid = await checkoutShift()
      // C: a wrong amount the service refunded, announced with a "fail".
      const refunded = await checkoutShift()
      await env.control.deposit(refunded.shiftId, { amount: "0.00001" })
      await send(env.sandbox.baseUrl, {
        path: `/v2/shifts/${refunded.shiftId}/set-refund-address`,
        headers: { ...JSON_TYPE, "x-service-secret": env.sandbox.account.secret },
        body: JSON.stringify({ address: "0x3333333333333333333333333333333333333333" }),
      })
      await env.control.walk(refunded.shiftId, ["refunding", "refunded"])
      // D: a direct (non-checkout) shift of another provider, waiting.
      const directCart = await shop.createCart()
      const { session: direct } = await shop.createPaymentSession(directCart.id, PROVIDERS.default, { ...BTC, refund_address: BTC_REFUND })
      const directShiftId = direct.data.shift_id as string
      await reconcile(container)

      await env.sandbox.notificationsSettled()
      const captured = await waitFor(
        "the service's success notification to capture the paid checkout",
        () => ledgerRow(container, { checkout_id: paid.checkoutId }),
        (row) => Boolean(row.captured_at)
      )
      expect(captured.captured_at).not.toBeNull()
      const failed = await waitFor(
        "the service's fail notification to mark the refunded checkout",
        () => ledgerRow(container, { checkout_id: refunded.checkoutId }),
        (row) => row.status === "refunded"
      )
      expect(failed.status).toBe("refunded")
      const deliveries = env.sandbox.notifications()
      const realBodies = deliveries.map((delivery) => delivery.body as any)
      expect(realBodies.map((body) => body.payload.status).sort()).toEqual(["fail", "success"])
      expect(deliveries.every((delivery) => delivery.responseStatus === 200)).toBe(true)
      // The baseline is the store's up-to-date view: every shift read once, so what a notification
      // later causes to be read back can only be news, and news is what must not appear.
      for (const row of await ledgerOf(container).listSwapShifts({})) {
        watch.check(await api.post(`/admin/crypto-swap/shifts/${row.id}/sync`, {}, admin), "sync")
      }
      // The notifications' subscribers may still be waiting to read; their reads are not the attacks'.
      await subscribers.idle()

      // --- Generators ------------------------------------------------------------------------
      const knownShifts = [paid, unpaid, refunded]
      const notification = (overrides: {
        hook?: Record<string, unknown>
        payload?: Record<string, unknown>
      }) => ({
        meta: {
          hook: {
            id: hookId,
            createdAt: "2025-01-01T00:00:00.000Z",
            updatedAt: "2025-01-01T00:00:00.000Z",
            enabled: true,
            accountId: account.id,
            targetUrl: `${baseUrl}${checkoutPath}`,
            ...overrides.hook,
          },
        },
        payload: { shiftId: unpaid.shiftId, checkoutId: unpaid.checkoutId, status: "success", txid: "0xfeed", ...overrides.payload },
      })
      const json = (body: unknown) => JSON.stringify(body)
      const realBody = fc.constantFrom(...realBodies)
      const known = fc.constantFrom(...knownShifts)
      const text = fc.string({ maxLength: 80 })
      const hex = (length: number) => fc.stringMatching(new RegExp(`^[0-9a-f]{${length}}$`))

      const wrongToken = fc.oneof(
        fc.stringMatching(/^[A-Za-z0-9_-]{1,120}$/).filter((candidate) => candidate !== token),
        fc.nat({ max: token.length - 1 }).chain((i) =>
          fc.constantFrom(..."ABCxyz019-_").filter((c) => c !== token[i]).map((c) => token.slice(0, i) + c + token.slice(i + 1))
        ),
        fc.nat({ max: token.length - 1 }).map((n) => token.slice(0, n)),
        fc.constantFrom(`${token}x`, token.toLowerCase() === token ? `${token}A` : token.toLowerCase(), ` ${token}`, `${token}%00`),
        // A token made with another key, or for another account.
        hex(32).map((key) => tokenPath(PROVIDERS.checkout, key).split("/").pop()!),
        fc.constant(createHmac("sha256", account.secret).update(`crypto-swap-webhook:someone-else:${PROVIDERS.checkout}`).digest("base64url"))
      )

      const rejected: fc.Arbitrary<Attack> = fc.oneof(
        { weight: 3, arbitrary: fc.jsonValue({ maxDepth: 4 }).map((value) => ({ kind: "random JSON body", path: checkoutPath, headers: JSON_TYPE, body: json(value) })) },
        {
          weight: 1,
          arbitrary: fc.uint8Array({ maxLength: 2048 }).map((bytes) => ({ kind: "random bytes", path: checkoutPath, headers: JSON_TYPE, body: Buffer.from(bytes) })),
        },
        {
          weight: 1,
          arbitrary: fc.tuple(realBody, fc.integer({ min: 33 * 1024, max: 1024 * 1024 })).map(([body, size]) => ({
            kind: "huge body (33 kB to 1 MB)",
            path: checkoutPath,
            headers: JSON_TYPE,
            body: json({ ...body, payload: { ...body.payload, txid: "f".repeat(size) } }),
          })),
        },
        {
          weight: 3,
          arbitrary: fc.tuple(wrongToken, realBody).map(([candidate, body]) => ({
            kind: "wrong token (real notification)",
            path: `/hooks/crypto-swap/${encodeURIComponent(candidate).replace(/%25/g, "%")}`,
            headers: JSON_TYPE,
            body: json(body),
          })),
        },
        {
          weight: 2,
          arbitrary: fc.tuple(text.filter((id) => id !== account.id), known, fc.constantFrom(checkoutPath, defaultPath)).map(([accountId, shift, path]) => ({
            kind: "wrong account id",
            path,
            headers: JSON_TYPE,
            body: json(notification({ hook: { accountId }, payload: { shiftId: shift.shiftId, checkoutId: shift.checkoutId } })),
          })),
        },
        {
          weight: 2,
          arbitrary: fc
            .tuple(
              realBody,
              fc.constantFrom(
                "text/plain",
                "application/x-www-form-urlencoded",
                "application/xml",
                "multipart/form-data; boundary=xyz",
                "application/octet-stream",
                "text/html",
                "image/png"
              )
            )
            .map(([body, type]) => ({ kind: "wrong content type", path: checkoutPath, headers: { "content-type": type }, body: json(body) })),
        },
        {
          weight: 1,
          arbitrary: realBody.chain((body) =>
            fc.nat({ max: json(body).length - 2 }).map((cut) => ({
              kind: "malformed JSON",
              path: checkoutPath,
              headers: JSON_TYPE,
              body: json(body).slice(0, cut + 1),
            }))
          ),
        },
        {
          weight: 1,
          arbitrary: fc.constantFrom("GET", "PUT", "PATCH", "DELETE").map((method) => ({
            kind: "wrong method",
            method,
            path: checkoutPath,
            headers: JSON_TYPE,
            body: json(realBodies[0]),
          })),
        },
        {
          weight: 1,
          arbitrary: fc
            .constantFrom(
              "/hooks/crypto-swap",
              "/hooks/crypto-swap/",
              `${checkoutPath}/extra`,
              `/hooks/crypto-swap/..%2F..%2Fadmin%2Fcrypto-swap%2Fwebhooks`,
              `/hooks/crypto-swap/${token}%2F..`
            )
            .map((path) => ({ kind: "wrong path", path, headers: JSON_TYPE, body: json(realBodies[0]) })),
        }
      )

      const accepted: fc.Arbitrary<Attack> = fc.oneof(
        { weight: 2, arbitrary: realBody.map((body) => ({ kind: "replayed real notification", path: checkoutPath, headers: JSON_TYPE, body: json(body) })) },
        {
          weight: 2,
          arbitrary: fc
            .tuple(realBody, fc.constantFrom("success", "fail", "", "settled", "refunded"), fc.option(text, { nil: null }))
            .map(([body, status, txid]) => ({
              kind: "replay with forged status or txid",
              path: checkoutPath,
              headers: JSON_TYPE,
              body: json({ ...body, payload: { ...body.payload, status, txid } }),
            })),
        },
        {
          weight: 2,
          arbitrary: fc.constantFrom("success", "fail").map((status) => ({
            kind: "success for an unpaid shift",
            path: checkoutPath,
            headers: JSON_TYPE,
            body: json(notification({ payload: { status } })),
          })),
        },
        {
          weight: 2,
          arbitrary: fc.tuple(text.filter((id) => id !== hookId), known).map(([id, shift]) => ({
            kind: "wrong hook id",
            path: checkoutPath,
            headers: JSON_TYPE,
            body: json(notification({ hook: { id }, payload: { shiftId: shift.shiftId, checkoutId: shift.checkoutId, status: "success" } })),
          })),
        },
        {
          weight: 2,
          arbitrary: fc
            .tuple(hex(20), fc.option(hex(24), { nil: undefined }), fc.constantFrom(checkoutPath, defaultPath))
            .map(([shiftId, checkoutId, path]) => ({
              kind: "unknown shift id",
              path,
              headers: JSON_TYPE,
              body: json(notification({ payload: { shiftId, checkoutId } })),
            })),
        },
        {
          weight: 1,
          arbitrary: fc.tuple(known, known).map(([a, b]) => ({
            kind: "shift and checkout of different payments",
            path: checkoutPath,
            headers: JSON_TYPE,
            body: json(notification({ payload: { shiftId: a.shiftId, checkoutId: b.checkoutId } })),
          })),
        },
        {
          weight: 1,
          arbitrary: fc.constantFrom(checkoutPath, defaultPath).map((path) => ({
            kind: "another provider's shift",
            path,
            headers: JSON_TYPE,
            body: json(notification({ payload: { shiftId: directShiftId, checkoutId: null } })),
          })),
        },
        {
          weight: 1,
          arbitrary: fc.constantFrom(...knownShifts).map((shift) => ({
            kind: "prototype pollution",
            path: checkoutPath,
            headers: JSON_TYPE,
            body: `{"__proto__":{"polluted":"yes"},"constructor":{"prototype":{"polluted":"yes"}},${json(
              notification({ payload: { shiftId: shift.shiftId, checkoutId: shift.checkoutId } })
            ).slice(1)}`,
          })),
        },
        {
          // Medusa's own webhook route: no token, always 200; the provider verifies with bounded reads.
          weight: 2,
          arbitrary: fc
            .tuple(
              fc.oneof(
                realBody.map((body) => json(body)),
                hex(24).map((checkoutId) => json(notification({ payload: { checkoutId } })))
              ),
              fc.constantFrom(PROVIDERS.checkout, PROVIDERS.default, "crypto-swap_nope")
            )
            .map(([body, providerId]) => ({
              kind: "Medusa's built-in payment webhook route",
              path: `/hooks/payment/${providerId.replace(/^pp_/, "")}`,
              headers: JSON_TYPE,
              body,
            })),
        },
        {
          weight: 1,
          arbitrary: known.map((shift) => ({
            kind: "form-encoded notification",
            path: checkoutPath,
            headers: { "content-type": "application/x-www-form-urlencoded" },
            body: new URLSearchParams({
              "meta[hook][id]": hookId,
              "meta[hook][accountId]": account.id,
              "payload[shiftId]": shift.shiftId,
              "payload[checkoutId]": shift.checkoutId,
              "payload[status]": "success",
            }).toString(),
          })),
        }
      )

      // --- Firing ------------------------------------------------------------------------------
      const tally: Tally = new Map()
      let sent = 0
      const fire = async (attack: Attack, allowed: (answer: RawAnswer) => boolean) => {
        const answer = await send(baseUrl, attack)
        sent += 1
        tallyOf(tally, attack.kind, answer.status)
        watch.check(answer, `answer to ${attack.kind}`)
        expect(answer.status).toBeLessThan(500)
        expect(internalDetail(answer.text, attack)).toBeUndefined()
        expect(answer.text).not.toContain(account.secret)
        if (!allowed(answer)) {
          throw new Error(`${attack.kind} ${attack.method ?? "POST"} ${attack.path.slice(0, 80)} answered ${answer.status}: ${answer.text.slice(0, 200)}`)
        }
        if (answer.status >= 400 && answer.data && typeof answer.data === "object") {
          // A refusal says why, in words.
          expect(typeof (answer.data as { message?: unknown }).message).toBe("string")
        }
      }

      const before = await stateSnapshot(container)
      env.sandbox.clearRequests()

      // Phase 1: refused at the door. Nothing may reach the service, nothing may change.
      const refusedKinds: Record<string, number[]> = {
        "random JSON body": [400],
        "random bytes": [400],
        "huge body (33 kB to 1 MB)": [413],
        "wrong token (real notification)": [404],
        "wrong account id": [400],
        "wrong content type": [400, 415],
        "malformed JSON": [400],
        "wrong method": [404, 405],
        "wrong path": [400, 404],
      }
      await fc.assert(
        fc.asyncProperty(rejected, (attack) => fire(attack, ({ status }) => refusedKinds[attack.kind].includes(status))),
        propertyParams("webhook attacks refused", REJECTED_RUNS)
      )
      expect(env.sandbox.requests()).toEqual([])
      expect(await stateSnapshot(container)).toEqual(before)
      const phaseOneSent = sent

      // Phase 2: well-formed, right token and account. Each is only a hint: the shift is read
      // (at most once a second per shift), nothing changes.
      const started = env.sandbox.now().getTime()
      // Medusa's built-in route publishes its events 5 s late: counted as they go out, so the test
      // waits for the last of them instead of for a guessed time.
      let publishedBuiltIn = 0
      const countBuiltIn = (message: { name: string }) => {
        if (message.name === PaymentWebhookEvents.WebhookReceived) publishedBuiltIn += 1
      }
      const eventBus = container.resolve(Modules.EVENT_BUS) as unknown as {
        addInterceptor(interceptor: typeof countBuiltIn): void
        removeInterceptor(interceptor: typeof countBuiltIn): void
      }
      eventBus.addInterceptor(countBuiltIn)
      await fc.assert(
        fc.asyncProperty(accepted, (attack) =>
          fire(attack, ({ status }) =>
            attack.kind === "form-encoded notification" || attack.kind === "prototype pollution"
              ? status === 200 || status === 400
              : status === 200
          )
        ),
        propertyParams("webhook hints accepted", ACCEPTED_RUNS)
      )
      const builtInAccepted = tally.get("Medusa's built-in payment webhook route")?.statuses.get(200) ?? 0
      await waitFor("Medusa to publish every delayed built-in webhook event", () => publishedBuiltIn, (count) => count >= builtInAccepted)
      eventBus.removeInterceptor(countBuiltIn)
      // Then every subscriber runs (each waits up to a second before reading, then queues on the
      // shift's lock) until the last has made its reads.
      await subscribers.idle()

      expect(await stateSnapshot(container)).toEqual(before)
      expect(({} as Record<string, unknown>).polluted).toBeUndefined()

      // Bounded reads: only GETs of shifts and checkouts. This store's own are read at most once per
      // second per route that may read them (its token route's subscriber, Medusa's built-in route);
      // an unknown one only through Medusa's built-in route, at most 5 a second in all.
      const upstream = env.sandbox.requests()
      watch.check(upstream, "upstream requests the plugin made")
      const knownIds = new Set([...knownShifts.flatMap((s) => [s.shiftId, s.checkoutId]), directShiftId])
      const readsPerId = new Map<string, number>()
      let unknownReads = 0
      for (const request of upstream) {
        expect(request.method).toBe("GET")
        const match = /^\/v2\/(?:shifts|checkout)\/([^/]+)$/.exec(request.path)
        expect(match).not.toBeNull()
        if (knownIds.has(match![1])) readsPerId.set(match![1], (readsPerId.get(match![1]) ?? 0) + 1)
        else unknownReads += 1
      }
      const maxReads = Math.max(0, ...readsPerId.values())
      // The span the reads took on the sandbox's clock, from the first hint to the last read it
      // logged: a rate over when the reads happened, not over how long this test waited.
      const lastRead = Math.max(started, ...upstream.map((request) => new Date(request.receivedAt).getTime()))
      const elapsedSeconds = Math.ceil((lastRead - started) / 1000)
      expect(maxReads).toBeLessThanOrEqual(2 * (elapsedSeconds + 1))
      expect(unknownReads).toBeLessThanOrEqual(5 * (elapsedSeconds + 1))
      const builtIn = tally.get("Medusa's built-in payment webhook route")?.sent ?? 0

      expect(sent).toBeGreaterThanOrEqual(1000)
      const state = snapshotSize(before)
      writeReportSection(
        "Reliability: webhook attacks",
        [
          `\`integration-tests/reliability/webhook-attacks.spec.ts\`: ${figure(sent)} generated notifications (fast-check, seed ${propertySeed()}) against a store with a captured, an unpaid and a refunded hosted-checkout payment and a direct shift, ` +
            `after the service's own ${deliveries.length} real deliveries were processed.`,
          "",
          `- Refused at the door (${figure(phaseOneSent)}): zero upstream requests, zero state changes.`,
          `- Well-formed hints (${figure(sent - phaseOneSent)}): zero state changes; ${figure(upstream.length)} upstream reads in ` +
            `${elapsedSeconds} s, all GETs: at most ${maxReads} per shift or checkout of this store (bound: one a second per ` +
            `route, plus one), and ${unknownReads} of unknown checkouts, all through Medusa's unauthenticated built-in route ` +
            `(${figure(builtIn)} notifications; bound: 5 verifications a second). The plugin's token route never looks up a shift the store does not know.`,
          `- State compared before and after: ${figure(state)} rows of ledger, history, carts, sessions, payments, captures, refunds and orders (bookkeeping columns \`updated_at\`, \`last_synced_at\`, \`next_sync_at\` aside, and the collection's \`completed_at\`, which Medusa's own route restamps when a real settlement is replayed, with no second capture).`,
          "- No answer was a 5xx; every refusal carried a message; no answer carried the private key, a stack frame, a path, SQL or a database or connection error; `Object.prototype` stayed clean.",
          "",
          tallyTable(tally, "notification"),
        ].join("\n")
      )
    })
  },
})
