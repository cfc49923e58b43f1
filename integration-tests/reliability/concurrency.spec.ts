import { medusaIntegrationTestRunner } from "@medusajs/test-utils"
import { ContainerRegistrationKeys } from "@medusajs/framework/utils"
import { useSandbox } from "../helpers/sandbox"
import { watchSecrets } from "../helpers/secret-watch"
import { createStoreFixture, PROVIDERS } from "../helpers/store-fixtures"
import { storefront } from "../helpers/storefront"
import { adminHeaders } from "../helpers/admin"
import { ledgerRow, orderWithPayments, reconcile } from "../helpers/ledger"
import { waitFor } from "../helpers/wait-for"
import { redisAnswers, startSecondProcess, useRedis } from "../helpers/multi-process"
import { webhookUrl } from "../../src/lib/webhook-token"
import { send, type RawAnswer } from "./http"
import { figure, reportSecrets, tallyOf, tallyTable, writeReportSection, type Tally } from "./report"
import { historyGaps } from "./state"

jest.setTimeout(300_000)

const DB_NAME = "crypto_swap_concurrency"
/** With a Redis, the app uses the Redis event bus, workflow engine and locking, and a second process joins in. */
const REDIS = redisAnswers()
if (REDIS) useRedis(8)
const env = useSandbox()
const watch = watchSecrets({ onClean: reportSecrets("concurrency") })

/** Deliveries of each settlement's notification, all at once; the rest of the storm scales with it. */
const DELIVERIES = Number(process.env.RELIABILITY_CONCURRENT_DELIVERIES ?? 50)
const STATUS_POLLS = Math.ceil(DELIVERIES / 5)
const COMPLETES = 3
const ADMIN_SYNCS = 3
const JOB_RUNS = 3
const BTC = { deposit_coin: "BTC", deposit_network: "bitcoin" }
const JSON_TYPE = { "content-type": "application/json" }

medusaIntegrationTestRunner({
  dbName: DB_NAME,
  testSuite: ({ api, getContainer }) => {
    it(`captures each order once when every settlement arrives ${DELIVERIES} times at once with the job, the status route, admin syncs and checkout completion${
      REDIS ? ", and a second process reconciling through Redis" : ""
    }`, async () => {
      const container = getContainer()
      const baseUrl = api.defaults.baseURL as string
      const store = await createStoreFixture(container)
      const shop = storefront(api, store)
      const account = env.sandbox.account

      // --- Payments, all settled at the service before the store hears of it ------------------
      // Authorized on confirmation (order then capture), on settlement (order and capture at once), and a hosted checkout.
      const providers = [PROVIDERS.default, PROVIDERS.default, PROVIDERS.settled, PROVIDERS.checkout]
      const payments: Array<{ providerId: string; cartId: string; sessionId: string; amount: string; shiftId: string; checkoutId?: string }> = []
      for (const providerId of providers) {
        const cart = await shop.createCart()
        const { session } = await shop.createPaymentSession(cart.id, providerId, BTC)
        const checkoutId: string | undefined = session.data.checkout_id
        const shiftId = checkoutId ? (await env.control.payCheckout(checkoutId, "BTC", "bitcoin")).id : session.data.shift_id
        payments.push({ providerId, cartId: cart.id, sessionId: session.id, amount: session.data.amount, shiftId, checkoutId })
      }
      await reconcile(container)
      const ledgerIds = new Map<string, string>()
      for (const { shiftId } of payments) ledgerIds.set(shiftId, (await ledgerRow(container, { shift_id: shiftId })).id)
      const admin = await adminHeaders(container)
      for (const { shiftId } of payments) {
        await env.control.deposit(shiftId)
        await env.control.walk(shiftId, ["processing", "settling", "settled"])
      }

      const second = REDIS ? startSecondProcess(DB_NAME) : undefined
      await second?.ready

      // --- The storm ---------------------------------------------------------------------------
      const tokenPath = (providerId: string) =>
        new URL(webhookUrl("http://store.test", { providerId, options: { privateKey: account.secret, accountId: account.id } })).pathname
      const notification = ({ shiftId, checkoutId }: (typeof payments)[number]) =>
        JSON.stringify({
          meta: {
            hook: { id: "hook", createdAt: "", updatedAt: "", enabled: true, accountId: account.id, targetUrl: `${baseUrl}/hooks` },
          },
          payload: { shiftId, checkoutId: checkoutId ?? null, status: "success", txid: "0xfeed" },
        })
      const tally: Tally = new Map()
      const call = async (kind: string, request: Promise<RawAnswer>, allowed: (status: number) => boolean) => {
        const answer = watch.check(await request, kind)
        tallyOf(tally, kind, answer.status)
        if (!allowed(answer.status)) throw new Error(`${kind} answered ${answer.status}: ${answer.text.slice(0, 300)}`)
      }
      const storm = payments.flatMap((payment) => [
        ...Array.from({ length: DELIVERIES }, () =>
          call(
            "notification to the plugin's webhook route",
            send(baseUrl, { path: tokenPath(payment.providerId), headers: JSON_TYPE, body: notification(payment) }),
            (status) => status === 200
          )
        ),
        // A hosted checkout is also announced to Medusa's own webhook route, which captures by itself.
        ...(payment.checkoutId
          ? Array.from({ length: DELIVERIES }, () =>
              call(
                "notification to Medusa's payment webhook route",
                send(baseUrl, { path: `/hooks/payment/${payment.providerId.replace(/^pp_/, "")}`, headers: JSON_TYPE, body: notification(payment) }),
                (status) => status === 200
              )
            )
          : []),
        ...Array.from({ length: STATUS_POLLS }, () =>
          call(
            "status route poll",
            send(baseUrl, {
              method: "GET",
              path: `/store/crypto-swap/payment-sessions/${payment.sessionId}?cart_id=${payment.cartId}`,
              headers: shop.headers.headers,
            }),
            (status) => status === 200
          )
        ),
        // A merchant pressing "sync" on the order page.
        ...Array.from({ length: ADMIN_SYNCS }, () =>
          call(
            "admin sync",
            send(baseUrl, { path: `/admin/crypto-swap/shifts/${ledgerIds.get(payment.shiftId)}/sync`, headers: { ...JSON_TYPE, ...admin.headers }, body: "{}" }),
            (status) => status === 200
          )
        ),
        // The shopper clicking "place order": one wins, the others learn the cart is completed or still paying.
        ...Array.from({ length: COMPLETES }, () =>
          call(
            "cart completion",
            send(baseUrl, { path: `/store/carts/${payment.cartId}/complete`, headers: { ...JSON_TYPE, ...shop.headers.headers }, body: "{}" }),
            (status) => status < 500
          )
        ),
      ])
      const jobRuns = Array.from({ length: JOB_RUNS }, () => reconcile(container))
      await Promise.all([...storm, ...jobRuns])

      // --- Then: one order, one payment, one capture, no gap ---------------------------------
      for (const { cartId } of payments) {
        await waitFor(
          `the order of cart ${cartId} to be captured`,
          () => orderWithPayments(container, cartId),
          (order) => Boolean(order?.payments?.[0]?.captures?.length)
        )
      }
      // Stopped only now, so it reconciled throughout the storm.
      if (second) {
        expect(await second.stop()).toBe(0)
        expect(second.rounds()).toBeGreaterThan(0)
      }
      // Everything still in flight (subscribers, Medusa's delayed webhook events) has had its turn.
      await reconcile(container)

      const query = container.resolve(ContainerRegistrationKeys.QUERY)
      let captures = 0
      let events = 0
      for (const payment of payments) {
        const { data: orders } = await query.graph({ entity: "order_cart", fields: ["order_id"], filters: { cart_id: payment.cartId } })
        expect(orders).toHaveLength(1)
        const order = await orderWithPayments(container, payment.cartId)
        expect(order!.payments).toHaveLength(1)
        expect(order!.payments[0].captures).toHaveLength(1)
        expect(Number(order!.payments[0].captures[0].amount)).toBe(Number(payment.amount))
        captures += order!.payments[0].captures.length

        const row = await ledgerRow(container, { shift_id: payment.shiftId })
        expect(row).toMatchObject({ status: "settled", terminal: true, order_id: orders[0].order_id })
        expect(row.events.filter((event: any) => event.action === "captured")).toHaveLength(1)
        expect(row.events.filter((event: any) => event.action === "authorized").length).toBeLessThanOrEqual(1)
        expect(historyGaps(row.events)).toEqual([])
        const changes = row.events.filter((event: any) => !event.action)
        expect(changes[changes.length - 1].to_status).toBe("settled")
        events += row.events.length
      }

      const requests = [...tally.values()].reduce((sum, { sent }) => sum + sent, 0)
      writeReportSection(
        "Reliability: concurrency",
        [
          `\`integration-tests/reliability/concurrency.spec.ts\`: ${payments.length} payments (authorized on confirmation ×2, on settlement, a hosted checkout), ` +
            `each settled at the service before the store heard of it, then ${figure(requests)} requests and ${JOB_RUNS} runs of the reconciliation job, all at once: ` +
            `${DELIVERIES} deliveries of each settlement's notification to the plugin's webhook route (and as many of the checkout's to Medusa's own webhook route), ` +
            `${STATUS_POLLS} polls of the status route, ${ADMIN_SYNCS} admin syncs and ${COMPLETES} cart completions per payment.`,
          "",
          REDIS
            ? `- Two Medusa processes: the test app and a second one (\`medusa exec\`) reconciling the same shifts throughout the storm (${figure(
                second!.rounds()
              )} rounds of two concurrent runs), sharing PostgreSQL and Redis (event bus, workflow engine, locking).`
            : "- One Medusa process (no Redis answered, so the second process did not run).",
          `- Result: ${payments.length} orders for ${payments.length} carts, ${captures} captures (one per order, each of the amount due), ` +
            `one \`captured\` and at most one \`authorized\` ledger event per shift, ${figure(events)} ledger history events with no gap (each status change starts where the previous ended).`,
          "",
          tallyTable(tally, "request"),
        ].join("\n")
      )
    })
  },
})
