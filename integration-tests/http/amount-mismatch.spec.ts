import { medusaIntegrationTestRunner } from "@medusajs/test-utils"
import { Modules } from "@medusajs/framework/utils"
import BigNumber from "bignumber.js"
import { useSandbox } from "../helpers/sandbox"
import { createStoreFixture, PROVIDERS, setStock, type StoreFixture } from "../helpers/store-fixtures"
import { failing, storefront } from "../helpers/storefront"
import { adminHeaders } from "../helpers/admin"
import { waitFor } from "../helpers/wait-for"
import { ledgerOf, ledgerRow, LOST_CONNECTION, orderWithPayments, reconcile, syncWhileOrderCancelMarked } from "../helpers/ledger"
import { configureReconciliation } from "../helpers/reconcile-options"
import { unheardByThePlugin } from "../helpers/events"
import { syncShiftWorkflow } from "../../src/workflows/sync-shift"

jest.setTimeout(180_000)

// Many variable shifts stay open here (top-ups left waiting, deposits waiting for an address): the pool is variable-pool.spec's.
const env = useSandbox({ maxOpenVariableShifts: 100 })
// Variable rate only: the shopper may send any amount in the accepted range.
const ZK_ETH = { deposit_coin: "ETH", deposit_network: "zksync" }
const ETH_REFUND = "0x52908400098527886E0F7030069857D2E4169EE7"
const BTC_REFUND = "bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq"

medusaIntegrationTestRunner({
  testSuite: ({ api, getContainer }) => {
    let store: StoreFixture
    let shop: ReturnType<typeof storefront>
    let admin: { headers: Record<string, string> }

    beforeEach(async () => {
      store = await createStoreFixture(getContainer(), { stock: 10 })
      shop = storefront(api, store)
      admin = await adminHeaders(getContainer())
    })

    /** What to deposit for `factor` times `amount` at the pair's rate (the service's fees included). */
    async function depositWorth(amount: string, factor: string) {
      const { baseUrl, account } = env.sandbox
      const pair = await fetch(`${baseUrl}/v2/pair/eth-zksync/usdc-ethereum?affiliateId=${account.id}`, { headers: { "x-service-secret": account.secret } })
      const { rate } = (await pair.json()) as { rate: string }
      return new BigNumber(amount).times(factor).div(rate).decimalPlaces(8, BigNumber.ROUND_UP)
    }

    async function variablePayment(providerId = PROVIDERS.default, refund: Record<string, string> = { refund_address: ETH_REFUND }) {
      const cart = await shop.createCart()
      const { session } = await shop.createPaymentSession(cart.id, providerId, { ...ZK_ETH, ...refund })
      expect(session.data.shift_type).toBe("variable")
      return { cart, session, shiftId: session.data.shift_id as string }
    }

    it("places no order for a variable-rate deposit that will settle below the amount due, from the moment the service says so", async () => {
      const container = getContainer()
      const { cart, session, shiftId } = await variablePayment()
      // The smallest deposit the service accepts: worth a few dollars of a 49.99 order.
      await env.control.deposit(shiftId, { amount: session.data.deposit_min })
      await env.control.setStatus(shiftId, "processing")
      const expected = env.sandbox.getShift(shiftId).settleAmount!
      expect(new BigNumber(expected).lt(session.data.amount)).toBe(true)
      await reconcile(container)

      expect(await orderWithPayments(container, cart.id)).toBeUndefined()
      const row = await ledgerRow(container, { shift_id: shiftId })
      expect(row).toMatchObject({ status: "processing", authorized_at: null, flags: expect.objectContaining({ underpaid: expected }) })
      const { data } = await api.get(`/store/crypto-swap/payment-sessions/${session.id}?cart_id=${cart.id}`, shop.headers)
      expect(data.payment).toMatchObject({ stage: "underpaid", headline: "Payment received, but less than the amount due" })
      const completion = await shop.complete(cart.id).then(
        (answer: any) => answer.type,
        (error: any) => error.response?.status
      )
      expect(completion).not.toBe("order")
      expect(await orderWithPayments(container, cart.id)).toBeUndefined()

      // Nor once it settles short.
      await env.control.walk(shiftId, ["settling", "settled"])
      await reconcile(container)
      expect(await orderWithPayments(container, cart.id)).toBeUndefined()
      const settled = await ledgerRow(container, { shift_id: shiftId })
      expect(settled).toMatchObject({ status: "settled", authorized_at: null, captured_at: null })

      // The merchant sees the money no order holds, and gives it back through a refund shift, once.
      const { data: status } = await api.get("/admin/crypto-swap/status", admin)
      expect(status.underpaid).toEqual([
        expect.objectContaining({ id: settled.id, cart_id: cart.id, underpaid: settled.settle_amount, amount_due: session.data.amount }),
      ])
      const { data: refunded } = await api.post(`/admin/crypto-swap/shifts/${settled.id}/refund`, {}, admin)
      expect(refunded.refund).toMatchObject({ kind: "refund", amount_due: settled.settle_amount, refund_address: ETH_REFUND, status: "waiting" })
      // Who asked, in the payment's history.
      expect((await ledgerRow(container, { id: settled.id })).events.filter((event: any) => event.source === "admin")).toEqual([
        expect.objectContaining({ action: "refunded_via_shift", detail: { by: expect.stringMatching(/^user_/), refund: refunded.refund.id } }),
      ])
      const again = await failing(api.post(`/admin/crypto-swap/shifts/${settled.id}/refund`, {}, admin))
      expect(again.status).toBe(400)
      expect((await api.get("/admin/crypto-swap/status", admin)).data.underpaid).toEqual([])
    })

    it("places the order as soon as a variable-rate deposit is known to cover the amount due", async () => {
      const container = getContainer()
      const { cart, session, shiftId } = await variablePayment()
      const covering = await depositWorth(session.data.amount, "1.2")
      await env.control.deposit(shiftId, { amount: covering.toFixed() })
      await env.control.setStatus(shiftId, "processing")
      const expected = env.sandbox.getShift(shiftId).settleAmount!
      expect(new BigNumber(expected).gte(session.data.amount)).toBe(true)
      await reconcile(container)
      const order = await orderWithPayments(container, cart.id)
      expect(order?.payments).toHaveLength(1)
    })

    it("places the order for a shopper who sends the estimate the payment page shows", async () => {
      const container = getContainer()
      const { cart, session, shiftId } = await variablePayment()
      // Fees included, so the estimate settles the amount due: what the page says to send.
      expect(session.data.deposit_estimate).toMatch(/^\d+(\.\d+)?$/)
      const { data } = await api.get(`/store/crypto-swap/payment-sessions/${session.id}?cart_id=${cart.id}`, shop.headers)
      expect(data.payment.deposit.estimate).toBe(session.data.deposit_estimate)
      expect(data.payment.next_step).toContain(`about ${session.data.deposit_estimate} ETH`)
      await env.control.deposit(shiftId, { amount: session.data.deposit_estimate })
      await env.control.setStatus(shiftId, "processing")
      await reconcile(container)
      expect((await orderWithPayments(container, cart.id))?.payments).toHaveLength(1)
    })

    async function overpaid(providerId: string) {
      const container = getContainer()
      const { cart, session, shiftId } = await variablePayment(providerId)
      await env.control.deposit(shiftId, { amount: (await depositWorth(session.data.amount, "1.5")).toFixed() })
      await env.control.walk(shiftId, ["processing", "settling", "settled"])
      await reconcile(container)
      const order = (await orderWithPayments(container, cart.id))!
      const row = await ledgerRow(container, { shift_id: shiftId })
      const excess = new BigNumber(row.settle_amount!).minus(session.data.amount).toFixed()
      return { container, order, row, excess, amount: session.data.amount as string }
    }

    it("captures the amount due and flags the excess of an overpayment, kept by default", async () => {
      const { container, order, row, excess, amount } = await overpaid(PROVIDERS.default)
      expect(order.payments[0].captures.map((capture: any) => Number(capture.amount))).toEqual([Number(amount)])
      expect(row.flags).toMatchObject({ overpaid: excess })
      expect(await ledgerOf(container).listSwapShifts({ kind: "refund", refund_of_shift_id: row.shift_id })).toEqual([])
    })

    it("gives back all a canceled order's payment kept, and a deposit sent again after the cancel, though overpayments are kept", async () => {
      const { container, order, row, excess, amount } = await overpaid(PROVIDERS.default)
      const emitted = jest.spyOn(container.resolve(Modules.EVENT_BUS), "emit")
      const paidAgainTold = () =>
        emitted.mock.calls
          .flatMap(([messages]) => (Array.isArray(messages) ? messages : [messages]))
          .filter((message: any) => message.name === "crypto-swap.shift.paid_again" && message.data?.id === row.id)
      await api.post(`/admin/orders/${order.id}/cancel`, {}, admin)
      await waitFor("the cancel to be recorded", () => ledgerRow(container, { id: row.id }), (found) => Boolean(found.order_canceled_at))
      await reconcile(container)
      await reconcile(container)
      // Medusa's refund (its cancel's) and the excess (a sync's action) are recorded in either order: Medusa's first here.
      const refundsOf = async () =>
        (await ledgerOf(container).listSwapShifts({ kind: "refund", refund_of_shift_id: row.shift_id }, { order: { created_at: "ASC" } }))
          .map((refund) => [refund.refund_id?.startsWith("excess_") ? "excess" : "medusa", refund.amount_due])
          .sort(([a], [b]) => Number(a === "excess") - Number(b === "excess"))
      // Medusa's cancel refunds what it captured; the overpayment kept with the sale goes back with it, and nobody is told of a new payment.
      expect(await refundsOf()).toEqual([
        ["medusa", amount],
        ["excess", excess],
      ])
      expect(paidAgainTold()).toEqual([])

      // The shopper, not knowing, pays the same variable address again: it is theirs, and the merchant hears of it.
      const again = await paidAgainLater(container, row, await depositWorth(amount, "0.5"))
      expect(await refundsOf()).toEqual([
        ["medusa", amount],
        ["excess", excess],
        ["excess", again],
      ])
      expect(paidAgainTold()).toHaveLength(1)
      emitted.mockRestore()
    })

    it("refunds the excess of an overpayment through a refund shift, once (overpayment: refund)", async () => {
      const { container, order, row, excess, amount } = await overpaid(PROVIDERS.refunding)
      expect(order.payments[0].captures.map((capture: any) => Number(capture.amount))).toEqual([Number(amount)])
      await reconcile(container)
      const refunds = await ledgerOf(container).listSwapShifts({ kind: "refund", refund_of_shift_id: row.shift_id })
      expect(refunds).toHaveLength(1)
      expect(refunds[0]).toMatchObject({ refund_id: `excess_${row.id}`, amount_due: excess, status: "waiting", refund_address: ETH_REFUND })
      // The shopper bears the fees with this provider: the store deposits exactly the excess.
      expect(env.sandbox.getShift(refunds[0].shift_id!)).toMatchObject({ depositAmount: excess, settleAddress: ETH_REFUND, settleNetwork: "zksync" })
    })

    it("tells the shopper of a refund that settled though the event bus failed at that sync's end, at the next one", async () => {
      const { container, row } = await overpaid(PROVIDERS.refunding)
      await reconcile(container)
      const [refund] = await ledgerOf(container).listSwapShifts({ kind: "refund", refund_of_shift_id: row.shift_id })
      await env.control.deposit(refund.shift_id!)
      await env.control.walk(refund.shift_id!, ["processing", "settling", "settled"])
      const bus = container.resolve(Modules.EVENT_BUS)
      const emit = bus.emit.bind(bus)
      const told: string[] = []
      let failures = 0
      const spy = jest.spyOn(bus, "emit").mockImplementation((async (messages: any, ...rest: any[]) => {
        const refunded = [messages].flat().filter((message: { name: string; data: { id: string } }) => message.name === "crypto-swap.shift.refunded" && message.data.id === refund.id)
        if (refunded.length && failures++ === 0) throw new Error("Redis connection lost")
        told.push(...refunded.map((message: { name: string }) => message.name))
        return emit(messages, ...rest)
      }) as never)
      try {
        await reconcile(container)
        // Refunded in full: nothing in the shift would have it read again, but its event is still to tell.
        const after = await ledgerRow(container, { id: refund.id })
        expect({ told, unsent: (after.unsent_events as unknown[] | null)?.length, due: after.next_sync_at !== null }).toEqual({ told: [], unsent: 1, due: true })
        await reconcile(container)
        await reconcile(container)
        expect(told).toEqual(["crypto-swap.shift.refunded"])
        expect((await ledgerRow(container, { id: refund.id })).unsent_events).toBeNull()
      } finally {
        spy.mockRestore()
      }
    })

    /** Brings a row's next read a day closer, as the clock would: due now if one is scheduled at all. */
    async function dayLater(container: ReturnType<typeof getContainer>, rowId: string) {
      const row = await ledgerOf(container).retrieveSwapShift(rowId)
      expect(row.next_sync_at).not.toBeNull()
      await ledgerOf(container).updateSwapShifts({ id: rowId, next_sync_at: new Date(new Date(row.next_sync_at!).getTime() - 24 * 60 * 60 * 1000) })
    }

    /** Days later the shopper pays the finished payment's variable address again; answers what that deposit settled. */
    async function paidAgainLater(container: ReturnType<typeof getContainer>, row: { id: string; shift_id: string | null }, amount: BigNumber) {
      await env.control.deposit(row.shift_id!, { amount: amount.toFixed() })
      await env.control.walk(row.shift_id!, ["processing", "settling", "settled"])
      await dayLater(container, row.id)
      // As the job does: ticks until one has recorded it (a sync still running from before, e.g. the order's
      // cancel, holds the shift's lock and makes a tick leave it to the next), then one more.
      const settled = (deposits: unknown) => (Array.isArray(deposits) ? deposits : []).filter((deposit: { status?: string }) => deposit.status === "settled").length
      const sent = settled(env.sandbox.getShift(row.shift_id!).deposits)
      await waitFor(
        "the deposit sent again to be recorded",
        async () => {
          await reconcile(container)
          return ledgerRow(container, { id: row.id })
        },
        (found) => settled(found.deposits) >= sent
      )
      await reconcile(container)
      return env.sandbox.getShift(row.shift_id!).deposits!.at(-1)!.settleAmount!
    }

    it("gives back, once, a deposit the shopper sends again to the address of a captured payment (overpayment: refund)", async () => {
      const { container, row, excess, amount } = await overpaid(PROVIDERS.refunding)
      const refundsOf = () => ledgerOf(container).listSwapShifts({ kind: "refund", refund_of_shift_id: row.shift_id }, { order: { created_at: "ASC" } })
      expect((await refundsOf()).map((refund) => refund.amount_due)).toEqual([excess])

      // Days later the shopper pays the same variable address again: the service swaps it like the first.
      const again = await paidAgainLater(container, row, await depositWorth(amount, "0.5"))
      expect(await ledgerRow(container, { id: row.id })).toMatchObject({ status: "multiple", flags: expect.objectContaining({ overpaid: new BigNumber(excess).plus(again).toFixed() }) })
      expect((await refundsOf()).map((refund) => refund.amount_due)).toEqual([excess, again])

      // Read again: nothing more is owed.
      await dayLater(container, row.id)
      await reconcile(container)
      expect(await refundsOf()).toHaveLength(2)
    })

    it("waits for the figure of a deposit sent again that the service reports settled without one, and gives it back once known", async () => {
      const { container, row, excess, amount } = await overpaid(PROVIDERS.refunding)
      const refundsOf = () => ledgerOf(container).listSwapShifts({ kind: "refund", refund_of_shift_id: row.shift_id }, { order: { created_at: "ASC" } })
      await env.control.deposit(row.shift_id!, { amount: (await depositWorth(amount, "0.5")).toFixed() })
      await env.control.walk(row.shift_id!, ["processing", "settling", "settled"])
      const shift = env.sandbox.getShift(row.shift_id!)
      const again = shift.deposits!.at(-1)!.settleAmount!
      // Settled, its figure not given yet, and the address expired by the time it is: the last chance to read it.
      const unpriced = {
        ...shift,
        expiresAt: new Date(Date.now() - 60_000).toISOString(),
        deposits: shift.deposits!.map((deposit, index) => (index === 0 ? deposit : { ...deposit, settleAmount: undefined, rate: undefined })),
      }
      await env.control.addFault({ method: "GET", path: `/v2/shifts/${row.shift_id}`, status: 200, body: JSON.stringify(unpriced) })
      await env.control.addFault({ method: "GET", path: "/v2/shifts", status: 200, body: JSON.stringify([unpriced]) })
      await dayLater(container, row.id)
      await reconcile(container)
      // Nothing is judged on a deposit counted as nothing: the row is read again, not closed.
      const waiting = await ledgerRow(container, { id: row.id })
      expect(waiting).toMatchObject({ status: "multiple", terminal: false, flags: expect.objectContaining({ overpaid: excess }) })
      expect(waiting.next_sync_at).not.toBeNull()
      expect((await refundsOf()).map((refund) => refund.amount_due)).toEqual([excess])

      await env.control.clearFaults()
      await dayLater(container, row.id)
      await reconcile(container)
      await reconcile(container)
      expect((await refundsOf()).map((refund) => refund.amount_due)).toEqual([excess, again])
      expect(await ledgerRow(container, { id: row.id })).toMatchObject({ flags: expect.objectContaining({ overpaid: new BigNumber(excess).plus(again).toFixed() }) })
    })

    it("gives nothing back when a shopper whose shortfall the merchant accepted pays the rest to the same address later", async () => {
      const { container, cart, session, row } = await settledShort(PROVIDERS.refunding)
      await api.post(`/admin/crypto-swap/shifts/${row.id}/accept-underpayment`, {}, admin)
      let order = await orderWithPayments(container, cart.id)
      for (let tick = 0; tick < 5 && !order?.payments?.[0]?.captured_at; tick++) {
        await reconcile(container)
        order = await orderWithPayments(container, cart.id)
      }
      expect(order!.payments[0].captured_at).toBeTruthy()

      const missing = new BigNumber(session.data.amount).minus(row.settle_amount!).toFixed()
      await paidAgainLater(container, row, await depositWorth(missing, "1"))
      const paid = await ledgerRow(container, { id: row.id })
      expect(paid.status).toBe("multiple")
      expect(paid.flags?.overpaid ?? null).toBeNull()
      expect(await ledgerOf(container).listSwapShifts({ kind: "refund", payment_id: paid.payment_id })).toEqual([])
    })

    it("says a late fixed-rate deposit is being sent back, and lets the shopper pay again in one action", async () => {
      const container = getContainer()
      const cart = await shop.createCart()
      const { session } = await shop.createPaymentSession(cart.id, PROVIDERS.default, { deposit_coin: "BTC", deposit_network: "bitcoin", refund_address: BTC_REFUND })
      await env.control.advanceClock(16 * 60)
      await reconcile(container)
      // The deposit arrives after the deadline: the service sends it back.
      await env.control.deposit(session.data.shift_id)
      await reconcile(container)
      const page = async (id: string) => (await api.get(`/store/crypto-swap/payment-sessions/${id}?cart_id=${cart.id}`, shop.headers)).data.payment
      const late = await page(session.id)
      expect(late).toMatchObject({ stage: "refund", headline: "Your payment is being refunded: it arrived after the payment request expired" })
      expect(late.next_step).toContain("Then pay again with a new quote")

      const { data } = await api.post(`/store/crypto-swap/payment-sessions/${session.id}/requote`, { cart_id: cart.id }, shop.headers)
      const fresh = data.payment_session
      expect(fresh.data).toMatchObject({ status: "waiting", deposit_coin: "BTC" })
      await env.control.deposit(fresh.data.shift_id)
      await env.control.setStatus(fresh.data.shift_id, "processing")
      await reconcile(container)
      expect((await orderWithPayments(container, cart.id))?.payments).toHaveLength(1)
      // Both shifts stay in the ledger: the one sent back and the one that paid.
      expect((await ledgerRow(container, { shift_id: session.data.shift_id })).status).toBe("refund")
      expect((await ledgerRow(container, { shift_id: fresh.data.shift_id })).authorized_at).not.toBeNull()
    })

    /**
     * The store's clock `agoMs` after the shift's expiry, as far as the ledger can tell: the service reports that
     * expiry (the sandbox's own clock only moves forward, and the store reads expiry against its own), and the
     * ledger recorded it so.
     */
    async function expiredAgo(shiftId: string, agoMs: number) {
      await env.control.clearFaults()
      const expiresAt = new Date(Date.now() - agoMs)
      const shift = { ...env.sandbox.getShift(shiftId), expiresAt: expiresAt.toISOString() }
      await env.control.addFault({ method: "GET", path: `/v2/shifts/${shiftId}`, status: 200, body: JSON.stringify(shift) })
      await ledgerOf(getContainer()).updateSwapShifts({ id: (await ledgerRow(getContainer(), { shift_id: shiftId })).id, expires_at: expiresAt })
    }

    it("sees a late deposit to an expired variable payment that the service reviews for hours, and flags the money it settles for the merchant", async () => {
      const container = getContainer()
      // Every row due at every tick, the late watch's hourly reads included; read one by one, so that every read meets the fault above.
      const testApp = configureReconciliation(container, PROVIDERS.default, {})
      configureReconciliation(container, PROVIDERS.default, { openAddressSeconds: 0, bulkRead: false })
      try {
        const { cart, session, shiftId } = await variablePayment()
        await reconcile(container)
        // Cancelled unpaid (as the plugin cancels an idle variable shift): the payment expires, its session is canceled.
        await env.control.setStatus(shiftId, "expired")
        await reconcile(container)
        expect(await ledgerRow(container, { shift_id: shiftId })).toMatchObject({ status: "expired", terminal: true, canceled_at: expect.any(Date) })

        // Two hours on, past the hour a late deposit is watched closely, the shopper pays the address copied earlier.
        await env.control.advanceClock(2 * 60 * 60)
        await expiredAgo(shiftId, 2 * 60 * 60_000)
        await reconcile(container)
        await env.control.deposit(shiftId, { amount: session.data.deposit_estimate })
        expect(env.sandbox.getShift(shiftId)).toMatchObject({ status: "review", issue: "order expired" })
        await expiredAgo(shiftId, 2 * 60 * 60_000)
        await reconcile(container)
        expect(await ledgerRow(container, { shift_id: shiftId })).toMatchObject({ status: "review", flags: expect.objectContaining({ review: "order expired" }) })

        // Hours later the service releases it, settled at the rate of its release: money no session or order holds.
        await env.control.advanceClock(5 * 60 * 60)
        await env.control.settleFromReview(shiftId, session.data.amount)
        await expiredAgo(shiftId, 7 * 60 * 60_000)
        await reconcile(container)
        await reconcile(container)
        const flagged = await ledgerRow(container, { shift_id: shiftId })
        expect(flagged).toMatchObject({
          status: "settled",
          settle_amount: session.data.amount,
          authorized_at: null,
          captured_at: null,
          flags: expect.objectContaining({ paid_without_session: "settled" }),
        })
        expect(await orderWithPayments(container, cart.id)).toBeUndefined()
        const { data: status } = await api.get("/admin/crypto-swap/status", admin)
        expect(status.paid_without_session).toEqual(expect.arrayContaining([expect.objectContaining({ id: flagged.id, status: "settled", cart_id: cart.id })]))
      } finally {
        configureReconciliation(container, PROVIDERS.default, testApp)
      }
    })

    it("judges a variable deposit under the minimum, which the service reviews, short at once, and offers the rest once it settles", async () => {
      const container = getContainer()
      const { cart, session, shiftId } = await variablePayment()
      // Under the minimum: the service holds it for review (hours), rather than sending it back at once.
      await env.control.deposit(shiftId, { amount: new BigNumber(session.data.deposit_min).minus("0.00000001").toFixed() })
      expect(env.sandbox.getShift(shiftId)).toMatchObject({ status: "review", issue: "amount under min" })
      await reconcile(container)
      // Short on the figure the service gives: no order, and no top-up while the service may still send it back.
      const expected = env.sandbox.getShift(shiftId).settleAmount!
      expect(await ledgerRow(container, { shift_id: shiftId })).toMatchObject({ status: "review", issue: "amount under min", authorized_at: null, flags: expect.objectContaining({ underpaid: expected }) })
      expect(await view(session.id, cart.id)).toMatchObject({
        stage: "underpaid",
        headline: "Payment received, but less than the amount due",
        next_step: "Nothing to do for now: once your deposit is confirmed, you can pay the rest here.",
        missing: { can_top_up: false },
      })
      expect(await orderWithPayments(container, cart.id)).toBeUndefined()

      // Released as it arrived: the shopper may pay the rest.
      await env.control.setStatus(shiftId, "settled")
      await reconcile(container)
      expect(await ledgerRow(container, { shift_id: shiftId })).toMatchObject({ status: "settled", authorized_at: null, flags: expect.objectContaining({ underpaid: expected }) })
      expect(await view(session.id, cart.id)).toMatchObject({ stage: "underpaid", missing: { can_top_up: true } })
      expect(await orderWithPayments(container, cart.id)).toBeUndefined()
    })

    /** An order placed on a variable deposit that then settled at 45 of the 49.99 due (released from review at another rate). */
    async function settledShortAfterOrder() {
      const container = getContainer()
      const { cart, session, shiftId } = await variablePayment()
      // What the page asked for: it covers the amount due at the rate of its arrival.
      await env.control.deposit(shiftId, { amount: session.data.deposit_estimate })
      await env.control.setStatus(shiftId, "processing")
      await reconcile(container)
      const placed = await orderWithPayments(container, cart.id)
      expect(placed!.payments[0].captured_at).toBeNull()

      // Held for review, then swapped at the rate of its release: less than the order's amount.
      await env.control.setStatus(shiftId, "review", "rate drift")
      await reconcile(container)
      await env.control.settleFromReview(shiftId, "45")
      await reconcile(container)
      const row = await ledgerRow(container, { shift_id: shiftId })
      expect(row).toMatchObject({ status: "settled", captured_at: null, flags: expect.objectContaining({ underpaid: "45" }) })
      expect((await orderWithPayments(container, cart.id))!.payments[0].captured_at).toBeNull()
      return { container, cart, session, placed: placed!, row }
    }

    it("flags an order placed on a variable deposit that then settled short, and captures it once the merchant accepts the shortfall", async () => {
      const { container, cart, session, placed, row } = await settledShortAfterOrder()

      // Not left silently authorized: the merchant sees it, with its order.
      const { data: listed } = await api.get("/admin/crypto-swap/payments?attention=short_after_order", admin)
      expect(listed.payments).toEqual([expect.objectContaining({ id: row.id, order_id: placed!.id })])
      const { data: status } = await api.get("/admin/crypto-swap/status", admin)
      expect(status.underpaid).toEqual([expect.objectContaining({ id: row.id, underpaid: "45", order_id: placed!.id })])

      const { data: accepted } = await api.post(`/admin/crypto-swap/shifts/${row.id}/accept-underpayment`, {}, admin)
      expect(accepted.shift.flags).toMatchObject({ accepted_short: new BigNumber(session.data.amount).minus("45").toFixed() })
      await reconcile(container)
      const [captured] = (await orderWithPayments(container, cart.id))!.payments
      expect(captured.captured_at).toBeTruthy()
      expect((await api.get("/admin/crypto-swap/payments?attention=short_after_order", admin)).data.payments).toEqual([])

      // The order is refunded in two parts: together they give back what the shopper deposited, no more.
      const charged = new BigNumber(session.data.amount)
      await api.post(`/admin/payments/${captured.id}/refund`, { amount: charged.times("0.6").toNumber() }, admin)
      await api.post(`/admin/payments/${captured.id}/refund`, { amount: charged.times("0.4").toNumber() }, admin)
      await waitFor("both refunds to be recorded", () => ledgerOf(container).listSwapShifts({ kind: "refund", payment_id: captured.id }), (rows) => rows.length === 2)
      const refunds = await refundShiftsOf(container, { kind: "refund", payment_id: captured.id })
      const sentBack = refunds.reduce((total, refund) => total.plus(env.sandbox.getShift(refund.shift_id!).settleAmount!), new BigNumber(0))
      // Each share is rounded up to the coin's 8 decimals, so the shopper never gets less: one unit each at most.
      const deposited = new BigNumber(env.sandbox.getShift(row.shift_id!).depositAmount!)
      expect(sentBack.minus(deposited).abs().lte("0.00000002")).toBe(true)
    })

    it("owes back what settled short of a payment the merchant refunded instead of placing its order", async () => {
      const container = getContainer()
      const { session, shiftId } = await variablePayment()
      await setStock(container, store.inventoryItemId!, 0)
      await env.control.deposit(shiftId, { amount: session.data.deposit_estimate })
      await env.control.setStatus(shiftId, "processing")
      const row = await waitFor(
        "the payment to be paid with no order",
        async () => {
          await reconcile(container)
          return ledgerRow(container, { shift_id: shiftId })
        },
        (found) => Boolean(found.paid_no_order_since)
      )
      await api.post(`/admin/crypto-swap/shifts/${row.id}/refund-instead`, {}, admin)
      // Held for review, then swapped at the rate of its release: less than the order's amount.
      await env.control.setStatus(shiftId, "review", "rate drift")
      await env.control.settleFromReview(shiftId, "45")
      await reconcile(container)

      expect(await ledgerRow(container, { id: row.id })).toMatchObject({ status: "settled", captured_at: null, refund_owed: "45" })
      const { data: status } = await api.get("/admin/crypto-swap/status", admin)
      expect({ owed: status.refund_owed.map((item: any) => item.id), underpaid: status.underpaid }).toEqual({ owed: [row.id], underpaid: [] })
    })

    it("owes the money back when the merchant cancels an order placed on a deposit that then settled short", async () => {
      const { container, cart, session, placed, row } = await settledShortAfterOrder()
      // An order holds the payment: the shopper is not offered a top-up the store would refuse.
      expect((await view(session.id, cart.id)).missing).toMatchObject({ can_top_up: false })
      await api.post(`/admin/orders/${placed.id}/cancel`, {}, admin)
      const owed = await waitFor("the canceled order's money to be owed back", () => ledgerRow(container, { id: row.id }), (found) => Boolean(found.refund_owed))
      expect(owed).toMatchObject({ refund_owed: "45", captured_at: null })
      expect(await view(session.id, cart.id)).toMatchObject({
        headline: "Refund pending",
        next_step: "This payment no longer pays an order: the store will refund what you sent.",
      })
      const { data: status } = await api.get("/admin/crypto-swap/status", admin)
      expect(status.refund_owed).toEqual([expect.objectContaining({ id: row.id, refund_owed: "45" })])
      expect(status.underpaid).toEqual([])
      expect((await api.get("/admin/crypto-swap/payments?attention=short_after_order", admin)).data.payments).toEqual([])
    })

    it("owes back what settled short of an order canceled while a sync of its payment was under way, which planned without the cancel", async () => {
      const { container, placed, row } = await settledShortAfterOrder()
      // The order is canceled as the sync records what it read; the cancel's subscriber marks the row, then gives up
      // waiting for the shift's lock (the sync held it longer than its wait).
      await syncWhileOrderCancelMarked(container, row.id, () => unheardByThePlugin(container, () => api.post(`/admin/orders/${placed.id}/cancel`, {}, admin)))
      expect((await ledgerRow(container, { id: row.id })).refund_owed).toBeNull()
      await reconcile(container)
      expect((await ledgerRow(container, { id: row.id })).refund_owed).toBe("45")
    })

    it("gives back a deposit sent again to the address of a payment whose money is owed back, apart from what is owed", async () => {
      const { container, placed, row } = await settledShortAfterOrder()
      await api.post(`/admin/orders/${placed.id}/cancel`, {}, admin)
      await waitFor("the canceled order's money to be owed back", () => ledgerRow(container, { id: row.id }), (found) => Boolean(found.refund_owed))
      const refundsOf = () => ledgerOf(container).listSwapShifts({ kind: "refund", refund_of_shift_id: row.shift_id }, { order: { created_at: "ASC" } })

      // The shopper, not knowing, sends the rest to the same address: no order will ever hold it.
      const again = await paidAgainLater(container, row, await depositWorth("5", "1"))
      expect((await refundsOf()).map((refund) => refund.amount_due)).toEqual([again])
      expect(await ledgerRow(container, { id: row.id })).toMatchObject({ refund_owed: "45", captured_at: null, flags: expect.objectContaining({ paid_after_given_back: again }) })

      // What was owed before is refunded as it was, once; read again, nothing more is owed.
      await api.post(`/admin/crypto-swap/shifts/${row.id}/refund`, {}, admin)
      await dayLater(container, row.id)
      await reconcile(container)
      expect((await refundsOf()).map((refund) => refund.amount_due).sort()).toEqual(["45", again].sort())
    })

    it("owes nothing more when the order, placed before payment, of a short payment already being refunded is canceled", async () => {
      const container = getContainer()
      const { cart, session, shiftId } = await variablePayment(PROVIDERS.beforePayment)
      const placed = await shop.complete(cart.id)
      expect(placed.type).toBe("order")
      await env.control.deposit(shiftId, { amount: (await depositWorth(session.data.amount, "0.5")).toFixed() })
      await env.control.walk(shiftId, ["processing", "settling", "settled"])
      await reconcile(container)
      const row = await ledgerRow(container, { shift_id: shiftId })
      expect(row.flags).toMatchObject({ underpaid: row.settle_amount })
      // The merchant gives the short payment back, then cancels its order.
      expect((await api.post(`/admin/crypto-swap/shifts/${row.id}/refund`, {}, admin)).status).toBe(200)
      await api.post(`/admin/orders/${placed.order.id}/cancel`, {}, admin)
      await waitFor("the order's cancel to be recorded", () => ledgerRow(container, { id: row.id }), (found) => Boolean(found.order_canceled_at))
      await reconcile(container)

      const { data: status } = await api.get("/admin/crypto-swap/status", admin)
      expect({
        refund_owed: (await ledgerRow(container, { id: row.id })).refund_owed,
        listedOwed: status.refund_owed,
        refunds: (await ledgerOf(container).listSwapShifts({ kind: "refund", refund_of_shift_id: shiftId })).map((refund) => refund.amount_due),
      }).toEqual({ refund_owed: null, listedOwed: [], refunds: [row.settle_amount] })
    })

    it("lists a held underpayment whose order, placed before payment, is then canceled as owed back, no longer as held", async () => {
      const container = getContainer()
      const { cart, session, shiftId } = await variablePayment(PROVIDERS.beforePayment)
      const placed = await shop.complete(cart.id)
      await env.control.deposit(shiftId, { amount: (await depositWorth(session.data.amount, "0.5")).toFixed() })
      await env.control.walk(shiftId, ["processing", "settling", "settled"])
      await reconcile(container)
      const row = await ledgerRow(container, { shift_id: shiftId })
      await windowOver(container, row.id)
      await reconcile(container)
      expect((await ledgerRow(container, { id: row.id })).flags).toMatchObject({ underpaid_held: true })

      await api.post(`/admin/orders/${placed.order.id}/cancel`, {}, admin)
      await waitFor("the canceled order's money to be owed back", () => ledgerRow(container, { id: row.id }), (found) => Boolean(found.refund_owed))
      const listed = async (attention: string) =>
        (await api.get(`/admin/crypto-swap/payments?attention=${attention}`, admin)).data.payments.map((payment: { id: string }) => payment.id)
      expect({ held: await listed("underpaid_held"), owed: await listed("refund_owed") }).toEqual({ held: [], owed: [row.id] })
    })

    it("owes it back even when the service can't be read as the order is canceled: the payment's Sync finds the cancel", async () => {
      const { container, cart, placed, row } = await settledShortAfterOrder()
      await env.control.addFault({ method: "GET", path: "/v2/shifts/*", status: 503, body: JSON.stringify({ error: { message: "Service unavailable" } }) })
      try {
        await api.post(`/admin/orders/${placed.id}/cancel`, {}, admin)
        // Medusa's cancel of the payment went through although the service could not be asked.
        expect((await orderWithPayments(container, cart.id))!.payments[0].canceled_at).toBeTruthy()
        await waitFor("the cancel's sync to fail on the read", () => ledgerRow(container, { id: row.id }), (found) => found.sync_failures > 0)
      } finally {
        await env.control.clearFaults()
      }
      expect((await ledgerRow(container, { id: row.id })).refund_owed).toBeNull()
      const { data } = await api.post(`/admin/crypto-swap/shifts/${row.id}/sync`, {}, admin)
      expect(data.shift).toMatchObject({ refund_owed: "45", captured_at: null })
    })

    /** A variable payment that settled at `factor` of the amount due: underpaid, no order. */
    async function settledShort(providerId: string, refund?: Record<string, string>) {
      const container = getContainer()
      const payment = await variablePayment(providerId, refund)
      await env.control.deposit(payment.shiftId, { amount: (await depositWorth(payment.session.data.amount, "0.5")).toFixed() })
      await env.control.walk(payment.shiftId, ["processing", "settling", "settled"])
      await reconcile(container)
      expect(await orderWithPayments(container, payment.cart.id)).toBeUndefined()
      const row = await ledgerRow(container, { shift_id: payment.shiftId })
      expect(row.flags).toMatchObject({ underpaid: row.settle_amount })
      return { ...payment, container, row }
    }

    it("refuses a new payment on a cart whose crypto deposit is already on its way, before any shift is made for it", async () => {
      const { session } = await settledShort(PROVIDERS.default)
      await env.control.clearRequests()
      // Medusa would make the new session's shift, then fail to delete the paid one (500): the service's shift wasted.
      const answer = await failing(
        api.post(`/store/payment-collections/${session.payment_collection_id}/payment-sessions`, { provider_id: PROVIDERS.default, data: { deposit_coin: "BTC", deposit_network: "bitcoin" } }, shop.headers)
      )
      expect(answer.status).toBe(400)
      expect(answer.data.message).toMatch(/already on its way/)
      expect(await env.control.requestsTo("POST", /^\/v2\/(quotes|shifts)/)).toEqual([])
    })

    /** A short payment whose shopper paid a top-up's estimate, which the service now holds at `status`. */
    async function topUpArriving(status: string, providerId = PROVIDERS.default) {
      const short = await settledShort(providerId)
      const { data } = await api.post(`/store/crypto-swap/payment-sessions/${short.session.id}/top-up`, { cart_id: short.cart.id }, shop.headers)
      const [topUp] = await ledgerOf(short.container).listSwapShifts({ top_up_of: short.row.id })
      await env.control.deposit(topUp.shift_id!, { amount: data.payment.top_up.deposit.estimate })
      await env.control.setStatus(topUp.shift_id!, status)
      return { ...short, topUp }
    }

    /** The cart's order once ticks have placed it and captured its payment, as the job would. */
    const capturedByTicks = (container: ReturnType<typeof getContainer>, cartId: string, what: string) =>
      waitFor(
        what,
        async () => {
          await reconcile(container)
          return orderWithPayments(container, cartId)
        },
        (found) => Boolean(found?.payments?.[0]?.captured_at)
      )

    /**
     * The underpayment window ran out: a day passes for the row, whose record of when the wait began and
     * of when it is read next move a day back. A row nothing scheduled stays unscheduled, as the clock would leave it.
     */
    async function windowOver(container: ReturnType<typeof getContainer>, rowId: string) {
      const row = await ledgerOf(container).retrieveSwapShift(rowId)
      const dayBefore = (at: Date | string) => new Date(new Date(at).getTime() - 24 * 60 * 60 * 1000)
      const since = dayBefore(new Date()).toISOString()
      const topUpAt = row.flags?.top_up_at ? { top_up_at: since } : {}
      await ledgerOf(container).updateSwapShifts({
        id: rowId,
        flags: { ...(row.flags ?? {}), underpaid_since: since, ...topUpAt },
        next_sync_at: row.next_sync_at ? dayBefore(row.next_sync_at) : null,
      })
    }

    const view = async (sessionId: string, cartId: string) =>
      (await api.get(`/store/crypto-swap/payment-sessions/${sessionId}?cart_id=${cartId}`, shop.headers)).data.payment

    /** Refund rows, once the job made their refund shifts (the first tick records them, the next makes them). */
    async function refundShiftsOf(container: ReturnType<typeof getContainer>, filter: Record<string, unknown>) {
      let refunds = await ledgerOf(container).listSwapShifts(filter)
      for (let tick = 0; tick < 4 && (!refunds.length || refunds.some((refund) => !refund.shift_id)); tick++) {
        await reconcile(container)
        refunds = await ledgerOf(container).listSwapShifts(filter)
      }
      return refunds
    }

    /** The shopper pays a top-up's estimate; answers the order once the job captured its payment. */
    async function payTopUp(container: ReturnType<typeof getContainer>, topUpShift: string, estimate: string, cartId: string) {
      await env.control.deposit(topUpShift, { amount: estimate })
      await env.control.walk(topUpShift, ["processing", "settling", "settled"])
      let order = await orderWithPayments(container, cartId)
      for (let tick = 0; tick < 5 && !order?.payments?.[0]?.captured_at; tick++) {
        await reconcile(container)
        order = await orderWithPayments(container, cartId)
      }
      return order
    }

    it("gives back a top-up counted toward a payment whose own deposit the service then sent back to the shopper", async () => {
      const container = getContainer()
      const { cart, session, shiftId } = await variablePayment()
      // Half the amount due, on its way: the shopper is already offered a top-up for the rest.
      await env.control.deposit(shiftId, { amount: (await depositWorth(session.data.amount, "0.5")).toFixed() })
      await env.control.setStatus(shiftId, "processing")
      await reconcile(container)
      const { data } = await api.post(`/store/crypto-swap/payment-sessions/${session.id}/top-up`, { cart_id: cart.id }, shop.headers)
      const [topUp] = await ledgerOf(container).listSwapShifts({ top_up_of: (await ledgerRow(container, { shift_id: shiftId })).id })
      await env.control.deposit(topUp.shift_id!, { amount: data.payment.top_up.deposit.estimate })
      await env.control.walk(topUp.shift_id!, ["processing", "settling", "settled"])
      await reconcile(container)
      await reconcile(container)
      expect((await ledgerRow(container, { id: topUp.id })).captured_at).toBeTruthy()

      // The service holds the payment's own deposit for review, then sends it back: the top-up pays nothing now.
      await env.control.setStatus(shiftId, "review")
      await env.control.setStatus(shiftId, "refund", "refund required")
      await env.control.walk(shiftId, ["refunding", "refunded"])
      const refunds = await refundShiftsOf(container, { kind: "refund", refund_id: `held_${topUp.id}` })
      expect(refunds).toEqual([expect.objectContaining({ refund_of_shift_id: topUp.shift_id, refund_address: ETH_REFUND })])
      expect(refunds[0].amount_due).toBe((await ledgerRow(container, { id: topUp.id })).flags?.credited_amount)
      const order = await orderWithPayments(container, cart.id)
      if (order) expect(order.payments.every((payment: any) => !payment.captured_at)).toBe(true)
    })

    it("places no order for half its amount when the shopper pays again the address of a payment whose deposit went back, its top-up given back", async () => {
      const container = getContainer()
      const { cart, session, shiftId } = await variablePayment()
      const half = await depositWorth(session.data.amount, "0.5")
      await env.control.deposit(shiftId, { amount: half.toFixed() })
      await env.control.setStatus(shiftId, "processing")
      await reconcile(container)
      const { data } = await api.post(`/store/crypto-swap/payment-sessions/${session.id}/top-up`, { cart_id: cart.id }, shop.headers)
      const payment = await ledgerRow(container, { shift_id: shiftId })
      const [topUp] = await ledgerOf(container).listSwapShifts({ top_up_of: payment.id })
      // The payment's own deposit held for review while the top-up settles: counted, no order yet.
      await env.control.setStatus(shiftId, "review", "rate drift")
      await reconcile(container)
      await env.control.deposit(topUp.shift_id!, { amount: data.payment.top_up.deposit.estimate })
      await env.control.walk(topUp.shift_id!, ["processing", "settling", "settled"])
      await reconcile(container)
      await reconcile(container)
      expect({ credit: (await ledgerRow(container, { id: payment.id })).credit, order: await orderWithPayments(container, cart.id) }).toEqual({
        credit: expect.any(String),
        order: undefined,
      })

      // The service sends the payment's deposit back: the top-up is given back too.
      await env.control.setStatus(shiftId, "refund", "refund required")
      await env.control.walk(shiftId, ["refunding", "refunded"])
      await reconcile(container)
      expect(await refundShiftsOf(container, { kind: "refund", refund_id: `held_${topUp.id}` })).toHaveLength(1)

      // Half the amount again to the same address: it pays no order on the credit of the top-up given back, and
      // waits as a short payment of its own, listed for the merchant once the wait for the rest is over.
      await paidAgainLater(container, payment, half)
      await shop.complete(cart.id).catch(() => null)
      await reconcile(container)
      expect(await orderWithPayments(container, cart.id)).toBeUndefined()
      expect((await ledgerRow(container, { id: payment.id })).credit).toBeNull()
      await windowOver(container, payment.id)
      await reconcile(container)
      const { data: status } = await api.get("/admin/crypto-swap/status", admin)
      expect(status.underpaid).toEqual([expect.objectContaining({ id: payment.id, held: true, credit: null })])
    })

    it("lets an underpaid shopper pay the rest through a top-up, and places the order once the settled amounts cover it", async () => {
      const { container, cart, session, row } = await settledShort(PROVIDERS.default)
      const missing = new BigNumber(session.data.amount).minus(row.settle_amount!).toFixed()
      const short = await view(session.id, cart.id)
      expect(short).toMatchObject({ stage: "underpaid", missing: { amount: missing, currency_code: "usd" } })
      expect(short.missing.deposit_about).toMatch(/^\d+(\.\d+)?$/)
      expect(short.next_step).toContain(`${missing} USD`)

      const { data } = await api.post(`/store/crypto-swap/payment-sessions/${session.id}/top-up`, { cart_id: cart.id }, shop.headers)
      expect(data.payment.top_up).toMatchObject({ status: "waiting", amount_due: missing, deposit: { coin: "ETH", network: "zksync", address: expect.any(String) } })
      // A second click gets the same top-up, not a second shift.
      const { data: again } = await api.post(`/store/crypto-swap/payment-sessions/${session.id}/top-up`, { cart_id: cart.id }, shop.headers)
      expect(again.payment.top_up.deposit.address).toBe(data.payment.top_up.deposit.address)
      const topUps = await ledgerOf(container).listSwapShifts({ top_up_of: row.id })
      expect(topUps).toHaveLength(1)
      expect(topUps[0]).toMatchObject({ kind: "top_up", amount_due: missing, payment_session_id: session.id, cart_id: cart.id, refund_address: ETH_REFUND })

      // Nothing is placed while the top-up waits.
      await reconcile(container)
      expect(await orderWithPayments(container, cart.id)).toBeUndefined()

      // What the page tells the shopper to send for the rest, fees included.
      expect(data.payment.top_up.deposit.estimate).toMatch(/^\d+(\.\d+)?$/)
      const order = await payTopUp(container, topUps[0].shift_id!, data.payment.top_up.deposit.estimate, cart.id)
      expect(order!.payments).toHaveLength(1)
      expect(order!.payments[0].captures.map((capture: any) => Number(capture.amount))).toEqual([Number(session.data.amount)])
      const paid = await ledgerRow(container, { id: row.id })
      expect(paid.flags?.underpaid ?? null).toBeNull()
      expect(paid.credit).toBe((await ledgerRow(container, { id: topUps[0].id })).settle_amount)
      // Both shifts show on the order in the admin.
      const { data: shifts } = await api.get(`/admin/crypto-swap/orders/${order!.id}`, admin)
      expect(shifts.shifts.map((shift: any) => shift.id).sort()).toEqual([row.id, topUps[0].id].sort())
      expect((await view(session.id, cart.id)).stage).toBe("settled")
    })

    it("gives back a deposit the shopper sends again to a credited top-up's address, never counting it toward the order, and refunds the order in full", async () => {
      const { container, cart, session, row } = await settledShort(PROVIDERS.default)
      const { data } = await api.post(`/store/crypto-swap/payment-sessions/${session.id}/top-up`, { cart_id: cart.id }, shop.headers)
      const [topUp] = await ledgerOf(container).listSwapShifts({ top_up_of: row.id })
      const order = await payTopUp(container, topUp.shift_id!, data.payment.top_up.deposit.estimate, cart.id)
      expect(order!.payments[0].captured_at).toBeTruthy()
      const credited = (await ledgerRow(container, { id: row.id })).credit

      // Days later the shopper pays the top-up's variable address again (the overpayment policy keeps excess).
      const again = await paidAgainLater(container, topUp, await depositWorth("20", "1"))
      const [refund] = await refundShiftsOf(container, { kind: "refund", refund_of_shift_id: topUp.shift_id })
      expect(refund).toMatchObject({ refund_id: `excess_${topUp.id}`, amount_due: again, refund_address: ETH_REFUND, status: "waiting" })
      expect(await ledgerRow(container, { id: topUp.id })).toMatchObject({ status: "multiple", flags: expect.objectContaining({ paid_after_credit: again }) })
      // The order keeps what it was paid: the payment's credit and capture are as they were.
      expect((await ledgerRow(container, { id: row.id })).credit).toBe(credited)
      expect((await orderWithPayments(container, cart.id))!.payments[0].captures).toHaveLength(1)
      // Read again: nothing more is owed.
      await dayLater(container, topUp.id)
      await reconcile(container)
      expect(await ledgerOf(container).listSwapShifts({ kind: "refund", refund_of_shift_id: topUp.shift_id })).toHaveLength(1)

      // The merchant refunds the whole order: the shopper gets back all they paid for it, top-up included.
      await api.post(`/admin/payments/${order!.payments[0].id}/refund`, { amount: Number(session.data.amount) }, admin)
      const [orderRefund] = await refundShiftsOf(container, { kind: "refund", payment_id: order!.payments[0].id })
      const paidForOrder = new BigNumber(env.sandbox.getShift(row.shift_id!).depositAmount!).plus(env.sandbox.getShift(topUp.shift_id!).deposits![0].depositAmount!)
      const sentBack = new BigNumber(env.sandbox.getShift(orderRefund.shift_id!).settleAmount!)
      // About what the order was paid (its share of it, rounded up to the coin's last unit), never the top-up's later deposit again.
      expect(sentBack.gte(paidForOrder.times("0.999"))).toBe(true)
      expect(sentBack.lte(paidForOrder.plus("0.00000001"))).toBe(true)
    })

    it("asks the shopper on the payment page where to send back a deposit sent again to a credited top-up, when no address is known", async () => {
      const { container, cart, session, row } = await settledShort(PROVIDERS.default, {})
      const { data } = await api.post(`/store/crypto-swap/payment-sessions/${session.id}/top-up`, { cart_id: cart.id }, shop.headers)
      const [topUp] = await ledgerOf(container).listSwapShifts({ top_up_of: row.id })
      expect(topUp.refund_address).toBeNull()
      await payTopUp(container, topUp.shift_id!, data.payment.top_up.deposit.estimate, cart.id)
      const again = await paidAgainLater(container, topUp, await depositWorth("20", "1"))
      const [refund] = await ledgerOf(container).listSwapShifts({ kind: "refund", refund_of_shift_id: topUp.shift_id })
      expect(refund).toMatchObject({ refund_id: `excess_${topUp.id}`, amount_due: again, status: "address_needed" })

      const page = await view(session.id, cart.id)
      expect(page.refund.address_needed).toBe(true)
      expect(page.next_step).toContain(`${again} USD`)
      await api.post(`/store/crypto-swap/payment-sessions/${session.id}/refund-address`, { cart_id: cart.id, address: ETH_REFUND }, shop.headers)
      expect(await ledgerOf(container).retrieveSwapShift(refund.id)).toMatchObject({ status: "waiting", settle_address: ETH_REFUND })
    })

    it("refunds a credited top-up at what it counted when the merchant gives a short payment back, its later deposit apart", async () => {
      const { container, cart, session, row } = await settledShort(PROVIDERS.default)
      const { data } = await api.post(`/store/crypto-swap/payment-sessions/${session.id}/top-up`, { cart_id: cart.id }, shop.headers)
      const [topUp] = await ledgerOf(container).listSwapShifts({ top_up_of: row.id })
      // The top-up pays half the rest: credited, the payment still short.
      await env.control.deposit(topUp.shift_id!, { amount: new BigNumber(data.payment.top_up.deposit.estimate).div(2).toFixed(8) })
      await env.control.walk(topUp.shift_id!, ["processing", "settling", "settled"])
      await reconcile(container)
      await reconcile(container)
      const counted = (await ledgerRow(container, { id: row.id })).credit
      expect(counted).toBe((await ledgerRow(container, { id: topUp.id })).settle_amount)
      // The shopper pays the top-up's address again; that deposit is still on its way when the merchant decides.
      await env.control.deposit(topUp.shift_id!, { amount: (await depositWorth("10", "1")).toFixed() })
      await env.control.setStatus(topUp.shift_id!, "processing")
      await dayLater(container, topUp.id)
      await reconcile(container)
      expect(await ledgerRow(container, { id: topUp.id })).toMatchObject({ status: "multiple" })

      // The shopper may still pay the rest through a new top-up.
      const { data: next } = await api.post(`/store/crypto-swap/payment-sessions/${session.id}/top-up`, { cart_id: cart.id }, shop.headers)
      expect(next.payment.top_up.deposit.address).not.toBe(data.payment.top_up.deposit.address)
      // The merchant gives it all back instead: the top-up's counted part now, its later deposit once settled.
      await api.post(`/admin/crypto-swap/shifts/${row.id}/refund`, { address: ETH_REFUND }, admin)
      const refundsOfTopUp = async () =>
        Object.fromEntries((await ledgerOf(container).listSwapShifts({ kind: "refund", refund_of_shift_id: topUp.shift_id })).map((refund) => [refund.refund_id, refund.amount_due]))
      expect(await refundsOfTopUp()).toEqual({ [`held_${topUp.id}`]: counted })
      await env.control.walk(topUp.shift_id!, ["settling", "settled"])
      await dayLater(container, topUp.id)
      await reconcile(container)
      await reconcile(container)
      const again = env.sandbox.getShift(topUp.shift_id!).deposits!.at(-1)!.settleAmount!
      expect(await refundsOfTopUp()).toEqual({ [`held_${topUp.id}`]: counted, [`excess_${topUp.id}`]: again })
    })

    it("finishes giving back a short payment and its top-ups when the first try failed partway, then refuses a second", async () => {
      const { container, cart, session, row } = await settledShort(PROVIDERS.default)
      const topUps: string[] = []
      for (const factor of ["0.2", "0.1"]) {
        const { data } = await api.post(`/store/crypto-swap/payment-sessions/${session.id}/top-up`, { cart_id: cart.id }, shop.headers)
        const [topUp] = (await ledgerOf(container).listSwapShifts({ top_up_of: row.id }, { order: { created_at: "DESC" }, take: 1 }))
        await env.control.deposit(topUp.shift_id!, { amount: (await depositWorth(session.data.amount, factor)).toFixed() })
        await env.control.walk(topUp.shift_id!, ["processing", "settling", "settled"])
        await reconcile(container)
        await reconcile(container)
        expect(data.payment.top_up.deposit.address).toBe(topUp.deposit_address)
        topUps.push(topUp.id)
      }
      expect(await orderWithPayments(container, cart.id)).toBeUndefined()

      // The merchant gives it all back; recording the second top-up's refund fails (the database went away).
      const ledger = ledgerOf(container)
      const record = ledger.recordNewSwapShift.bind(ledger)
      let failed = false
      const failOnce = jest.spyOn(ledger, "recordNewSwapShift").mockImplementation(async (shift, event) => {
        if (!failed && (shift as { refund_id?: string }).refund_id === `held_${topUps[1]}`) {
          failed = true
          throw new Error("connection terminated")
        }
        return record(shift, event)
      })
      const first = await failing(api.post(`/admin/crypto-swap/shifts/${row.id}/refund`, { address: ETH_REFUND }, admin))
      failOnce.mockRestore()
      expect(first.status).toBe(500)
      const refundIds = async () => (await ledger.listSwapShifts({ kind: "refund", refund_id: [row.id, ...topUps].map((id) => `held_${id}`) })).map((refund) => refund.refund_id).sort()
      // The payment's own refund is recorded last: until it is, the payment stays listed for the merchant to ask again.
      expect(await refundIds()).toEqual([`held_${topUps[0]}`])
      expect((await api.get("/admin/crypto-swap/status", admin)).data.underpaid).toEqual([expect.objectContaining({ id: row.id })])

      // Asked again, it finishes what the first try began: nothing is refunded twice.
      const { data: answered } = await api.post(`/admin/crypto-swap/shifts/${row.id}/refund`, { address: ETH_REFUND }, admin)
      expect(answered.refund).toMatchObject({ refund_id: `held_${row.id}` })
      expect(await refundIds()).toEqual([row.id, ...topUps].map((id) => `held_${id}`).sort())
      expect((await api.get("/admin/crypto-swap/status", admin)).data.underpaid).toEqual([])
      const again = await failing(api.post(`/admin/crypto-swap/shifts/${row.id}/refund`, {}, admin))
      expect(again.status).toBe(400)
      expect(again.data.message).toMatch(/already being refunded/)

      // A top-up's refund missing beside the payment's (left by an older release's failed try): asked again, it is
      // recorded to where the payment's refund sends the money, never to another address.
      await ledger.deleteSwapShifts((await ledger.listSwapShifts({ refund_id: `held_${topUps[1]}` }, { select: ["id"] })).map((refund) => refund.id))
      const elsewhere = await failing(api.post(`/admin/crypto-swap/shifts/${row.id}/refund`, { address: "0x000000000000000000000000000000000000dEaD" }, admin))
      expect({ status: elsewhere.status, message: elsewhere.data.message }).toEqual({ status: 400, message: expect.stringContaining(ETH_REFUND) })
      expect(await refundIds()).toHaveLength(2)
      await api.post(`/admin/crypto-swap/shifts/${row.id}/refund`, {}, admin)
      const addresses = (await ledger.listSwapShifts({ kind: "refund", refund_id: topUps.map((id) => `held_${id}`) })).map((refund) => refund.refund_address)
      expect(addresses).toEqual([ETH_REFUND, ETH_REFUND])
    })

    it("asks the shopper for a refund address when the service sends back a deposit sent again to a credited top-up", async () => {
      const { container, cart, session, row } = await settledShort(PROVIDERS.default, {})
      const { data } = await api.post(`/store/crypto-swap/payment-sessions/${session.id}/top-up`, { cart_id: cart.id }, shop.headers)
      const [topUp] = await ledgerOf(container).listSwapShifts({ top_up_of: row.id })
      await payTopUp(container, topUp.shift_id!, data.payment.top_up.deposit.estimate, cart.id)
      expect((await view(session.id, cart.id)).top_up).toBeNull()

      await env.control.deposit(topUp.shift_id!, { amount: (await depositWorth("10", "1")).toFixed() })
      await env.control.setDepositStatus(topUp.shift_id!, 1, "refund")
      await dayLater(container, topUp.id)
      await reconcile(container)
      expect((await view(session.id, cart.id)).top_up).toMatchObject({ refund: { address_needed: true } })
    })

    it("stops offering a waiting top-up once the payment it was for is decided: paid now, it would buy nothing", async () => {
      const { container, cart, session, row } = await settledShort(PROVIDERS.refunding)
      await api.post(`/store/crypto-swap/payment-sessions/${session.id}/top-up`, { cart_id: cart.id }, shop.headers)
      expect((await view(session.id, cart.id)).top_up).toMatchObject({ status: "waiting" })
      // The wait ends with nothing paid: the short payment goes back to the shopper.
      await windowOver(container, row.id)
      await reconcile(container)
      expect((await ledgerRow(container, { id: row.id })).flags).toMatchObject({ underpayment_settled: "refund" })
      expect((await view(session.id, cart.id)).top_up).toBeNull()
    })

    it("makes no second top-up while a settled one is not counted yet: the shopper would pay the rest twice", async () => {
      const { container, cart, session, row } = await settledShort(PROVIDERS.default)
      const { data } = await api.post(`/store/crypto-swap/payment-sessions/${session.id}/top-up`, { cart_id: cart.id }, shop.headers)
      const [topUp] = await ledgerOf(container).listSwapShifts({ top_up_of: row.id })
      await env.control.deposit(topUp.shift_id!, { amount: data.payment.top_up.deposit.estimate })
      await env.control.walk(topUp.shift_id!, ["processing", "settling", "settled"])
      // The service says settled without its figures for a while: the top-up can't be counted yet.
      const { settleAmount: _figure, depositAmount: _deposit, rate: _rate, ...unpriced } = env.sandbox.getShift(topUp.shift_id!)!
      env.sandbox.addFault({ method: "GET", path: `/v2/shifts/${topUp.shift_id}`, status: 200, body: JSON.stringify(unpriced), times: 3 })
      env.sandbox.addFault({ method: "GET", path: "/v2/shifts", status: 200, body: JSON.stringify([unpriced]), times: 3 })
      await reconcile(container)
      expect(await ledgerRow(container, { id: topUp.id })).toMatchObject({ status: "settled", captured_at: null })

      const again = await failing(api.post(`/store/crypto-swap/payment-sessions/${session.id}/top-up`, { cart_id: cart.id }, shop.headers))
      expect(again.status).toBe(400)
      expect(await ledgerOf(container).listSwapShifts({ top_up_of: row.id })).toHaveLength(1)
      await env.control.clearFaults()
    })

    it("settles an underpayment when its wait ends though a top-up got several deposits, all sent back", async () => {
      const { container, cart, session, row } = await settledShort(PROVIDERS.refunding)
      await api.post(`/store/crypto-swap/payment-sessions/${session.id}/top-up`, { cart_id: cart.id }, shop.headers)
      const [topUp] = await ledgerOf(container).listSwapShifts({ top_up_of: row.id })
      // Twice below its minimum: the service reviews both and sends them back, and the top-up reads `multiple` for good.
      const tooLittle = new BigNumber(topUp.deposit_min!).div(2).toFixed()
      await env.control.deposit(topUp.shift_id!, { amount: tooLittle })
      await env.control.deposit(topUp.shift_id!, { amount: tooLittle })
      for (const index of [0, 1]) {
        await env.control.setDepositStatus(topUp.shift_id!, index, "refund")
        await env.control.setDepositStatus(topUp.shift_id!, index, "refunding")
        await env.control.setDepositStatus(topUp.shift_id!, index, "refunded")
      }
      await reconcile(container)
      expect(await ledgerRow(container, { id: topUp.id })).toMatchObject({ status: "multiple", captured_at: null })

      await windowOver(container, row.id)
      const refunds = await refundShiftsOf(container, { kind: "refund", refund_id: `held_${row.id}` })
      expect(refunds).toEqual([expect.objectContaining({ amount_due: row.settle_amount, refund_address: ETH_REFUND })])
      const [settle] = await ledgerOf(container).listSwapShiftActions({ swap_shift_id: row.id, kind: "settle_underpayment" })
      expect(settle).toMatchObject({ state: "done", outcome: "refund" })
    })

    it("holds an underpayment for the merchant once the window passes with no top-up, and places the order when the admin accepts it", async () => {
      const { container, cart, session, row } = await settledShort(PROVIDERS.default)
      await reconcile(container)
      expect((await ledgerRow(container, { id: row.id })).flags?.underpaid_held ?? null).toBeNull()

      await windowOver(container, row.id)
      await reconcile(container)
      const held = await ledgerRow(container, { id: row.id })
      expect(held.flags).toMatchObject({ underpaid_held: true })
      const { data: status } = await api.get("/admin/crypto-swap/status", admin)
      expect(status.underpaid).toEqual([expect.objectContaining({ id: row.id, held: true, underpaid: row.settle_amount })])
      // The shopper can't top up a payment waiting on the merchant's decision.
      expect((await failing(api.post(`/store/crypto-swap/payment-sessions/${session.id}/top-up`, { cart_id: cart.id }, shop.headers))).status).toBe(400)

      const { data: accepted } = await api.post(`/admin/crypto-swap/shifts/${row.id}/accept-underpayment`, {}, admin)
      expect(accepted.shift.flags).toMatchObject({ accepted_short: new BigNumber(session.data.amount).minus(row.settle_amount!).toFixed() })
      let order = await orderWithPayments(container, cart.id)
      for (let tick = 0; tick < 5 && !order?.payments?.[0]?.captured_at; tick++) {
        await reconcile(container)
        order = await orderWithPayments(container, cart.id)
      }
      expect(order!.payments[0].captured_at).toBeTruthy()
      expect((await api.get("/admin/crypto-swap/status", admin)).data.underpaid).toEqual([])
      // Accepted once: a second acceptance is refused.
      expect((await failing(api.post(`/admin/crypto-swap/shifts/${row.id}/accept-underpayment`, {}, admin))).status).toBe(400)
    })

    it("does not let the merchant accept a shortfall that a top-up on its way is paying, and places the order on the top-up", async () => {
      // Seen by the service, not yet by a tick: the admin's acceptance reads it first.
      const { container, cart, row, topUp } = await topUpArriving("processing")

      // Forgiving the rest now would give back, at the store's cost, the very money that pays it.
      const refused = await failing(api.post(`/admin/crypto-swap/shifts/${row.id}/accept-underpayment`, {}, admin))
      expect(refused.status).toBe(400)
      expect(refused.data.message).toMatch(/top-up/i)
      expect((await ledgerRow(container, { id: row.id })).flags?.accepted_short ?? null).toBeNull()

      await env.control.walk(topUp.shift_id!, ["settling", "settled"])
      expect((await capturedByTicks(container, cart.id, "the order placed on the top-up and captured"))!.payments[0].captured_at).toBeTruthy()
      expect(await ledgerOf(container).listSwapShifts({ kind: "refund", refund_of_shift_id: topUp.shift_id })).toEqual([])
    })

    it("does not accept a shortfall while the payment's top-up can't be read at the service", async () => {
      const { container, row, topUp } = await topUpArriving("processing")
      // Every try of the read fails (the client retries a 503): what the top-up holds is not known.
      await env.control.addFault({ method: "GET", path: `/v2/shifts/${topUp.shift_id}`, status: 503 })
      try {
        const refused = await failing(api.post(`/admin/crypto-swap/shifts/${row.id}/accept-underpayment`, {}, admin))
        expect(refused.status).toBeGreaterThanOrEqual(400)
        expect(refused.data.message).toMatch(/top-up .* could not be read/)
      } finally {
        await env.control.clearFaults()
      }
      expect((await ledgerRow(container, { id: row.id })).flags?.accepted_short ?? null).toBeNull()
    })

    it("accepts a shortfall whose first try stopped before its credit was written, when the merchant asks again", async () => {
      const { container, cart, row } = await settledShort(PROVIDERS.refunding)
      // The acceptance's write of the credit fails, as a process stopped there would leave it.
      const ledger = ledgerOf(container)
      const update = ledger.updateSwapShifts.bind(ledger)
      const lost = jest.spyOn(ledger, "updateSwapShifts").mockImplementation(((data: { id?: string }, ...rest: unknown[]) =>
        data?.id === row.id && "credit" in data ? Promise.reject(new Error(LOST_CONNECTION)) : (update as Function)(data, ...rest)) as never)
      try {
        expect((await failing(api.post(`/admin/crypto-swap/shifts/${row.id}/accept-underpayment`, {}, admin))).status).toBeGreaterThanOrEqual(400)
      } finally {
        lost.mockRestore()
      }
      await api.post(`/admin/crypto-swap/shifts/${row.id}/accept-underpayment`, {}, admin)
      expect((await capturedByTicks(container, cart.id, "the order placed on the accepted payment and captured"))!.payments[0].captured_at).toBeTruthy()
    })

    it("waits as long as a top-up sits in review before holding the underpayment, without calling the merchant for it", async () => {
      const { container, row, topUp } = await topUpArriving("review")
      await windowOver(container, row.id)
      // Many more syncs than an action's attempts (10): a review takes hours, and waiting on it is no failure.
      for (let tick = 0; tick < 12; tick++) await reconcile(container)
      const [settle] = await ledgerOf(container).listSwapShiftActions({ swap_shift_id: row.id, kind: "settle_underpayment" })
      expect(settle).toMatchObject({ state: "pending", attempts: 0, blocked_since: expect.any(Date) })
      expect(settle.last_error).toMatch(/top-up/)
      expect((await ledgerRow(container, { id: row.id })).flags?.underpaid_held ?? null).toBeNull()

      // The service sends the top-up back: the underpayment is held for the merchant by the job alone.
      await env.control.setStatus(topUp.shift_id!, "refund", "refund required")
      await env.control.walk(topUp.shift_id!, ["refunding", "refunded"])
      await reconcile(container)
      await reconcile(container)
      expect((await ledgerRow(container, { id: row.id })).flags).toMatchObject({ underpaid_held: true, underpayment_settled: "hold" })
      expect((await ledgerOf(container).listSwapShiftActions({ swap_shift_id: row.id, kind: "settle_underpayment" }))[0]).toMatchObject({ state: "done", blocked_since: null })
    })

    it("reads a waiting top-up at the service before refunding its payment when the wait ends: one paid since places the order", async () => {
      const { container, cart, row, topUp } = await topUpArriving("processing", PROVIDERS.refunding)
      // The ledger still has the top-up waiting (its next read not yet due) as the payment's wait runs out.
      await ledgerOf(container).updateSwapShifts({ id: topUp.id, next_sync_at: new Date(Date.now() + 60 * 60_000) })
      await windowOver(container, row.id)
      await syncShiftWorkflow(container).run({ input: { ledger_id: row.id, source: "poll" } })
      expect(await ledgerOf(container).listSwapShifts({ kind: "refund", refund_id: `held_${row.id}` })).toEqual([])
      expect((await ledgerRow(container, { id: row.id })).flags?.underpayment_settled ?? null).toBeNull()

      await env.control.walk(topUp.shift_id!, ["settling", "settled"])
      await ledgerOf(container).updateSwapShifts({ id: topUp.id, next_sync_at: new Date() })
      expect((await capturedByTicks(container, cart.id, "the order placed on the top-up and captured"))!.payments[0].captured_at).toBeTruthy()
    })

    it("refunds an underpayment to the shopper once the window passes with no top-up (underpayment.then: refund)", async () => {
      const { container, cart, session, row } = await settledShort(PROVIDERS.refunding)
      await reconcile(container)
      expect(await ledgerOf(container).listSwapShifts({ kind: "refund", refund_of_shift_id: row.shift_id })).toEqual([])

      await windowOver(container, row.id)
      await reconcile(container)
      await reconcile(container)
      const refunds = await ledgerOf(container).listSwapShifts({ kind: "refund", refund_of_shift_id: row.shift_id })
      expect(refunds).toHaveLength(1)
      expect(refunds[0]).toMatchObject({ amount_due: row.settle_amount, refund_address: ETH_REFUND, status: "waiting" })
      expect((await api.get("/admin/crypto-swap/status", admin)).data.underpaid).toEqual([])
      // Being given back, it can't be topped up any more, and no order is placed.
      expect((await failing(api.post(`/store/crypto-swap/payment-sessions/${session.id}/top-up`, { cart_id: cart.id }, shop.headers))).status).toBe(400)
      expect(await orderWithPayments(container, cart.id)).toBeUndefined()
      await reconcile(container)
      expect(await ledgerOf(container).listSwapShifts({ kind: "refund", refund_of_shift_id: row.shift_id })).toHaveLength(1)
      expect(await view(session.id, cart.id)).toMatchObject({ headline: "Refund pending" })

      // The merchant funds the refund shift; once the service paid the shopper, the page says so.
      await env.control.deposit(refunds[0].shift_id!)
      await env.control.walk(refunds[0].shift_id!, ["processing", "settling", "settled"])
      await ledgerOf(container).updateSwapShifts({ id: refunds[0].id, next_sync_at: new Date() })
      await reconcile(container)
      const sent = env.sandbox.getShift(refunds[0].shift_id!)
      expect(await view(session.id, cart.id)).toMatchObject({
        headline: "Your payment was refunded",
        next_step: "Nothing to do: the refund was sent to your refund address.",
        transactions: { refund: { hash: sent.settleHash, url: expect.any(String) } },
      })
    })

    it("gives back a deposit sent again to the address of an underpayment already refunded, even one that covers the rest", async () => {
      const { container, cart, session, row } = await settledShort(PROVIDERS.refunding)
      await windowOver(container, row.id)
      await reconcile(container)
      const refundsOf = () => ledgerOf(container).listSwapShifts({ kind: "refund", refund_of_shift_id: row.shift_id }, { order: { created_at: "ASC" } })
      expect((await refundsOf()).map((refund) => refund.amount_due)).toEqual([row.settle_amount])

      const again = await paidAgainLater(container, row, await depositWorth("40", "1"))
      expect((await refundsOf()).map((refund) => refund.amount_due)).toEqual([row.settle_amount, again])
      expect(await orderWithPayments(container, row.cart_id!)).toBeUndefined()
      // Settled in full now, but all of it goes back: the page never says the order is confirmed.
      expect(await view(session.id, cart.id)).toMatchObject({
        headline: "Refund pending",
        next_step: "Nothing to do: what you sent is being refunded to your refund address.",
      })
      await dayLater(container, row.id)
      await reconcile(container)
      expect(await refundsOf()).toHaveLength(2)
    })

    it("records held money's refund that a crash left unwritten, and apart from it a deposit that arrived since", async () => {
      const { container, row } = await settledShort(PROVIDERS.refunding)
      // What a crash between marking the money held and recording its refund leaves behind.
      await ledgerOf(container).updateSwapShifts({ id: row.id, flags: { ...(row.flags ?? {}), held_refund: `held_${row.id}`, held_amount: row.settle_amount } })
      // The shopper then pays more than the rest: the payment would now cover its order, but it is being given back.
      const again = await paidAgainLater(container, row, await depositWorth("40", "1"))
      const refunds = await ledgerOf(container).listSwapShifts({ kind: "refund", refund_of_shift_id: row.shift_id })
      expect(Object.fromEntries(refunds.map((refund) => [refund.refund_id, refund.amount_due]))).toEqual({ [`held_${row.id}`]: row.settle_amount, [`excess_${row.id}`]: again })
      expect(await orderWithPayments(container, row.cart_id!)).toBeUndefined()
    })

    it("refunds an underpayment paid in two deposits, everything that settled, once the window passes", async () => {
      const container = getContainer()
      const { cart, shiftId } = await variablePayment(PROVIDERS.refunding)
      const quarter = (await depositWorth("49.99", "0.25")).toFixed()
      await env.control.deposit(shiftId, { amount: quarter })
      await env.control.deposit(shiftId, { amount: quarter })
      for (const status of ["processing", "settling", "settled"]) {
        await env.control.setDepositStatus(shiftId, 0, status)
        await env.control.setDepositStatus(shiftId, 1, status)
      }
      await reconcile(container)
      const row = await ledgerRow(container, { shift_id: shiftId })
      const settled = (env.sandbox.getShift(shiftId).deposits ?? []).reduce((sum, deposit) => sum.plus(deposit.settleAmount!), new BigNumber(0)).toFixed()
      expect(row).toMatchObject({ status: "multiple", flags: expect.objectContaining({ underpaid: settled }) })

      await windowOver(container, row.id)
      await reconcile(container)
      await reconcile(container)
      const refunds = await ledgerOf(container).listSwapShifts({ kind: "refund", refund_of_shift_id: shiftId })
      expect(refunds).toEqual([expect.objectContaining({ amount_due: settled, refund_address: ETH_REFUND })])
      expect(await orderWithPayments(container, cart.id)).toBeUndefined()
    })

    it("gives back a top-up that settles after its payment's money went back, never placing the order", async () => {
      const { container, cart, session, row } = await settledShort(PROVIDERS.refunding)
      const { data } = await api.post(`/store/crypto-swap/payment-sessions/${session.id}/top-up`, { cart_id: cart.id }, shop.headers)
      const [topUp] = await ledgerOf(container).listSwapShifts({ top_up_of: row.id })
      // The wait runs out while the top-up is still unpaid: what arrived goes back.
      await windowOver(container, row.id)
      await reconcile(container)
      expect(await ledgerOf(container).listSwapShifts({ kind: "refund", refund_of_shift_id: row.shift_id })).toHaveLength(1)

      await env.control.deposit(topUp.shift_id!, { amount: data.payment.top_up.deposit.estimate })
      await env.control.walk(topUp.shift_id!, ["processing", "settling", "settled"])
      await reconcile(container)
      await reconcile(container)
      const late = await ledgerOf(container).listSwapShifts({ kind: "refund", refund_of_shift_id: topUp.shift_id })
      expect(late).toHaveLength(1)
      const settledTopUp = await ledgerRow(container, { id: topUp.id })
      expect(late[0]).toMatchObject({ amount_due: settledTopUp.settle_amount, refund_address: ETH_REFUND })
      expect(await orderWithPayments(container, cart.id)).toBeUndefined()
      expect((await ledgerRow(container, { id: row.id })).credit).toBeNull()
    })

    it("offers a top-up only once the short deposit is confirmed, and refunds one that settles after the service sent the payment back", async () => {
      const container = getContainer()
      const { cart, session, shiftId } = await variablePayment()
      await env.control.deposit(shiftId, { amount: (await depositWorth(session.data.amount, "0.5")).toFixed() })
      await reconcile(container)
      // Seen, not confirmed: it may still be sent back, so nothing to top up yet.
      const pending = await view(session.id, cart.id)
      expect(pending).toMatchObject({ stage: "underpaid", missing: { can_top_up: false } })
      expect((await failing(api.post(`/store/crypto-swap/payment-sessions/${session.id}/top-up`, { cart_id: cart.id }, shop.headers))).status).toBe(400)

      await env.control.setStatus(shiftId, "processing")
      await reconcile(container)
      expect((await view(session.id, cart.id)).missing.can_top_up).toBe(true)
      const { data } = await api.post(`/store/crypto-swap/payment-sessions/${session.id}/top-up`, { cart_id: cart.id }, shop.headers)
      const [topUp] = await ledgerOf(container).listSwapShifts({ top_up_of: (await ledgerRow(container, { shift_id: shiftId })).id })
      // The service sends the payment's deposit back after all (review, then refund): the top-up can pay nothing.
      await env.control.walk(shiftId, ["review", "refund"])
      await reconcile(container)
      await env.control.deposit(topUp.shift_id!, { amount: data.payment.top_up.deposit.estimate })
      await env.control.walk(topUp.shift_id!, ["processing", "settling", "settled"])
      await reconcile(container)
      await reconcile(container)
      const refunds = await ledgerOf(container).listSwapShifts({ kind: "refund", refund_of_shift_id: topUp.shift_id })
      expect(refunds).toEqual([expect.objectContaining({ refund_id: `held_${topUp.id}`, refund_address: ETH_REFUND })])
      expect(await orderWithPayments(container, cart.id)).toBeUndefined()
    })

    it("asks the shopper where to send back a short payment refunded after the window, when no refund address is known", async () => {
      const { container, cart, session, row } = await settledShort(PROVIDERS.refunding, {})
      await windowOver(container, row.id)
      await reconcile(container)
      const [refund] = await ledgerOf(container).listSwapShifts({ kind: "refund", refund_of_shift_id: row.shift_id })
      expect(refund).toMatchObject({ status: "address_needed", refund_id: `held_${row.id}` })
      const asking = await view(session.id, cart.id)
      expect(asking.refund.address_needed).toBe(true)
      expect(asking.next_step).toMatch(/enter a ETH address on zksync/)

      await api.post(`/store/crypto-swap/payment-sessions/${session.id}/refund-address`, { cart_id: cart.id, address: ETH_REFUND }, shop.headers)
      expect(await ledgerRow(container, { id: refund.id })).toMatchObject({ refund_address: ETH_REFUND, status: "waiting" })
      expect((await view(session.id, cart.id)).refund.address_needed).toBe(false)
    })
  },
})
