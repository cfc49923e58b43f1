import BigNumber from "bignumber.js"
import { medusaIntegrationTestRunner } from "@medusajs/test-utils"
import { ContainerRegistrationKeys } from "@medusajs/framework/utils"
import type { MedusaContainer } from "@medusajs/framework/types"
import { useSandbox } from "../helpers/sandbox"
import { watchSecrets } from "../helpers/secret-watch"
import { createStoreFixture, PROVIDERS } from "../helpers/store-fixtures"
import { storefront } from "../helpers/storefront"
import { adminHeaders } from "../helpers/admin"
import { ledgerRow, orderWithPayments, reconcile } from "../helpers/ledger"
import { waitFor } from "../helpers/wait-for"
import { configureReconciliation } from "../helpers/reconcile-options"
import { internalDetail } from "./http"
import { figure, reportSecrets, writeReportSection } from "./report"

jest.setTimeout(300_000)

/**
 * The client's wait for an answer in this app (default 10 s): a timeout fault holds the answer longer. Far
 * above a loopback answer even while the app's event loop is busy, short enough to keep the suite quick.
 */
const TIMEOUT_MS = 2000
/** The provider's default retries (options.ts), which the expectations below follow. */
const MAX_RETRIES = 2
process.env.CRYPTO_SWAP_TEST_TIMEOUT_MS = String(TIMEOUT_MS)
/** A loaded coin list goes stale after a second here, so a coins fault meets the background refresh. */
const CATALOGUE_TTL_SECONDS = 1
process.env.CRYPTO_SWAP_TEST_CATALOGUE_TTL_SECONDS = String(CATALOGUE_TTL_SECONDS)
// Every tick reads every open shift (the test app's cadence is zero), and the test ticks often.
process.env.CRYPTO_SWAP_TEST_MAX_READS_PER_MINUTE = "100000"
// The scheduled job stays out of the way: each fault must meet only the call the test makes.
process.env.CRYPTO_SWAP_RECONCILE_INTERVAL_MS = String(24 * 60 * 60 * 1000)

const env = useSandbox({ maxOpenVariableShifts: 100_000, cancelAfterSeconds: 0 })
const watch = watchSecrets({ onClean: reportSecrets("upstream-faults") })

const BTC = { deposit_coin: "BTC", deposit_network: "bitcoin" }
const BTC_REFUND = "bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq"
const SOL = { deposit_coin: "SOL", deposit_network: "solana" }
/** A deposit-variable-only network: the session makes a variable shift. */
const ZKSYNC_ETH = { deposit_coin: "ETH", deposit_network: "zksync" }
/** What a shopper or admin must be told when the service fails: an outage or a busy service, nothing internal. */
const CLEAR_ERROR = /unavailable right now|busy; please try again/

type Repeat = "safe" | "recoverable" | "unsafe"

type FaultKind = {
  name: string
  /** The service did the work before the fault struck its answer (a shift is made, an order canceled). */
  acted: boolean
  spec: Record<string, unknown>
}

const FAULTS: FaultKind[] = [
  { name: "500", acted: false, spec: { status: 500, body: JSON.stringify({ error: { message: "Internal server error" } }) } },
  { name: "502", acted: true, spec: { status: 502, contentType: "text/html", body: "<html><body>502 Bad Gateway</body></html>", afterHandling: true } },
  { name: "timeout", acted: true, spec: { delayMs: TIMEOUT_MS + 1000, afterHandling: true } },
  { name: "connection reset", acted: true, spec: { reset: true, afterHandling: true } },
  {
    name: "429 + Retry-After",
    acted: false,
    spec: { status: 429, headers: { "Retry-After": "1" }, body: JSON.stringify({ error: { message: "Rate limit exceeded" } }) },
  },
  { name: "malformed body", acted: true, spec: { status: 200, body: '{"id": "', afterHandling: true } },
]

/** Whether the client repeats a call after this fault (transport.ts): a 429 did nothing, a read is harmless, a fixed shift is found again. */
function retried(repeat: Repeat, fault: FaultKind): boolean {
  return fault.name === "429 + Retry-After" || repeat !== "unsafe"
}

/** How often the call reaches the service: an outage fails every attempt, a single fault only the first. */
function expectedAttempts(repeat: Repeat, fault: FaultKind, phase: Phase): number {
  if (!retried(repeat, fault)) return 1
  return phase === "outage" ? 1 + MAX_RETRIES : 2
}

type Phase = "outage" | "single"
const PHASES: Array<{ phase: Phase; times?: number }> = [{ phase: "outage" }, { phase: "single", times: 1 }]

type Cell = { outcome: string; attempts: number }
type Row = { call: string; repeat: Repeat; cells: Map<string, Partial<Record<Phase, Cell>>>; note: string }

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

async function attempt<T>(request: Promise<T>): Promise<{ ok: true; value: T } | { ok: false; status: number; data: any }> {
  try {
    return { ok: true, value: watch.check(await request) }
  } catch (error) {
    const response = (error as { response?: { status: number; data: any } }).response
    if (!response) throw error
    watch.check(response)
    return { ok: false, status: response.status, data: response.data }
  }
}

function expectClearError(answer: { ok: false; status: number; data: any }) {
  expect(answer.status).toBeGreaterThanOrEqual(400)
  expect(answer.data.message).toMatch(CLEAR_ERROR)
  expect(internalDetail(JSON.stringify(answer.data))).toBeUndefined()
}

/** Payment sessions of a cart that are not deleted: a failed creation must leave none behind. */
async function liveSessions(container: MedusaContainer, cartId: string) {
  const knex = container.resolve(ContainerRegistrationKeys.PG_CONNECTION)
  const { rows } = await knex.raw(
    `select ps.id, ps.data from payment_session ps
       join cart_payment_collection cpc on cpc.payment_collection_id = ps.payment_collection_id and cpc.deleted_at is null
      where cpc.cart_id = ? and ps.deleted_at is null`,
    [cartId]
  )
  return rows as Array<{ id: string; data: Record<string, unknown> }>
}

function captureCount(order: Awaited<ReturnType<typeof orderWithPayments>>): number {
  return (order?.payments ?? []).reduce((count: number, payment: any) => count + payment.captures.length, 0)
}

/** The hooks the service holds for a target URL, read from the sandbox's GraphQL as the account. */
async function upstreamHooks(targetUrl: string): Promise<number> {
  const response = await fetch(env.sandbox.graphqlUrl, {
    method: "POST",
    headers: { "content-type": "application/json", "x-service-secret": env.sandbox.account.secret },
    body: JSON.stringify({ query: "{ hooks { id targetUrl } }" }),
  })
  const { data } = (await response.json()) as { data: { hooks: Array<{ targetUrl: string }> } }
  return data.hooks.filter((hook) => hook.targetUrl === targetUrl).length
}

medusaIntegrationTestRunner({
  testSuite: ({ api, getContainer }) => {
    let shop: ReturnType<typeof storefront>
    let admin: Awaited<ReturnType<typeof adminHeaders>>
    const rows: Row[] = []
    /** Carts whose payment session is live: each is paid at the end and must end captured. */
    const toPay: Array<{ cartId: string; providerId: string; session: any }> = []
    /** Shifts made by an attempt whose answer was lost: nobody saw their address. */
    const orphans = new Set<string>()
    const totals = { faults: 0, faultedRequests: 0, creations: 0, clearErrors: 0, secondShifts: 0, halfMadeSessions: 0, extraHooks: 0, capturedInRows: 0 }

    beforeAll(async () => {
      const container = getContainer()
      shop = storefront(api, await createStoreFixture(container))
      admin = await adminHeaders(container)
    })

    function row(call: string, repeat: Repeat, note: string): Row {
      const created: Row = { call, repeat, cells: new Map(), note }
      rows.push(created)
      return created
    }

    function record(target: Row, fault: FaultKind, phase: Phase, cell: Cell) {
      target.cells.set(fault.name, { ...target.cells.get(fault.name), [phase]: cell })
    }

    function requestsTo(method: string, path: string, since = 0): number {
      return env.sandbox.requests().slice(since).filter((request) => request.method === method && request.path === path).length
    }

    /**
     * Adds the fault, runs `act`, removes the fault (only this one: another path may be faulted at the
     * same time); counts what reached the faulted path meanwhile.
     */
    async function underFault<T>(method: string, path: string, fault: FaultKind, times: number | undefined, act: () => Promise<T>) {
      const since = env.sandbox.requests().length
      const { id } = env.sandbox.addFault({ method, path, ...fault.spec, ...(times ? { times } : {}) })
      totals.faults += 1
      try {
        const result = await act()
        const attempts = requestsTo(method, path, since)
        totals.faultedRequests += times ? Math.min(times, attempts) : attempts
        return { result, attempts }
      } finally {
        env.sandbox.removeFault(id)
      }
    }

    async function startPayment(providerId = PROVIDERS.default, data: Record<string, unknown> = BTC) {
      const cart = await shop.createCart()
      const { session } = watch.check(await shop.createPaymentSession(cart.id, providerId, data))
      return { cartId: cart.id as string, session, shiftId: session.data.shift_id as string }
    }

    /** Ticks of the job until `done` holds (bounded). */
    async function reconcileUntil<T>(read: () => Promise<T>, done: (value: T) => boolean, ticks = 6): Promise<T> {
      let value = await read()
      for (let tick = 0; tick < ticks && !done(value); tick++) {
        await reconcile(getContainer())
        value = await read()
      }
      return value
    }

    /** Every fault in both phases, as [fault, phase, times] cells. */
    const cells = (phases = PHASES) => FAULTS.flatMap((fault) => phases.map(({ phase, times }) => ({ fault, phase, times })))

    /**
     * A shopper starts paying under the fault. On failure: a clear error, no session left, and at
     * most the one shift the service made before the answer was lost (an orphan nobody saw). On
     * success: exactly one shift, the session's. Either way, never a second shift.
     */
    async function sessionUnderFault(options: {
      target: Row
      providerId: string
      data: Record<string, unknown>
      method: string
      path: string
      fault: FaultKind
      phase: Phase
      times?: number
      /** Whether the faulted call itself makes the shift (so a lost answer leaves one). */
      makesShift: boolean
      /** After an outage the shopper tries again at once; not while the coin list must stay unloaded. */
      retryAfterOutage: boolean
    }) {
      const { target, providerId, data, method, path, fault, phase, times, makesShift, retryAfterOutage } = options
      const container = getContainer()
      const cart = await shop.createCart()
      const shiftsBefore = env.sandbox.shifts().length
      const { result, attempts } = await underFault(method, path, fault, times, () => attempt(shop.createPaymentSession(cart.id, providerId, data)))
      totals.creations += 1
      // Shifts in the shopper's coin: another lane may be making shifts in another coin meanwhile.
      const made = env.sandbox.shifts().slice(shiftsBefore).filter((shift) => shift.depositNetwork === data.deposit_network)
      if (made.length > 1) totals.secondShifts += 1
      expect(made.length).toBeLessThanOrEqual(1)
      expect(attempts).toBe(expectedAttempts(target.repeat, fault, phase))
      expect(result.ok).toBe(phase === "single" && retried(target.repeat, fault))
      if (result.ok) {
        const session = result.value.session
        if (providerId === PROVIDERS.checkout) expect(made).toHaveLength(0)
        else expect(made.map((shift) => shift.id)).toEqual([session.data.shift_id])
        toPay.push({ cartId: cart.id, providerId, session })
      } else {
        expectClearError(result)
        totals.clearErrors += 1
        const left = await liveSessions(container, cart.id)
        totals.halfMadeSessions += left.length
        expect(left).toEqual([])
        expect(made).toHaveLength(makesShift && fault.acted ? 1 : 0)
        for (const shift of made) {
          expect(shift.status).toBe("waiting")
          orphans.add(shift.id)
        }
        if (phase === "outage" && retryAfterOutage) {
          // The faults have stopped: the shopper tries again on the same cart, and it works.
          const again = await attempt(shop.createPaymentSession(cart.id, providerId, data))
          expect(again.ok).toBe(true)
          if (again.ok) toPay.push({ cartId: cart.id, providerId, session: again.value.session })
        }
      }
      record(target, fault, phase, { outcome: result.ok ? "ok" : "clear error", attempts })
    }

    const creations = [
      { call: "quote `POST /v2/quotes`", repeat: "safe", providerId: PROVIDERS.default, data: BTC, method: "POST", path: "/v2/quotes", makesShift: false, note: "payment session, fixed flow" },
      {
        call: "fixed shift `POST /v2/shifts/fixed`",
        repeat: "recoverable",
        providerId: PROVIDERS.default,
        data: BTC,
        method: "POST",
        path: "/v2/shifts/fixed",
        makesShift: true,
        note: "payment session; a repeat meets \"quote already accepted\" and takes that shift",
      },
      {
        call: "variable shift `POST /v2/shifts/variable`",
        repeat: "unsafe",
        providerId: PROVIDERS.default,
        data: ZKSYNC_ETH,
        method: "POST",
        path: "/v2/shifts/variable",
        makesShift: true,
        note: "payment session (ETH on zkSync: variable only)",
      },
      {
        call: "checkout `POST /v2/checkout`",
        repeat: "unsafe",
        providerId: PROVIDERS.checkout,
        // The payer picks a coin on the service's page; this one only tells this lane's shifts apart.
        data: SOL,
        method: "POST",
        path: "/v2/checkout",
        makesShift: false,
        note: "payment session, hosted checkout",
      },
    ] as const

    async function coinsNotLoaded() {
      // The "settled" provider takes no payment before this: its coin list is not loaded yet, and
      // stays so while every load fails.
      const target = row("coins `GET /v2/coins` (list not loaded yet)", "safe", "payment session; outage only, since a success loads the list")
      for (const { fault, phase, times } of cells([PHASES[0]])) {
        await sessionUnderFault({ target, providerId: PROVIDERS.settled, data: BTC, method: "GET", path: "/v2/coins", fault, phase, times, makesShift: false, retryAfterOutage: false })
      }
      const loaded = await startPayment(PROVIDERS.settled)
      toPay.push({ cartId: loaded.cartId, providerId: PROVIDERS.settled, session: loaded.session })
    }

    async function coinsGoneStale() {
      const target = row("coins `GET /v2/coins` (loaded list gone stale)", "safe", "payment session; the list is refreshed in the background")
      // Loads the default provider's list; every refresh below fails, so it stays stale from here on.
      const warm = await startPayment()
      toPay.push({ cartId: warm.cartId, providerId: PROVIDERS.default, session: warm.session })
      for (const { fault } of cells([PHASES[0]])) {
        const cart = await shop.createCart()
        const { result, attempts } = await underFault("GET", "/v2/coins", fault, undefined, async () => {
          const since = env.sandbox.requests().length
          // The list passes its freshness while the fault is in place, so no refresh succeeds meanwhile.
          await sleep(CATALOGUE_TTL_SECONDS * 1000 + 200)
          const answer = await attempt(shop.createPaymentSession(cart.id, PROVIDERS.default, BTC))
          // The refresh runs in the background: the fault stays until it has met it.
          await waitFor("the background refresh of the coin list to meet the fault", () => requestsTo("GET", "/v2/coins", since), (count) => count > 0)
          return answer
        })
        totals.creations += 1
        expect(result.ok).toBe(true)
        expect(attempts).toBeGreaterThan(0)
        if (result.ok) toPay.push({ cartId: cart.id, providerId: PROVIDERS.default, session: result.value.session })
        record(target, fault, "outage", { outcome: result.ok ? "ok, last list" : "error", attempts })
      }
    }

    async function creationRow(creation: (typeof creations)[number]) {
      const target = row(creation.call, creation.repeat, creation.note)
      for (const { fault, phase, times } of cells()) {
        await sessionUnderFault({ target, ...creation, fault, phase, times, retryAfterOutage: true })
      }
    }

    /** One tick of the job meets a fault on each settled shift's read; the next ticks capture them all. */
    async function getShiftRow(payments: Array<Awaited<ReturnType<typeof startPayment>>>) {
      const container = getContainer()
      const target = row("get shift `GET /v2/shifts/{id}`", "safe", "one reconciliation tick over settled shifts, each with its fault")
      const faulted = cells().map((cell, i) => ({ ...cell, ...payments[i], path: `/v2/shifts/${payments[i].shiftId}` }))
      for (const { shiftId } of faulted) {
        await env.control.deposit(shiftId)
        await env.control.walk(shiftId, ["processing", "settling", "settled"])
      }
      const since = env.sandbox.requests().length
      const ids = faulted.map(({ path, fault, times }) => env.sandbox.addFault({ method: "GET", path, ...fault.spec, ...(times ? { times } : {}) }).id)
      totals.faults += ids.length
      // Each shift's own read meets its fault: this tick reads one by one, not in bulk (the bulk read's failures: shift-tracking.spec.ts).
      const { bulkRead } = configureReconciliation(container, PROVIDERS.default, {})
      configureReconciliation(container, PROVIDERS.default, { bulkRead: false })
      try {
        await reconcile(container)
      } finally {
        configureReconciliation(container, PROVIDERS.default, { bulkRead })
      }
      ids.forEach((id) => env.sandbox.removeFault(id))
      for (const { fault, phase, times, cartId, shiftId, path } of faulted) {
        const attempts = requestsTo("GET", path, since)
        totals.faultedRequests += times ? Math.min(times, attempts) : attempts
        const during = await ledgerRow(container, { shift_id: shiftId })
        if (phase === "outage") {
          // Nothing learned, nothing done: the row keeps its state, records the failure and stays due.
          expect(attempts).toBeGreaterThanOrEqual(expectedAttempts("safe", fault, phase))
          expect(during).toMatchObject({ status: "waiting", captured_at: null, authorized_at: null })
          expect(during.sync_failures).toBeGreaterThan(0)
          expect(await orderWithPayments(container, cartId)).toBeUndefined()
        } else {
          // The client's own retry absorbs a single fault: the tick reads the settlement.
          expect(during.status).toBe("settled")
        }
        record(target, fault, phase, { outcome: phase === "outage" ? "waits, captured next tick" : "read, captured", attempts })
      }
      const orders = await reconcileUntil(
        () => Promise.all(faulted.map(({ cartId }) => orderWithPayments(container, cartId))),
        (placed) => placed.every((order) => captureCount(order) === 1)
      )
      for (const order of orders) {
        expect(order?.payments).toHaveLength(1)
        expect(captureCount(order)).toBe(1)
      }
      totals.capturedInRows += orders.length
    }

    /** An admin action over a call that is never repeated but after a 429: done then, else refused clearly. */
    function expectUnsafeOutcome(result: Awaited<ReturnType<typeof attempt>>, attempts: number, fault: FaultKind, phase: Phase): boolean {
      const ok = phase === "single" && retried("unsafe", fault)
      expect(result.ok).toBe(ok)
      expect(attempts).toBe(expectedAttempts("unsafe", fault, phase))
      if (!result.ok) {
        expectClearError(result)
        totals.clearErrors += 1
      }
      return ok
    }

    async function cancelRow(payments: Array<Awaited<ReturnType<typeof startPayment>>>) {
      const container = getContainer()
      const target = row("cancel `POST /v2/cancel-order`", "unsafe", "admin cancels a waiting shift")
      const cancel = (ledgerId: string) => attempt(api.post(`/admin/crypto-swap/shifts/${ledgerId}/cancel`, {}, admin))
      for (const [i, { fault, phase, times }] of cells().entries()) {
        const { shiftId, session } = payments[i]
        const { id: ledgerId } = await ledgerRow(container, { shift_id: shiftId })
        const { result, attempts } = await underFault("POST", "/v2/cancel-order", fault, times, () => cancel(ledgerId))
        const ok = expectUnsafeOutcome(result, attempts, fault, phase)
        expect(env.sandbox.getShift(shiftId).status).toBe(ok || fault.acted ? "expired" : "waiting")
        // The faults have stopped: the job learns what the service did; a shift still waiting is canceled again.
        await reconcile(container)
        if ((await ledgerRow(container, { shift_id: shiftId })).status === "waiting") expect((await cancel(ledgerId)).ok).toBe(true)
        const ended = await reconcileUntil(() => ledgerRow(container, { shift_id: shiftId }), (ledger) => Boolean(ledger.canceled_at))
        expect(ended.status).toBe("expired")
        expect(ended.canceled_at).not.toBeNull()
        const {
          data: [canceled],
        } = await container.resolve(ContainerRegistrationKeys.QUERY).graph({ entity: "payment_session", fields: ["status"], filters: { id: session.id } })
        expect(canceled.status).toBe("canceled")
        record(target, fault, phase, { outcome: result.ok ? "ok" : "clear error", attempts })
      }
    }

    /** Admins give refund addresses for wrong-amount deposits, each sync meeting its own fault. */
    async function refundAddressRow(payments: Array<Awaited<ReturnType<typeof startPayment>>>) {
      const container = getContainer()
      const target = row("set refund address `POST /v2/shifts/{id}/set-refund-address`", "unsafe", "admin gives the address; the sync passes it on")
      const faulted = cells().map((cell, i) => ({ ...cell, ...payments[i], path: `/v2/shifts/${payments[i].shiftId}/set-refund-address` }))
      for (const { shiftId } of faulted) await env.control.deposit(shiftId, { amount: "0.00001" })
      await reconcile(container)
      const since = env.sandbox.requests().length
      const ids = faulted.map(({ path, fault, times }) => env.sandbox.addFault({ method: "POST", path, ...fault.spec, ...(times ? { times } : {}) }).id)
      totals.faults += ids.length
      const answers = await Promise.all(
        faulted.map(async ({ shiftId }) => {
          const { id } = await ledgerRow(container, { shift_id: shiftId })
          return attempt(api.post(`/admin/crypto-swap/shifts/${id}/refund-address`, { address: BTC_REFUND }, admin))
        })
      )
      ids.forEach((id) => env.sandbox.removeFault(id))
      const passedBy = new Map<string, boolean>()
      for (const [i, { fault, phase, times, shiftId, path }] of faulted.entries()) {
        const attempts = requestsTo("POST", path, since)
        totals.faultedRequests += times ? Math.min(times, attempts) : attempts
        // The admin's answer holds the address either way; a failed sync says so and the job takes over.
        expect(answers[i].ok).toBe(true)
        const passed = phase === "single" && retried("unsafe", fault)
        expect(attempts).toBe(expectedAttempts("unsafe", fault, phase))
        expect(env.sandbox.getShift(shiftId).refundAddress ?? null).toBe(passed || fault.acted ? BTC_REFUND : null)
        passedBy.set(shiftId, passed || fault.acted)
        record(target, fault, phase, {
          outcome: passed ? "passed on" : fault.acted ? "set, answer lost; seen next tick" : "kept, passed on next tick",
          attempts,
        })
      }
      // The faults have stopped: the next tick passes each address on, unless the service already has it.
      await reconcile(container)
      for (const { shiftId, path, fault, phase } of faulted) {
        expect(env.sandbox.getShift(shiftId).refundAddress).toBe(BTC_REFUND)
        // Sent once more only if the service did not have it: never twice once it does.
        expect(requestsTo("POST", path, since)).toBe(expectedAttempts("unsafe", fault, phase) + (passedBy.get(shiftId) ? 0 : 1))
        await env.control.walk(shiftId, ["refunding", "refunded"])
      }
      const ended = await reconcileUntil(
        () => Promise.all(faulted.map(({ shiftId }) => ledgerRow(container, { shift_id: shiftId }))),
        (ledgers) => ledgers.every((ledger) => ledger.status === "refunded")
      )
      for (const ledger of ended) expect(ledger.status).toBe("refunded")
    }

    async function graphqlRow() {
      const container = getContainer()
      const target = row("GraphQL `POST /graphql` (createHook)", "unsafe", "admin registers the webhook")
      const ledger = container.resolve("cryptoSwap") as { listSwapWebhooks(filter: Record<string, unknown>): Promise<Array<{ target_url: string }>> }
      let store = 0
      for (const { fault, phase, times } of cells()) {
        // A store address per attempt, so each registration starts from none; nothing listens there.
        const backendUrl = `http://127.0.0.1:9/store-${++store}`
        const registered = async () => (await ledger.listSwapWebhooks({})).filter((hook) => hook.target_url.startsWith(`${backendUrl}/`))
        const register = () => attempt(api.post("/admin/crypto-swap/webhooks", { provider_id: PROVIDERS.checkout, backend_url: backendUrl }, admin))
        const { result, attempts } = await underFault("POST", "/graphql", fault, times, register)
        const ok = expectUnsafeOutcome(result, attempts, fault, phase)
        if (!ok) {
          expect(await registered()).toEqual([])
          expect((await register()).ok).toBe(true)
        }
        const hooks = await registered()
        expect(hooks).toHaveLength(1)
        const upstream = await upstreamHooks(hooks[0].target_url)
        // A lost answer leaves the hook it made upstream; the retry makes the one the store keeps.
        expect(upstream).toBe(!ok && fault.acted ? 2 : 1)
        totals.extraHooks += upstream - 1
        record(target, fault, phase, { outcome: result.ok ? "ok" : "clear error", attempts })
      }
    }

    // One test: the runner empties the database between tests, and the last step pays for what the others made.
    it("runs every upstream call under every fault: a clear error or the right result, never a half-made session or a second shift; every payment still ends captured", async () => {
      // The coin list is read by every session: its faults run alone.
      await coinsNotLoaded()
      await coinsGoneStale()
      // The reconciliation rows' payments are made first, so the lanes below never fault each other's calls.
      const prepared: Array<Awaited<ReturnType<typeof startPayment>>> = []
      while (prepared.length < 3 * cells().length) prepared.push(...(await Promise.all(cells().slice(0, 6).map(() => startPayment()))))
      await reconcile(getContainer())
      const [reads, cancels, refunds] = [0, 1, 2].map((lane) => prepared.slice(lane * cells().length, (lane + 1) * cells().length))
      // Three lanes at once, each faulting only calls the others never make: quotes and fixed shifts (in
      // BTC); variable shifts (ETH on zkSync) and checkouts (SOL); the reconciliation and admin rows.
      const lanes = await Promise.allSettled([
        (async () => {
          for (const creation of creations.slice(0, 2)) await creationRow(creation)
        })(),
        (async () => {
          for (const creation of creations.slice(2)) await creationRow(creation)
        })(),
        (async () => {
          await getShiftRow(reads)
          await cancelRow(cancels)
          await refundAddressRow(refunds)
          await graphqlRow()
        })(),
      ])
      for (const lane of lanes) if (lane.status === "rejected") throw lane.reason
      await payEverything()
    })

    /**
     * A deposit worth the amount due and a fifth more. A variable shift has no rate before its deposit,
     * so the pair's rate (the service's default commission included, as the deposit will be) prices it.
     */
    async function depositCovering(data: Record<string, any>): Promise<string> {
      const { baseUrl, account } = env.sandbox
      const pair = `${data.deposit_coin}-${data.deposit_network}/${data.settle_coin}-${data.settle_network}`.toLowerCase()
      const response = await fetch(`${baseUrl}/v2/pair/${pair}?affiliateId=${account.id}`, { headers: { "x-service-secret": account.secret } })
      const { rate } = (await response.json()) as { rate: string }
      return new BigNumber(data.settle_amount).div(rate).times("1.2").decimalPlaces(8, BigNumber.ROUND_UP).toFixed()
    }

    /** After the faults stop, every live payment is paid and ends captured, once; every other shift is an unseen orphan. */
    async function payEverything() {
      const container = getContainer()
      for (const { providerId, session } of toPay) {
        const shiftId =
          providerId === PROVIDERS.checkout ? (await env.control.payCheckout(session.data.checkout_id, "ETH", "ethereum")).id : session.data.shift_id
        // A variable shift takes any amount in its range: the shopper sends enough to cover the amount due after fees.
        const amount = session.data.shift_type === "variable" ? await depositCovering(session.data) : undefined
        await env.control.deposit(shiftId, amount ? { amount } : {})
        await env.control.walk(shiftId, ["processing", "settling", "settled"])
      }
      const orders = await reconcileUntil(
        () => Promise.all(toPay.map(({ cartId }) => orderWithPayments(container, cartId))),
        (placed) => placed.every((order) => captureCount(order) === 1)
      )
      const uncaptured = toPay.filter((_, i) => orders[i]?.payments.length !== 1 || captureCount(orders[i]) !== 1)
      expect(uncaptured.map(({ cartId, session }) => ({ cartId, data: session.data }))).toEqual([])

      const knex = container.resolve(ContainerRegistrationKeys.PG_CONNECTION)
      const { rows: sessions } = await knex.raw("select data from payment_session where deleted_at is null and provider_id like 'pp_crypto-swap_%'")
      const sessionData = (sessions as Array<{ data: Record<string, unknown> }>).map(({ data }) => data)
      expect(sessionData.filter((data) => !data.shift_id && !data.checkout_id)).toEqual([])
      const { rows: ledgerShifts } = await knex.raw("select shift_id from crypto_swap_shift where shift_id is not null")
      const known = new Set([...sessionData.map((data) => data.shift_id), ...(ledgerShifts as Array<{ shift_id: string }>).map(({ shift_id }) => shift_id)])
      const shifts = env.sandbox.shifts()
      for (const shift of shifts.filter(({ id }) => !known.has(id))) {
        expect(orphans.has(shift.id)).toBe(true)
        expect(shift.status).toBe("waiting")
      }
      expect(totals.secondShifts).toBe(0)
      expect(totals.halfMadeSessions).toBe(0)
      watch.check(env.sandbox.requests(), "upstream requests the plugin made")
      writeReport({ paid: orders.length + totals.capturedInRows, shifts: shifts.length })
    }

    /** The report lists the calls in the order a payment meets them, whichever lane finished first. */
    const ROW_ORDER = ["coins", "quote", "fixed shift", "variable shift", "checkout", "get shift", "cancel", "set refund address", "GraphQL"]
    const rowRank = (target: Row) => ROW_ORDER.findIndex((start) => target.call.startsWith(start))

    function cellText(byPhase: Partial<Record<Phase, Cell>> | undefined): string {
      if (!byPhase) return "—"
      return (["outage", "single"] as const)
        .filter((phase) => byPhase[phase])
        .map((phase) => `${phase === "outage" ? "outage" : "once"}: ${byPhase[phase]!.outcome} ×${byPhase[phase]!.attempts}`)
        .join("<br>")
    }

    function writeReport({ paid, shifts }: { paid: number; shifts: number }) {
      const cellCount = rows.reduce((sum, { cells: byFault }) => sum + [...byFault.values()].reduce((n, byPhase) => n + Object.keys(byPhase).length, 0), 0)
      writeReportSection(
        "Reliability: upstream faults",
        [
          `\`integration-tests/reliability/upstream-faults.spec.ts\`: every upstream call the plugin makes, under each of ${FAULTS.length} faults ` +
            "the sandbox injects, through the real store and admin routes and the reconciliation job (client timeout " +
            `${TIMEOUT_MS} ms in this run, ${MAX_RETRIES} retries). "outage": the fault answers every request until it is removed; ` +
            '"once": only the first. ⟲: the service did the work before the fault struck its answer (a shift made, an order ' +
            "canceled, an address set), so a repeat must not do it twice. ×n: requests that reached the service. Each cell " +
            "then checks the end state once the fault is gone.",
          "",
          `| call (repeat policy) | ${FAULTS.map((fault) => `${fault.name}${fault.acted ? " ⟲" : ""}`).join(" | ")} | what runs it |`,
          `| --- | ${FAULTS.map(() => "---").join(" | ")} | --- |`,
          ...[...rows].sort((a, b) => rowRank(a) - rowRank(b)).map((target) => `| ${target.call} (${target.repeat}) | ${FAULTS.map((fault) => cellText(target.cells.get(fault.name))).join(" | ")} | ${target.note} |`),
          "",
          `- ${figure(cellCount)} cells, ${figure(totals.faults)} faults injected, ${figure(totals.faultedRequests)} requests met one.`,
          `- ${figure(totals.creations)} payment sessions started under a fault; ${figure(totals.clearErrors)} refusals in all (sessions, ` +
            `admin actions), each with a clear message and no internal detail; ${figure(totals.halfMadeSessions)} half-made sessions.`,
          `- ${figure(shifts)} shifts made upstream, ${figure(totals.secondShifts)} second shifts for one payment; ${figure(orphans.size)} orphans ` +
            "(made by an attempt whose answer was lost: address never shown to anyone, left waiting to expire).",
          `- After the faults stopped, ${figure(paid)} payments were paid; each ended with one order, one payment and one capture.`,
          `- Webhook registration: ${figure(totals.extraHooks)} extra hooks left upstream by lost createHook answers (the admin's retry ` +
            "registers another; a duplicate notification is a harmless hint, verified by a read).",
        ].join("\n")
      )
    }
  },
})
