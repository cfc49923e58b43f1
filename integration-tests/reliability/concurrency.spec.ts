import { medusaIntegrationTestRunner } from "@medusajs/test-utils"
import { ContainerRegistrationKeys, Modules } from "@medusajs/framework/utils"
import type { MedusaContainer } from "@medusajs/framework/types"
import BigNumber from "bignumber.js"
import { useSandbox } from "../helpers/sandbox"
import { watchSecrets } from "../helpers/secret-watch"
import { createStoreFixture, PROVIDERS } from "../helpers/store-fixtures"
import { storefront } from "../helpers/storefront"
import { adminHeaders } from "../helpers/admin"
import { ledgerOf, ledgerRow, orderWithPayments, reconcile } from "../helpers/ledger"
import { waitFor } from "../helpers/wait-for"
import { redisAnswers, startSecondProcess, useRedis } from "../helpers/multi-process"
import { webhookUrl } from "../../src/lib/webhook-token"
import { send, type RawAnswer } from "./http"
import { figure, readReportSection, reportSecrets, tallyOf, tallyTable, writeReportSection, type Tally } from "./report"
import { historyGaps } from "./state"

jest.setTimeout(300_000)

const DB_NAME = "crypto_swap_concurrency"
/** With a Redis, the app uses the Redis event bus, workflow engine and locking, and a second process joins in. */
const REDIS = redisAnswers()
if (REDIS) useRedis(8)
const env = useSandbox()
const watch = watchSecrets({ onClean: reportSecrets("concurrency") })
/**
 * A refund Medusa makes commits a moment after the time its id carries, and the storm's ticks read all the
 * time: one a tick's first read of that time missed is found by the read the discovery overlap later (at
 * least 5 minutes in a store), so this test's 60 s wait needs a shorter one: 10 s, far more than a refund
 * takes from its insert to its commit even under this load.
 */
process.env.CRYPTO_SWAP_DISCOVERY_OVERLAP_MS = "10000"

/** Deliveries of each settlement's notification, all at once; the rest of the storm scales with it. */
const DELIVERIES = Number(process.env.RELIABILITY_CONCURRENT_DELIVERIES ?? 50)
const STATUS_POLLS = Math.ceil(DELIVERIES / 5)
const COMPLETES = 3
const ADMIN_SYNCS = 3
const JOB_RUNS = 3
const BTC = { deposit_coin: "BTC", deposit_network: "bitcoin" }
const JSON_TYPE = { "content-type": "application/json" }

// The refund phase: payments made with the shopper's refund address, so every refund's shift can be made at once.
const BTC_REFUND = "bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq"
const BTC_WITH_REFUND = { ...BTC, refund_address: BTC_REFUND }
/** Cancels of each order sent at once. */
const CANCELS = 4
/**
 * Partial refunds of each payment through the payment module at once, as Medusa's refund workflows make them, and admin
 * refunds of the same payments at the same moment (most collide on the order's change in Medusa): 67.5 asked of 49.99
 * captured. No subset of them adds up to exactly 50: Medusa lets refunds exceed the captured amount by up to its currency
 * epsilon (one cent in USD: `captured - refunded < -0.01` is refused, 50 of 49.99 is not), a rounding tolerance of its
 * own that would read as an over-refund here without any race.
 */
const MODULE_REFUNDS = [10, 15, 20, 12.5]
const ADMIN_REFUNDS = [4, 6]
const REFUND_JOB_RUNS = 3

/** The section's parts: the settlement storm's, and the cancel and refund phase's under its own sub-heading. */
const REPORT_HEADING = "Reliability: concurrency"
const REFUNDS_SUBHEADING = "### Order cancels and simultaneous refunds"
const reportParts: { storm?: string; refunds?: string } = {}

/** Writes the section from the parts this run made, keeping the other part as the last run wrote it (a run filtered to one test). */
function writeReport() {
  const current = readReportSection(REPORT_HEADING) ?? ""
  const at = current.indexOf(REFUNDS_SUBHEADING)
  const storm = reportParts.storm ?? (at >= 0 ? current.slice(0, at) : current).trim()
  const refunds = reportParts.refunds ?? (at >= 0 ? current.slice(at) : "").trim()
  writeReportSection(REPORT_HEADING, [storm, refunds].filter(Boolean).join("\n\n"))
}

/** Medusa's own record of a payment's refunds: what the ledger must follow one to one. */
async function medusaRefunds(container: MedusaContainer, paymentId: string) {
  const { data } = await container
    .resolve(ContainerRegistrationKeys.QUERY)
    .graph({ entity: "refund", fields: ["id", "amount", "payment_id"], filters: { payment_id: paymentId } })
  return data as Array<{ id: string; amount: unknown; payment_id: string }>
}

const sum = (amounts: unknown[]) => amounts.reduce<BigNumber>((total, amount) => total.plus(new BigNumber(String(amount))), new BigNumber(0))

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
      reportParts.storm = [
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
      writeReport()
    })

    it(`makes exactly one refund shift per Medusa refund when orders are canceled ${CANCELS} times at once and payments partly refunded at once beyond what was captured, while the job runs${
      REDIS ? " and a second process reconciles through Redis" : ""
    }`, async () => {
      const container = getContainer()
      const baseUrl = api.defaults.baseURL as string
      const store = await createStoreFixture(container)
      const shop = storefront(api, store)
      const admin = await adminHeaders(container)
      // Booted while the payments are made, reconciling from then on: it takes a while to start.
      const second = REDIS ? startSecondProcess(DB_NAME) : undefined

      // --- Four captured orders: two to cancel, two to refund in part --------------------------------
      const providers = [PROVIDERS.default, PROVIDERS.settled, PROVIDERS.default, PROVIDERS.settled]
      const carts: Array<{ cartId: string; shiftId: string }> = []
      for (const providerId of providers) {
        const cart = await shop.createCart()
        const { session } = await shop.createPaymentSession(cart.id, providerId, BTC_WITH_REFUND)
        await env.control.deposit(session.data.shift_id)
        await env.control.walk(session.data.shift_id, ["processing", "settling", "settled"])
        carts.push({ cartId: cart.id, shiftId: session.data.shift_id })
      }
      const orders: Array<{ cartId: string; orderId: string; paymentId: string; shiftId: string; captured: BigNumber }> = []
      for (const { cartId, shiftId } of carts) {
        const order = await waitFor(
          `the order of cart ${cartId} to be captured`,
          async () => {
            await reconcile(container)
            return orderWithPayments(container, cartId)
          },
          (order) => Boolean(order?.payments?.[0]?.captures?.length)
        )
        const payment = order!.payments[0]
        orders.push({ cartId, orderId: order!.id as string, paymentId: payment.id as string, shiftId, captured: sum(payment.captures.map((capture: any) => capture.amount)) })
      }
      const canceled = orders.slice(0, 2)
      const refunded = orders.slice(2)
      await second?.ready

      // --- All at once: cancels, partial refunds beyond the captured amount, the job, the second process ---
      const tally: Tally = new Map()
      /** Why the losers were refused, by request kind and message (ids left out), for the report. */
      const refusals = new Map<string, number>()
      const count = (outcomes: Map<string, number>, outcome: string) => outcomes.set(outcome, (outcomes.get(outcome) ?? 0) + 1)
      const reason = (message: string) => message.replace(/\b[a-z]+_[0-9A-Z]{26}\b/g, "…").slice(0, 160)
      const call = async (kind: string, request: Promise<RawAnswer>, allowed: (status: number) => boolean) => {
        const answer = watch.check(await request, kind)
        tallyOf(tally, kind, answer.status)
        if (!allowed(answer.status)) throw new Error(`${kind} answered ${answer.status}: ${answer.text.slice(0, 300)}`)
        if (answer.status >= 400) count(refusals, `${kind}: ${answer.status} ${reason((answer.data as { message?: string } | undefined)?.message ?? answer.text)}`)
        return answer.status
      }
      /** Per payment: refunds Medusa accepted for sure, and refunds asked whose answer was an error (made or not). */
      const asked = new Map(orders.map(({ paymentId }) => [paymentId, { accepted: 0, answeredError: 0 }]))
      const moduleOutcomes = new Map<string, number>()
      const moduleRefund = async (paymentId: string, amount: number) => {
        let outcome = "accepted"
        try {
          await container.resolve(Modules.PAYMENT).refundPayment({ payment_id: paymentId, amount })
          asked.get(paymentId)!.accepted += 1
        } catch (error) {
          watch.check(error, "payment module refund")
          outcome = `refused: ${reason((error as Error).message)}`
          asked.get(paymentId)!.answeredError += 1
        }
        count(moduleOutcomes, outcome)
      }
      const adminRefund = async (paymentId: string, amount: number) => {
        const status = await call(
          "admin refund",
          send(baseUrl, { path: `/admin/payments/${paymentId}/refund`, headers: { ...JSON_TYPE, ...admin.headers }, body: JSON.stringify({ amount }) }),
          (status) => status === 200 || (status >= 400 && status < 500)
        )
        // A refused admin refund may still have made its refund: Medusa's refund step runs before the order's change that collides.
        if (status === 200) asked.get(paymentId)!.accepted += 1
        else asked.get(paymentId)!.answeredError += 1
      }
      const storm = [
        ...canceled.flatMap(({ orderId }) =>
          Array.from({ length: CANCELS }, () =>
            call(
              "order cancel",
              send(baseUrl, { path: `/admin/orders/${orderId}/cancel`, headers: { ...JSON_TYPE, ...admin.headers }, body: "{}" }),
              (status) => status === 200 || (status >= 400 && status < 500)
            )
          )
        ),
        ...refunded.flatMap(({ paymentId }) => [
          ...MODULE_REFUNDS.map((amount) => moduleRefund(paymentId, amount)),
          ...ADMIN_REFUNDS.map((amount) => adminRefund(paymentId, amount)),
        ]),
      ]
      const jobRuns = Array.from({ length: REFUND_JOB_RUNS }, () => reconcile(container))
      await Promise.all([...storm, ...jobRuns])

      // --- Then, eventually: one ledger refund row with its shift made per Medusa refund -------------
      const state = async () => {
        await reconcile(container)
        return Promise.all(
          orders.map(async ({ paymentId }) => ({
            refunds: await medusaRefunds(container, paymentId),
            rows: await ledgerOf(container).listSwapShifts({ kind: "refund", payment_id: paymentId }),
          }))
        )
      }
      const followed = (payments: Awaited<ReturnType<typeof state>>) =>
        payments.every(
          ({ refunds, rows }) =>
            refunds.length > 0 &&
            rows.length === refunds.length &&
            refunds.every((refund) => rows.some((row) => row.refund_id === refund.id)) &&
            rows.every((row) => row.shift_id && row.status === "waiting")
        )
      await waitFor("every Medusa refund to have its ledger row and its refund shift", state, followed)
      // Stopped only now, so it reconciled throughout; then whatever is still in flight has its turn.
      if (second) {
        expect(await second.stop()).toBe(0)
        expect(second.rounds()).toBeGreaterThan(0)
      }
      await reconcile(container)

      let medusaRefundCount = 0
      let cancelRefunds = 0
      let partialRefunds = 0
      const refundRowIds = new Set<string>()
      const refundedSums: string[] = []
      for (const { cartId, paymentId, shiftId, captured } of orders) {
        const refunds = await medusaRefunds(container, paymentId)
        const rows = await ledgerOf(container).listSwapShifts({ kind: "refund", payment_id: paymentId })
        // Never more refunded than captured, and something refunded.
        const total = sum(refunds.map((refund) => refund.amount))
        expect(refunds.length).toBeGreaterThan(0)
        const path = canceled.some((order) => order.paymentId === paymentId) ? "order cancels" : "partial refunds"
        const refundedOf = { payment: paymentId, path, captured: captured.toFixed(), refunds: refunds.map((refund) => String(refund.amount)), refunded: total.toFixed() }
        expect({ ...refundedOf, overRefunded: total.gt(captured) }).toEqual({ ...refundedOf, overRefunded: false })
        // One ledger row per Medusa refund, for the same amount; none missing, none extra, none twice.
        expect(rows.map((row) => row.refund_id).sort()).toEqual(refunds.map((refund) => refund.id).sort())
        for (const refund of refunds) {
          const row = rows.find((row) => row.refund_id === refund.id)!
          expect(new BigNumber(row.amount_due!).eq(new BigNumber(String(refund.amount)))).toBe(true)
          expect(row).toMatchObject({ refund_of_shift_id: shiftId, settle_coin: "BTC", refund_address: BTC_REFUND, settle_address: BTC_REFUND, status: "waiting" })
          // Its refund shift was made, once: one at the service for this row, and the row names it.
          expect(row.shift_id).toEqual(expect.any(String))
          expect(env.sandbox.shifts().filter((shift) => shift.externalId === row.id).map((shift) => shift.id)).toEqual([row.shift_id])
          const history = (await ledgerRow(container, { id: row.id })).events
          expect(history.filter((event: any) => event.action === "refund_shift_created")).toHaveLength(1)
          expect(historyGaps(history)).toEqual([])
          refundRowIds.add(row.id)
        }
        medusaRefundCount += refunds.length
        refundedSums.push(total.toFixed())
        if (path === "order cancels") {
          // A cancel refunds what was captured; the other cancels find nothing left to refund or the order canceled.
          expect(refunds).toHaveLength(1)
          expect(total.eq(captured)).toBe(true)
          expect((await orderWithPayments(container, cartId))!.status).toBe("canceled")
          cancelRefunds += refunds.length
        } else {
          // Every refund Medusa accepted is there; a refund whose request answered an error may be there too.
          const { accepted, answeredError } = asked.get(paymentId)!
          expect(refunds.length).toBeGreaterThanOrEqual(accepted)
          expect(refunds.length).toBeLessThanOrEqual(accepted + answeredError)
          partialRefunds += refunds.length
        }
      }
      // No refund shift at the service that no ledger row holds, and no ledger refund row that no Medusa refund holds.
      const refundShifts = env.sandbox.shifts().filter((shift) => shift.settleAddress === BTC_REFUND)
      expect(refundShifts.map((shift) => shift.externalId).sort()).toEqual([...refundRowIds].sort())
      expect(await ledgerOf(container).listSwapShifts({ kind: "refund" })).toHaveLength(medusaRefundCount)

      const cancelAnswers = tally.get("order cancel")?.statuses ?? new Map()
      const moduleAccepted = moduleOutcomes.get("accepted") ?? 0
      const captured = orders[0].captured.toFixed()
      reportParts.refunds = [
        REFUNDS_SUBHEADING,
        "",
        `A second test in the same file: ${orders.length} more payments (authorized on confirmation ×2, on settlement ×2), each made with the shopper's refund address and captured, ` +
          `then all at once: ${CANCELS} cancels of each of ${canceled.length} orders (\`POST /admin/orders/:id/cancel\`: Medusa's cancel refunds the captured payment and emits no refund event), ` +
          `and for each of the ${refunded.length} other payments ${MODULE_REFUNDS.length} partial refunds through the payment module (${MODULE_REFUNDS.join(", ")}) ` +
          `plus ${ADMIN_REFUNDS.length} admin refunds (\`POST /admin/payments/:id/refund\`, ${ADMIN_REFUNDS.join(", ")}, which emit \`payment.refunded\` to the plugin's subscriber): ` +
          `${sum([...MODULE_REFUNDS, ...ADMIN_REFUNDS]).toFixed()} asked of ${captured} captured, no subset adding up to 50.00 (which Medusa's one-cent tolerance would accept); ` +
          `with ${REFUND_JOB_RUNS} runs of the reconciliation job in the test app` +
          (REDIS ? ` and the second process reconciling throughout (${figure(second!.rounds())} rounds of two concurrent runs).` : "."),
        "",
        `- Cancels: ${[...cancelAnswers.entries()].map(([status, count]) => `${status} × ${count}`).join(", ")}; each canceled order refunded exactly once, in full ` +
          `(${cancelRefunds} refunds for ${canceled.length} orders, each the ${captured} captured).`,
        `- Partial refunds through the payment module: ${moduleAccepted} accepted, ${MODULE_REFUNDS.length * refunded.length - moduleAccepted} refused ` +
          `(${[...moduleOutcomes.entries()].filter(([outcome]) => outcome !== "accepted").map(([outcome, count]) => `${count} × ${outcome.replace(/^refused: /, "")}`).join("; ") || "none"}); ` +
          `${partialRefunds} Medusa refunds in all for the ${refunded.length} payments.`,
        `- Never more refunded than captured: refunded per payment ${refundedSums.join(", ")} of ${captured} captured.`,
        `- Result: ${medusaRefundCount} Medusa refunds, ${medusaRefundCount} ledger refund rows (one per refund, by \`refund_id\`, same amount, none lost, none extra), ` +
          `${refundShifts.length} refund shifts at the service (exactly one per row, the one the row names), each row \`waiting\` for the merchant's deposit with one \`refund_shift_created\` and no gap in its history.`,
        refusals.size
          ? `- Refused requests, by reason: ${[...refusals.entries()].map(([refusal, times]) => `${refusal} (× ${times})`).join("; ")}.`
          : "- No request was refused.",
        "",
        tallyTable(tally, "request"),
      ].join("\n")
      writeReport()
    })
  },
})
