import { spawn } from "node:child_process"
import path from "node:path"
import { medusaIntegrationTestRunner } from "@medusajs/test-utils"
import { ContainerRegistrationKeys } from "@medusajs/framework/utils"
import type { MedusaContainer } from "@medusajs/framework/types"
import { useSandbox } from "../helpers/sandbox"
import { watchSecrets } from "../helpers/secret-watch"
import { createStoreFixture, PROVIDERS } from "../helpers/store-fixtures"
import { storefront } from "../helpers/storefront"
import { ledgerOf, ledgerRow, orderWithPayments } from "../helpers/ledger"
import { waitFor } from "../helpers/wait-for"
import { OBSERVATION_MAX_AGE_MS } from "../../src/lib/shift/sync-observation"
import { internalDetail, send } from "./http"
import { figure, reportSecrets, writeReportSection } from "./report"
import { historyGaps } from "./state"
import pg from "pg"

jest.setTimeout(300_000)

const DB_NAME = "crypto_swap_restart"
const root = path.resolve(__dirname, "../..")
/** How often the started stores' job ticks: the restarted ones must do the work on their own. */
const RECONCILE_INTERVAL_MS = 500
/** How long a started store may take to do what is awaited (boot, a few ticks); never reached when it works. */
const PATIENCE_MS = 90_000
/** A read answered this late is too old to stand in for another one (src/lib/shift/sync-observation.ts). */
const SLOW_READ_MS = OBSERVATION_MAX_AGE_MS + 2000
// The test's own in-process app never reconciles: only the stores this test starts and kills do.
process.env.CRYPTO_SWAP_RECONCILE_INTERVAL_MS = String(24 * 60 * 60 * 1000)

const env = useSandbox()
const watch = watchSecrets({ onClean: reportSecrets("restart") })
const BTC = { deposit_coin: "BTC", deposit_network: "bitcoin" }

/** Polls until `check` holds; fails with the last value once the store had all the time it could need. */
const until = <T>(what: string, read: () => Promise<T>, check: (value: T) => boolean) =>
  waitFor(what, read, check, { timeoutMs: PATIENCE_MS, intervalMs: 200 })

/** The storefront helper's API shape, over plain HTTP to a store this test started. */
function httpApi(baseUrl: string) {
  const call = async (method: string, url: string, body?: unknown, config?: unknown) => {
    const headers = { "content-type": "application/json", ...(config as { headers?: Record<string, string> } | undefined)?.headers }
    const answer = watch.check(await send(baseUrl, { method, path: url, headers, body: body === undefined ? undefined : JSON.stringify(body) }))
    if (answer.status >= 400) {
      throw Object.assign(new Error(`${method} ${url} answered ${answer.status}`), { response: { status: answer.status, data: answer.data } })
    }
    return { status: answer.status, data: answer.data as any }
  }
  return {
    post: (url: string, body?: unknown, config?: unknown) => call("POST", url, body, config),
    get: (url: string, config?: unknown) => call("GET", url, undefined, config),
  }
}

/** A port nothing listens on, picked by the OS. */
async function freePort(): Promise<number> {
  const { createServer } = await import("node:net")
  return new Promise((resolve, reject) => {
    const server = createServer()
    server.once("error", reject)
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as { port: number }
      server.close(() => resolve(port))
    })
  })
}

type Store = { baseUrl: string; output: () => string; kill: () => Promise<void>; exited: Promise<void> }

/** What helpers/crash-at.js prints as it kills the store. */
const CRASH_LINE = "crash-at: killed at "

/** How a started store runs: its job's tick, and where it kills itself (helpers/crash-at.js), if it does. */
type StoreOptions = { reconcileIntervalMs: number; crashAt?: string }

/**
 * `medusa start` on the test's database: a real store process, as production runs it. The port is
 * free when picked but only bound once the store has booted, so another process may take it first:
 * then the store starts again on another port.
 */
async function startStore(options: StoreOptions): Promise<Store> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await startStoreOn(await freePort(), options)
    } catch (error) {
      if (!(error instanceof PortTaken) || attempt === 3) throw error
    }
  }
}

class PortTaken extends Error {}

async function startStoreOn(port: number, { reconcileIntervalMs, crashAt }: StoreOptions): Promise<Store> {
  const { DB_HOST = "localhost", DB_PORT = "5432", DB_USERNAME = "postgres", DB_PASSWORD = "" } = process.env
  const auth = DB_PASSWORD ? `${encodeURIComponent(DB_USERNAME)}:${encodeURIComponent(DB_PASSWORD)}` : encodeURIComponent(DB_USERNAME)
  const child = spawn(process.execPath, [require.resolve("@medusajs/cli/cli.js"), "start", "--port", String(port)], {
    cwd: root,
    env: {
      ...process.env,
      NODE_OPTIONS: crashAt ? `--require ${JSON.stringify(path.join(__dirname, "../helpers/crash-at.js"))}` : "",
      ...(crashAt ? { CRYPTO_SWAP_TEST_CRASH_AT: crashAt } : {}),
      DATABASE_URL: `postgres://${auth}@${DB_HOST}:${DB_PORT}/${DB_NAME}`,
      CRYPTO_SWAP_TEST_ADMIN: "off",
      CRYPTO_SWAP_RECONCILE_INTERVAL_MS: String(reconcileIntervalMs),
      // Reads held past the age at which an observation may stand in for a read must not time out first.
      CRYPTO_SWAP_TEST_TIMEOUT_MS: String(SLOW_READ_MS * 2),
    },
    stdio: ["ignore", "pipe", "pipe"],
  })
  let output = ""
  child.stdout.on("data", (chunk) => (output += chunk))
  child.stderr.on("data", (chunk) => (output += chunk))
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()))
  let running = true
  void exited.then(() => (running = false))
  const baseUrl = `http://127.0.0.1:${port}`
  await until(
    "the store to answer",
    async () => {
      // A store told to crash may do so on its first tick, before it was ever asked whether it is up.
      if (!running && crashAt && output.includes(CRASH_LINE)) return true
      if (!running) throw new (/EADDRINUSE/.test(output) ? PortTaken : Error)(`medusa start exited:\n${output.slice(-3000)}`)
      return fetch(`${baseUrl}/health`).then((response) => response.ok, () => false)
    },
    Boolean
  )
  return {
    baseUrl,
    output: () => output,
    exited,
    kill: async () => {
      // SIGKILL: no shutdown hook runs, nothing is flushed, as when a machine dies.
      child.kill("SIGKILL")
      await exited
    },
  }
}

async function ledgerRows(container: MedusaContainer, filter: Record<string, unknown>) {
  return ledgerOf(container).listSwapShifts(filter)
}

function captureCount(order: Awaited<ReturnType<typeof orderWithPayments>>): number {
  return (order?.payments ?? []).reduce((count: number, payment: any) => count + payment.captures.length, 0)
}

// A run killed in the middle of this spec leaves its database behind, data and all: start from none.
beforeAll(async () => {
  const { DB_HOST = "localhost", DB_PORT = "5432", DB_USERNAME = "postgres", DB_PASSWORD = "" } = process.env
  const client = new pg.Client({ host: DB_HOST, port: Number(DB_PORT), user: DB_USERNAME, password: DB_PASSWORD, database: "postgres" })
  await client.connect()
  try {
    await client.query(`drop database if exists "${DB_NAME}" with (force)`)
  } finally {
    await client.end()
  }
})

medusaIntegrationTestRunner({
  dbName: DB_NAME,
  testSuite: ({ api, getContainer }) => {
    const started: Store[] = []

    afterAll(async () => {
      for (const store of started) await store.kill()
    })

    async function store(reconcileIntervalMs: number, crashAt?: string) {
      const running = await startStore({ reconcileIntervalMs, crashAt })
      started.push(running)
      return running
    }

    /** The payment sessions of a cart that are not deleted, with their data. */
    async function sessionsOf(cartId: string) {
      const knex = getContainer().resolve(ContainerRegistrationKeys.PG_CONNECTION)
      const { rows } = await knex.raw(
        `select ps.id, ps.status, ps.data from payment_session ps
           join cart_payment_collection cpc on cpc.payment_collection_id = ps.payment_collection_id and cpc.deleted_at is null
          where cpc.cart_id = ? and ps.deleted_at is null`,
        [cartId]
      )
      return rows as Array<{ id: string; status: string; data: Record<string, any> }>
    }

    it("kills the store right after shifts are made and right after a deposit; each restart brings every order to the right state", async () => {
      const container = getContainer()
      const fixture = await createStoreFixture(container)
      const outcomes: Array<{ payment: string; killed: string; after: string }> = []

      // --- First store: makes shifts, and is killed with one still being made -------------------------
      // Its job never ticks: the ledger knows these payments only because each shift is recorded when made.
      const first = await store(24 * 60 * 60 * 1000)
      const shopAtFirst = storefront(httpApi(first.baseUrl), fixture)
      const pay = async (shop: ReturnType<typeof storefront>) => {
        const cart = await shop.createCart()
        const { session } = await shop.createPaymentSession(cart.id, PROVIDERS.default, BTC)
        return { cartId: cart.id as string, sessionId: session.id as string, shiftId: session.data.shift_id as string }
      }
      const paidWhileDown = await pay(shopAtFirst)
      const neverPaid = await pay(shopAtFirst)
      const recordedAtCreation = [paidWhileDown.shiftId, neverPaid.shiftId].sort()
      await until("both shifts to be recorded as they were made", () => ledgerRows(container, {}), (rows) => rows.length === 2)
      // The service makes the next shift but its answer is held: the store dies waiting for it.
      const inFlightCart = await shopAtFirst.createCart()
      const shiftsBefore = env.sandbox.shifts().length
      env.sandbox.addFault({ method: "POST", path: "/v2/shifts/fixed", delayMs: 10 * 60 * 1000, afterHandling: true, times: 1 })
      const inFlight = shopAtFirst.createPaymentSession(inFlightCart.id, PROVIDERS.default, BTC).then(
        () => "answered",
        () => "cut off"
      )
      const [lostShift] = await until("the service to make the held shift", async () => env.sandbox.shifts().slice(shiftsBefore), (made) => made.length === 1)
      await first.kill()
      expect(await inFlight).toBe("cut off")
      env.sandbox.clearFaults()
      // The shift whose answer never came is unknown to the ledger until a reconciliation discovers it.
      expect((await ledgerRows(container, {})).map((row: any) => row.shift_id).sort()).toEqual(recordedAtCreation)
      // Medusa stores a session before the provider answers: this one was left without a payment.
      const [halfMade] = await sessionsOf(inFlightCart.id)
      expect(halfMade.data.shift_id).toBeUndefined()
      expect(lostShift.externalId).toBe(halfMade.id)

      // While the store is down, one shopper pays in full.
      await env.control.deposit(paidWhileDown.shiftId)
      await env.control.walk(paidWhileDown.shiftId, ["processing", "settling", "settled"])

      // --- Second store: its job alone catches up ----------------------------------------------------------
      const second = await store(RECONCILE_INTERVAL_MS)
      const placed = await until("the payment made while the store was down to be captured", () => orderWithPayments(container, paidWhileDown.cartId), (order) => captureCount(order) > 0)
      expect(placed?.payments).toHaveLength(1)
      expect(captureCount(placed)).toBe(1)
      outcomes.push({ payment: "shift made, paid in full while the store was down", killed: "after the shift was made, before any reconciliation", after: "order placed, payment captured once" })
      const [waiting] = await until("the unpaid shift to be followed", () => ledgerRows(container, { shift_id: neverPaid.shiftId }), (rows) => rows.length === 1)
      expect(waiting.status).toBe("waiting")
      expect(await orderWithPayments(container, neverPaid.cartId)).toBeUndefined()
      // A session without a shift is nothing to follow: no ledger row, no order.
      expect(await ledgerRows(container, { payment_session_id: halfMade.id })).toEqual([])
      expect(await orderWithPayments(container, inFlightCart.id)).toBeUndefined()

      // A payment started on this store, followed by its job.
      const shopAtSecond = storefront(httpApi(second.baseUrl), fixture)
      const depositCut = await pay(shopAtSecond)
      await until("the new shift to be followed", () => ledgerRows(container, { shift_id: depositCut.shiftId }), (rows) => rows.length === 1)
      // The deposit arrives and is confirmed, and every read of the shift answers too late for the
      // observation to stand in for another read: the job's tick reads it, its sync reads it again and
      // records the news, and the payment's authorization, while the cart becomes an order, reads it once
      // more. The store dies while that read is on its way. The tick's is the bulk read of the open shifts.
      env.sandbox.deposit(depositCut.shiftId)
      env.sandbox.setStatus(depositCut.shiftId, { status: "processing" })
      for (const path of [`/v2/shifts/${depositCut.shiftId}`, "/v2/shifts"]) env.sandbox.addFault({ method: "GET", path, delayMs: SLOW_READ_MS })
      await until(
        "the order, its payment's authorization waiting on the service",
        () => orderWithPayments(container, depositCut.cartId),
        (order) => order?.payments.length === 0
      )
      await second.kill()
      env.sandbox.clearFaults()
      const [recorded] = await ledgerRows(container, { shift_id: depositCut.shiftId })
      expect(recorded).toMatchObject({ status: "processing", authorized_at: null })
      // The worst moment: the order exists, its payment does not.
      expect(await orderWithPayments(container, depositCut.cartId)).toMatchObject({ payments: [] })

      // --- Third store: finishes what the second left, then the rest of the day ----------------------
      const third = await store(RECONCILE_INTERVAL_MS)
      const authorized = await until("the confirmed deposit's order", () => orderWithPayments(container, depositCut.cartId), (order) => (order?.payments.length ?? 0) > 0)
      expect(authorized?.payments).toHaveLength(1)
      expect(captureCount(authorized)).toBe(0)
      await env.control.walk(depositCut.shiftId, ["settling", "settled"])
      const settled = await until("the settled deposit's capture", () => orderWithPayments(container, depositCut.cartId), (order) => captureCount(order) > 0)
      expect(captureCount(settled)).toBe(1)
      outcomes.push({
        payment: "deposit confirmed while the store ran",
        killed: "while the order was being placed: the news recorded, the order made, its payment not yet authorized",
        after: "the order's payment authorized on restart, captured once when settled",
      })

      // The cart whose shift was cut off can't become an order on its session that holds no payment ...
      const shopAtThird = storefront(httpApi(third.baseUrl), fixture)
      const completion = await shopAtThird.complete(inFlightCart.id).then(
        (answer) => answer.type,
        (error) => `refused ${error.response?.status}: ${error.response?.data?.message}`
      )
      expect(completion).not.toBe("order")
      expect(internalDetail(completion)).toBeUndefined()
      expect(await orderWithPayments(container, inFlightCart.id)).toBeUndefined()
      // ... and its shopper pays again on the same cart, and it works.
      const { session: retried } = await shopAtThird.createPaymentSession(inFlightCart.id, PROVIDERS.default, BTC)
      expect(retried.data.shift_id).not.toBe(lostShift.id)
      await env.control.deposit(retried.data.shift_id)
      await env.control.walk(retried.data.shift_id, ["processing", "settling", "settled"])
      const recovered = await until("the retried payment's capture", () => orderWithPayments(container, inFlightCart.id), (order) => captureCount(order) > 0)
      expect(recovered?.payments).toHaveLength(1)
      expect(captureCount(recovered)).toBe(1)
      expect(env.sandbox.getShift(lostShift.id).status).toBe("waiting")
      outcomes.push({
        payment: "shift being made (made upstream, answer not yet back)",
        killed: "while the service's answer was on its way",
        after: `no ledger row, no order; the session Medusa stored holds no shift, and completing the cart on it places no order (${completion}); the shopper's retry on the same cart is paid and captured once; the lost shift was never shown and stays unpaid`,
      })

      // The unpaid shift runs out: its payment is canceled.
      await env.control.advanceClock(16 * 60)
      const expired = await until("the unpaid shift to expire", () => ledgerRows(container, { shift_id: neverPaid.shiftId }), ([row]) => Boolean(row?.canceled_at))
      expect(expired[0].status).toBe("expired")
      expect((await sessionsOf(neverPaid.cartId)).map((session) => session.status)).toEqual(["canceled"])
      expect(await orderWithPayments(container, neverPaid.cartId)).toBeUndefined()
      outcomes.push({ payment: "shift made, never paid", killed: "after the shift was made, before any reconciliation", after: "followed as awaiting the deposit; expired and canceled when it ran out" })

      // Nothing captured twice, across all three stores.
      for (const cartId of [paidWhileDown.cartId, depositCut.cartId, inFlightCart.id]) {
        expect(captureCount(await orderWithPayments(container, cartId))).toBe(1)
      }
      await third.kill()
      for (const running of started) watch.check(running.output(), "a started store's output")

      writeReportSection(
        "Reliability: restarts",
        [
          "`integration-tests/reliability/restart.spec.ts`: three `medusa start` processes in turn on one database, each " +
            `killed with SIGKILL (no shutdown hook runs); the restarted stores' own job (a tick every ${RECONCILE_INTERVAL_MS} ms) ` +
            "does the catching up. The sandbox holds the service's answers to kill at exact moments.",
          "",
          "| payment | killed | after the restart |",
          "| --- | --- | --- |",
          ...outcomes.map(({ payment, killed, after }) => `| ${payment} | ${killed} | ${after} |`),
          "",
          `- ${figure(started.length)} store processes started, ${figure(2)} killed mid-work, ${figure(outcomes.length)} payments; ` +
            "every order ended in its right state: captured exactly once, awaiting then expired, or never placed.",
        ].join("\n")
      )
    })

    it("kills the store between each pair of a sync's steps; the payment ends with one order, captured once", async () => {
      const container = getContainer()
      const fixture = await createStoreFixture(container)
      // Made at the test's own app, which never reconciles: only the stores started below sync it.
      const shop = storefront(api, fixture)
      const cart = await shop.createCart()
      const { session } = await shop.createPaymentSession(cart.id, PROVIDERS.default, BTC)
      const shiftId: string = session.data.shift_id
      const [{ id: ledgerId }] = await until("the shift to be recorded as it was made", () => ledgerRows(container, { shift_id: shiftId }), (rows) => rows.length === 1)
      // The deposit is confirmed before any store syncs it: one sync places the order; a later one captures.
      await env.control.deposit(shiftId)
      await env.control.walk(shiftId, ["processing"])

      const now = async () => {
        const [row] = await ledgerRows(container, { id: ledgerId })
        const actions = await ledgerOf(container).listSwapShiftActions({ swap_shift_id: ledgerId })
        const order = await orderWithPayments(container, cart.id)
        const action = (kind: string) => actions.find((candidate) => candidate.kind === kind)
        return {
          row,
          authorize: action("authorize"),
          capture: action("capture"),
          order,
          payments: order?.payments.length ?? 0,
          captures: captureCount(order),
        }
      }
      const untried = { state: "pending", attempts: 0 }
      const done = { state: "done", attempts: 1, last_error: null }
      const settle = () => env.control.walk(shiftId, ["settling", "settled"])
      // In the order the syncs of a payment pass them. Each store dies at the first sync that gets to its
      // point; the next store starts from what the one before left, which is checked each time.
      const crashes: Array<{ at: string; between: string; found: string; left: (state: Awaited<ReturnType<typeof now>>) => void; then?: () => Promise<unknown> }> = [
        {
          at: "stepSuccess:crypto-swap-record-shift-observation",
          between: "confirmation recorded | actions planned",
          found: "the confirmation recorded; no action planned, no order",
          left: (state) => {
            expect(state.row.status).toBe("processing")
            expect([state.authorize, state.order]).toEqual([undefined, undefined])
          },
        },
        {
          at: "stepBegin:crypto-swap-action-authorize",
          between: "authorization planned | authorization started",
          found: "authorize planned, untried; no order",
          left: (state) => {
            expect(state.authorize).toMatchObject(untried)
            expect(state.order).toBeUndefined()
          },
        },
        {
          at: "finish:process-payment-workflow",
          between: "order placed, payment authorized | authorization recorded",
          found: "the order and its authorized payment; authorize still untried in the ledger",
          left: (state) => {
            expect(state.authorize).toMatchObject(untried)
            expect(state.row.authorized_at).toBeNull()
            expect([state.payments, state.captures]).toEqual([1, 0])
          },
        },
        {
          at: "stepSuccess:crypto-swap-action-authorize",
          between: "authorization recorded | sync finished",
          found: "authorize done; the end of the sync not recorded",
          left: (state) => {
            expect(state.authorize).toMatchObject(done)
            expect([state.payments, state.captures]).toEqual([1, 0])
          },
          then: settle,
        },
        {
          at: "stepSuccess:crypto-swap-record-shift-observation",
          between: "settlement recorded | actions planned",
          found: "the settlement recorded; no capture planned",
          left: (state) => {
            expect(state.row.status).toBe("settled")
            expect(state.capture).toBeUndefined()
            expect(state.captures).toBe(0)
          },
        },
        {
          at: "stepBegin:crypto-swap-action-capture",
          between: "capture planned | capture started",
          found: "capture planned, untried; nothing captured",
          left: (state) => {
            expect(state.capture).toMatchObject(untried)
            expect(state.captures).toBe(0)
          },
        },
        {
          at: "finish:process-payment-workflow",
          between: "payment captured | capture recorded",
          found: "the payment captured; capture still untried in the ledger",
          left: (state) => {
            expect(state.capture).toMatchObject(untried)
            expect(state.row.captured_at).toBeNull()
            expect([state.payments, state.captures]).toEqual([1, 1])
          },
        },
        {
          at: "stepSuccess:crypto-swap-action-capture",
          between: "capture recorded | sync finished",
          found: "capture done; the end of the sync not recorded",
          left: (state) => {
            expect(state.capture).toMatchObject(done)
            expect(state.row.captured_at).not.toBeNull()
          },
        },
      ]
      for (const crash of crashes) {
        const crashing = await store(RECONCILE_INTERVAL_MS, crash.at)
        await until(`the store to die at ${crash.at}`, async () => crashing.output(), (output) => output.includes(CRASH_LINE + crash.at))
        await crashing.exited
        crash.left(await now())
        await crash.then?.()
      }

      // A store that stays up finishes the sync the last one left.
      const last = await store(RECONCILE_INTERVAL_MS)
      const end = await until("the payment's sync to finish", now, (state) => state.row.terminal === true)
      await last.kill()
      expect(end.row).toMatchObject({ status: "settled", order_id: end.order!.id })
      expect([end.authorize, end.capture]).toMatchObject([done, done])
      expect([end.payments, end.captures]).toEqual([1, 1])
      expect(Number(end.order!.payments[0].captures[0].amount)).toBe(Number(session.data.amount))
      const { events } = await ledgerRow(container, { id: ledgerId })
      expect(events.filter((event: any) => event.action === "authorized")).toHaveLength(1)
      expect(events.filter((event: any) => event.action === "captured")).toHaveLength(1)
      expect(historyGaps(events)).toEqual([])
      for (const running of started) watch.check(running.output(), "a started store's output")

      writeReportSection(
        "Reliability: crash between a sync's steps",
        [
          "`integration-tests/reliability/restart.spec.ts`: one payment, its deposit confirmed, then settled, at the service while " +
            `no store was up, so that one sync places its order and a later one captures. ${figure(crashes.length)} \`medusa start\` processes in turn, each killed with ` +
            "SIGKILL by itself (`integration-tests/helpers/crash-at.js`, on Medusa's workflow orchestrator's events) at one point " +
            "of that sync; the next one starts from what it left; a last one stays up.",
          "",
          "| killed between | what the next store found |",
          "| --- | --- |",
          ...crashes.map(({ between, found }) => `| ${between.replace(" | ", " / ")} | ${found} |`),
          "",
          "- Result: one order, one payment, captured once for the amount due; each action recorded done after one counted attempt; " +
            "one `authorized` and one `captured` ledger event, no gap in the ledger's history.",
        ].join("\n")
      )
    })
  },
})
