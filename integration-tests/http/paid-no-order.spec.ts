import { medusaIntegrationTestRunner } from "@medusajs/test-utils"
import { ContainerRegistrationKeys, Modules } from "@medusajs/framework/utils"
import { createTaxRegionsWorkflow, processPaymentWorkflow } from "@medusajs/core-flows"
import type { MedusaContainer, WebhookActionResult } from "@medusajs/framework/types"
import BigNumber from "bignumber.js"
import { useSandbox } from "../helpers/sandbox"
import { waitFor } from "../helpers/wait-for"
import { createStoreFixture, PROVIDERS, setStock, type StoreFixture } from "../helpers/store-fixtures"
import { failing, storefront } from "../helpers/storefront"
import { adminHeaders } from "../helpers/admin"
import { ledgerOf, ledgerRow, LOST_CONNECTION, orderWithPayments, reconcile } from "../helpers/ledger"
import { heldRefundId } from "../../src/lib/shift/refund-ids"

jest.setTimeout(240_000)

const env = useSandbox()
const BTC = { deposit_coin: "BTC", deposit_network: "bitcoin" }
const ETH_REFUND = "0x52908400098527886E0F7030069857D2E4169EE7"
const BTC_REFUND = "bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq"
const PAID_NO_ORDER = "crypto-swap.shift.paid_no_order"

async function paymentsOfCart(container: MedusaContainer, cartId: string) {
  const query = container.resolve(ContainerRegistrationKeys.QUERY)
  const { data: links } = await query.graph({
    entity: "cart_payment_collection",
    fields: ["payment_collection.payments.id", "payment_collection.payments.captured_at", "payment_collection.payments.canceled_at"],
    filters: { cart_id: cartId },
  })
  return links.flatMap((link: any) => link.payment_collection?.payments ?? [])
}

medusaIntegrationTestRunner({
  testSuite: ({ api, getContainer }) => {
    let store: StoreFixture
    let shop: ReturnType<typeof storefront>
    let admin: { headers: Record<string, string> }

    beforeEach(async () => {
      store = await createStoreFixture(getContainer(), { stock: 1 })
      shop = storefront(api, store)
      admin = await adminHeaders(getContainer())
    })

    /** The shopper pays the shift; the job's ticks run until one has tried to place the order and recorded it could not. */
    async function paidWithNoOrder(shiftId: string, rowFilter: Record<string, string>) {
      const container = getContainer()
      await env.control.deposit(shiftId)
      await env.control.setStatus(shiftId, "processing")
      // A tick may find the shift, recorded by the subscriber of its creation, still being written, and leave it to the next.
      return waitFor(
        "the paid shift to be recorded as paid with no order",
        async () => {
          await reconcile(container)
          return ledgerRow(container, rowFilter)
        },
        (found) => Boolean(found.paid_no_order_since)
      )
    }

    /** Deposit confirmed after the last item sold out: the order can't be placed. */
    async function paidWhileSoldOut(providerId = PROVIDERS.default) {
      const container = getContainer()
      const emitted = jest.spyOn(container.resolve(Modules.EVENT_BUS), "emit")
      const cart = await shop.createCart()
      const { session } = await shop.createPaymentSession(cart.id, providerId, BTC)
      const checkoutId = session.data.checkout_id as string | undefined
      // A hosted checkout's shift exists once the payer picks a coin on its page.
      const shiftId = checkoutId ? (await env.control.payCheckout(checkoutId, "BTC", "bitcoin")).id : (session.data.shift_id as string)
      // Sold out before the deposit is even seen: no read of it, early or late, can place the order.
      await setStock(container, store.inventoryItemId!, 0)
      const row = await paidWithNoOrder(shiftId, checkoutId ? { checkout_id: checkoutId } : { shift_id: shiftId })
      const named = (name: string) =>
        emitted.mock.calls
          .flatMap(([messages]) => (Array.isArray(messages) ? messages : [messages]))
          .filter((message: { name: string }) => message.name === name)
      return { cart, checkoutId, shiftId, row, named }
    }

    /**
     * The service's notification of a paid checkout, sent to Medusa's built-in payment webhook route (a replay,
     * or a webhook registered there), once Medusa has processed it.
     */
    async function notifyMedusaOfPaidCheckout(checkoutId: string, shiftId: string) {
      const container = getContainer()
      const engine = container.resolve(Modules.WORKFLOW_ENGINE)
      const payments = container.resolve(Modules.PAYMENT)
      const runs: Array<Promise<unknown>> = []
      const verdicts: Array<Promise<WebhookActionResult>> = []
      const run = engine.run.bind(engine)
      const verify = payments.getWebhookActionAndData.bind(payments)
      // Restored before it returns: a test may notify twice, and a spy on a spy would call itself.
      const spies = [
        jest.spyOn(engine, "run").mockImplementation((...args: Parameters<typeof engine.run>) => {
          const started = run(...args)
          if (args[0] === "process-payment-workflow") runs.push(started.catch(() => undefined))
          return started
        }),
        jest.spyOn(payments, "getWebhookActionAndData").mockImplementation((...args: Parameters<typeof payments.getWebhookActionAndData>) => {
          const verdict = verify(...args)
          verdicts.push(verdict)
          return verdict
        }),
      ]
      try {
        const notification = {
          meta: { hook: { id: "hook", accountId: env.sandbox.account.id } },
          payload: { checkoutId, shiftId, status: "success", txid: "0xfeed" },
        }
        const answered = await api.post(`/hooks/payment/${PROVIDERS.checkout.replace(/^pp_/, "")}`, notification)
        expect(answered.status).toBe(200)
        await waitFor("Medusa to verify the notification", () => verdicts.length, (count) => count >= 1)
        const verdict = await verdicts[0]
        // Medusa's payment-webhook subscriber processes only an authorized or captured payment naming its session.
        if (verdict.data?.session_id && (verdict.action === "authorized" || verdict.action === "captured")) {
          await waitFor("Medusa to process the notification", () => runs.length, (count) => count >= 1)
          await Promise.all(runs)
        }
        return verdict
      } finally {
        for (const spy of spies) spy.mockRestore()
      }
    }

    it("marks no other payment paid for a checkout someone else made to the store's wallet, whatever its redirect names", async () => {
      const container = getContainer()
      // A shopper's cart worth 49.99, to be paid by the store's other method (Medusa's system provider here).
      const cart = await shop.createCart()
      const { session: target } = await shop.createPaymentSession(cart.id, PROVIDERS.system, {})
      // A store's checkout shows where it settles: anyone may make one of their own to the same wallet, for 5,
      // whose redirect names the target session and the cart's amount.
      const { session: genuine } = await shop.createPaymentSession((await shop.createCart()).id, PROVIDERS.checkout, BTC)
      const wallet = (await (await fetch(`${env.sandbox.baseUrl}/v2/checkout/${genuine.data.checkout_id}`)).json()) as Record<string, string>
      const attacker = (await (await fetch(`${env.sandbox.baseUrl}/create-account`, { method: "POST" })).json()) as { id: string; secret: string }
      const redirect = `http://attacker.test/?crypto_swap_session=${target.id}&crypto_swap_amount=${target.amount}`
      const made = await fetch(`${env.sandbox.baseUrl}/v2/checkout`, {
        method: "POST",
        headers: { "content-type": "application/json", "x-service-secret": attacker.secret, "x-user-ip": "203.0.113.9" },
        body: JSON.stringify({
          settleCoin: wallet.settleCoin,
          settleNetwork: wallet.settleNetwork,
          settleAddress: wallet.settleAddress,
          settleAmount: "5",
          affiliateId: env.sandbox.account.id,
          successUrl: redirect,
          cancelUrl: redirect,
        }),
      })
      const answer = { status: made.status, body: await made.text() }
      expect(answer).toEqual({ status: 201, body: expect.stringContaining('"id"') })
      const forged = JSON.parse(answer.body) as { id: string }
      const { id: shiftId } = await env.control.payCheckout(forged.id, "BTC", "bitcoin")
      await env.control.deposit(shiftId)
      await env.control.walk(shiftId, ["processing", "settling", "settled"])

      const verdict = await notifyMedusaOfPaidCheckout(forged.id, shiftId)
      expect(verdict.action).toBe("not_supported")
      expect(await orderWithPayments(container, cart.id)).toBeUndefined()
      const [session] = (await container.resolve(ContainerRegistrationKeys.QUERY).graph({ entity: "payment_session", fields: ["status"], filters: { id: target.id } })).data
      expect(session.status).toBe("pending")
      expect(await paymentsOfCart(container, cart.id)).toEqual([])
    })

    it("records a paid shift whose order could not be placed, never captures it, and places the order when the admin retries", async () => {
      const container = getContainer()
      const { cart, shiftId, named } = await paidWhileSoldOut()
      const row = await ledgerRow(container, { shift_id: shiftId })
      expect(await orderWithPayments(container, cart.id)).toBeUndefined()
      expect(row.paid_no_order_since).toBeInstanceOf(Date)
      expect(named(PAID_NO_ORDER)).toHaveLength(1)
      expect(named(PAID_NO_ORDER)[0].data).toMatchObject({ id: row.id })

      const { data } = await api.get("/admin/crypto-swap/status", admin)
      expect(data.paid_no_order).toEqual([
        expect.objectContaining({
          id: row.id,
          cart_id: cart.id,
          status: "processing",
          deposit_coin: "BTC",
          deposit_amount: row.deposit_amount,
          last_error: expect.any(String),
        }),
      ])

      // The shift settles while the order still can't be placed: nothing is captured, nothing is lost.
      await env.control.walk(shiftId, ["settling", "settled"])
      await reconcile(container)
      expect(await orderWithPayments(container, cart.id)).toBeUndefined()
      expect((await paymentsOfCart(container, cart.id)).filter((payment: any) => payment.captured_at)).toEqual([])
      expect((await ledgerRow(container, { id: row.id })).captured_at).toBeNull()
      expect(named(PAID_NO_ORDER)).toHaveLength(1)

      // Stock is back; the admin retries placing the order at once, without waiting for the backoff.
      await setStock(container, store.inventoryItemId!, 1)
      const retried = await api.post(`/admin/crypto-swap/shifts/${row.id}/retry`, {}, admin)
      expect(retried.data.shift).toMatchObject({ paid_no_order_since: null, captured_at: expect.any(String) })
      const order = await orderWithPayments(container, cart.id)
      expect(order!.payments.flatMap((payment: any) => payment.captures)).toHaveLength(1)
      expect((await api.get("/admin/crypto-swap/status", admin)).data.paid_no_order).toEqual([])
    })

    it("places no order for a cart whose total rose after its payment started (taxes applied after the session), whoever completes it", async () => {
      const container = getContainer()
      const cart = await shop.createCart()
      await api.post(`/store/carts/${cart.id}`, { shipping_address: { country_code: "us", first_name: "Ada", address_1: "1 Main St", city: "Springfield", postal_code: "12345" } }, shop.headers)
      const { session } = await shop.createPaymentSession(cart.id, PROVIDERS.default, BTC)
      expect(String(session.amount)).toBe("49.99")
      // The store's tax applies from now; the storefront asks for the cart's taxes: Medusa's route adds them to
      // the cart's total and leaves the payment collection, and the shift, at 49.99.
      await createTaxRegionsWorkflow(container).run({ input: [{ country_code: "us", provider_id: "tp_system", default_tax_rate: { rate: 20, code: "SALES", name: "Sales tax" } }] })
      const taxed = await api.post(`/store/carts/${cart.id}/taxes`, {}, shop.headers)
      expect(new BigNumber(taxed.data.cart.total).gt("49.99")).toBe(true)
      // Told before paying, not "waiting for your deposit".
      const early = await failing(shop.complete(cart.id))
      expect(early.status).toBe(400)
      const taxedTotal = new BigNumber(taxed.data.cart.total).decimalPlaces(2, BigNumber.ROUND_UP).toFixed()
      expect(early.data.message).toContain(`changed to ${taxedTotal} USD after this crypto payment of 49.99 USD started`)

      const shiftId = session.data.shift_id as string
      const row = await paidWithNoOrder(shiftId, { shift_id: shiftId })
      expect(row.authorized_at).toBeNull()
      // The shopper's own completion is refused with the reason, and no order holds 49.99 against a larger total.
      const refused = await failing(shop.complete(cart.id))
      expect(refused.status).toBe(400)
      expect(refused.data.message).toMatch(/total/i)
      await env.control.walk(shiftId, ["settling", "settled"])
      await reconcile(container)
      expect(await orderWithPayments(container, cart.id)).toBeUndefined()
      expect((await paymentsOfCart(container, cart.id)).filter((payment: any) => payment.captured_at)).toEqual([])
      expect((await api.get("/admin/crypto-swap/status", admin)).data.paid_no_order).toEqual([expect.objectContaining({ id: row.id, last_error: expect.stringMatching(/total/i) })])
    })

    it("calls the merchant about an action that waited hours on another, and runs it without them once it can", async () => {
      const container = getContainer()
      const { cart, shiftId, named } = await paidWhileSoldOut()
      await env.control.walk(shiftId, ["settling", "settled"])
      await reconcile(container)
      const row = await ledgerRow(container, { shift_id: shiftId })
      const capture = async () => (await ledgerOf(container).listSwapShiftActions({ swap_shift_id: row.id, kind: "capture" }))[0]
      // Not tried while the order is not placed, and nothing said yet: the order may come with the next try.
      const waiting = await capture()
      expect(waiting).toMatchObject({ state: "pending", attempts: 0, blocked_since: expect.any(Date) })
      expect(waiting.last_error).toMatch(/waiting .*order/i)
      const attentionFor = () => named("crypto-swap.shift.attention").filter((message: any) => message.data.id === row.id && message.data.action === "capture")
      expect(attentionFor()).toEqual([])

      // Hours later it still waits (the order still can't be placed): it is on the merchant's list, told once.
      await ledgerOf(container).updateSwapShiftActions({ id: waiting.id, blocked_since: new Date(Date.now() - 7 * 60 * 60 * 1000) })
      await reconcile(container)
      await reconcile(container)
      expect(await capture()).toMatchObject({ state: "attention", attempts: 0 })
      expect(attentionFor()).toEqual([expect.objectContaining({ data: expect.objectContaining({ reason: "waiting", error: expect.stringMatching(/waiting .*order/i) }) })])
      const { data } = await api.get("/admin/crypto-swap/status", admin)
      expect(data.attention).toEqual(expect.arrayContaining([expect.objectContaining({ id: row.id, action: "capture", last_error: expect.stringMatching(/order/) })]))

      // The order is placed by the authorize's own retries, no admin asked: the capture follows in the same sync.
      await setStock(container, store.inventoryItemId!, 1)
      await waitFor(
        "the order placed and captured by the job alone",
        async () => {
          await reconcile(container)
          return ledgerRow(container, { id: row.id })
        },
        (found) => Boolean(found.captured_at)
      )
      expect(await capture()).toMatchObject({ state: "done", blocked_since: null, last_error: null })
      expect((await orderWithPayments(container, cart.id))!.payments.flatMap((payment: any) => payment.captures)).toHaveLength(1)
      const after = await api.get("/admin/crypto-swap/status", admin)
      expect(after.data.attention.filter((item: any) => item.id === row.id)).toEqual([])
    })

    it("takes an action listed for waiting off the merchant's list once the payment no longer calls for it", async () => {
      const container = getContainer()
      const { shiftId } = await paidWhileSoldOut()
      await env.control.walk(shiftId, ["settling", "settled"])
      await reconcile(container)
      const row = await ledgerRow(container, { shift_id: shiftId })
      const [capture] = await ledgerOf(container).listSwapShiftActions({ swap_shift_id: row.id, kind: "capture" })
      await ledgerOf(container).updateSwapShiftActions({ id: capture.id, blocked_since: new Date(Date.now() - 7 * 60 * 60 * 1000) })
      await reconcile(container)
      const listed = async () => (await api.get("/admin/crypto-swap/status", admin)).data.attention.filter((item: any) => item.id === row.id && item.action === "capture")
      expect(await listed()).toHaveLength(1)

      // The merchant gives the money back instead: nothing will be captured, so nothing waits for the capture.
      await api.post(`/admin/crypto-swap/shifts/${row.id}/refund`, {}, admin)
      await reconcile(container)
      expect(await listed()).toEqual([])
      expect((await ledgerOf(container).listSwapShiftActions({ swap_shift_id: row.id, kind: "capture" }))[0].state).not.toBe("attention")
    })

    it("never places the order of a hosted checkout refunded instead, whatever reaches Medusa's own payment webhook route", async () => {
      const container = getContainer()
      const { cart, checkoutId, shiftId, row } = await paidWhileSoldOut(PROVIDERS.checkout)
      await api.post(`/admin/crypto-swap/shifts/${row.id}/refund-instead`, {}, admin)
      await env.control.walk(shiftId, ["settling", "settled"])
      await setStock(container, store.inventoryItemId!, 1)
      await reconcile(container)
      expect(await ledgerRow(container, { id: row.id })).toMatchObject({ refund_owed: expect.any(String), captured_at: null })

      // The shopper replays the service's notification of the paid checkout to Medusa's built-in route.
      await notifyMedusaOfPaidCheckout(checkoutId!, shiftId)
      expect(await orderWithPayments(container, cart.id)).toBeUndefined()
      const payments = await paymentsOfCart(container, cart.id)
      expect(payments.filter((payment: any) => payment.captured_at)).toEqual([])
    })

    it("refunds a paid checkout Medusa captured and refunded on its own (its order could not be placed) once, never again from the admin", async () => {
      const container = getContainer()
      const { cart, checkoutId, shiftId, row } = await paidWhileSoldOut(PROVIDERS.checkout)
      await env.control.walk(shiftId, ["settling", "settled"])
      // Still sold out: Medusa captures the payment, fails to complete the cart, and refunds it itself.
      await notifyMedusaOfPaidCheckout(checkoutId!, shiftId)
      expect(await orderWithPayments(container, cart.id)).toBeUndefined()
      const [captured] = (await paymentsOfCart(container, cart.id)).filter((payment: any) => payment.captured_at)
      const medusaRefunds = await container.resolve(Modules.PAYMENT).listRefunds({ payment_id: captured.id })
      expect(medusaRefunds).toHaveLength(1)
      await reconcile(container)
      const refundsOf = () => ledgerOf(container).listSwapShifts({ kind: "refund", refund_of_shift_id: shiftId })
      expect((await refundsOf()).map((refund) => refund.refund_id)).toEqual([medusaRefunds[0].id])

      // The admin, seeing the paid shift with no order, refunds it again: refused, with nothing changed.
      const again = await failing(api.post(`/admin/crypto-swap/shifts/${row.id}/refund`, {}, admin))
      expect(again.status).toBe(400)
      expect(again.data.message).toMatch(/Medusa/)
      expect(await refundsOf()).toHaveLength(1)
      expect((await ledgerRow(container, { id: row.id })).flags?.held_refund ?? null).toBeNull()
      // Nor refunded instead: that would record the money owed back a second time.
      const instead = await failing(api.post(`/admin/crypto-swap/shifts/${row.id}/refund-instead`, {}, admin))
      expect({ status: instead.status, message: instead.data.message }).toEqual({ status: 400, message: expect.stringMatching(/Medusa captured/) })
      await reconcile(container)
      const after = await ledgerRow(container, { id: row.id })
      expect({ refund_instead: after.flags?.refund_instead ?? null, refund_owed: after.refund_owed, refunds: (await refundsOf()).length }).toEqual({
        refund_instead: null,
        refund_owed: null,
        refunds: 1,
      })

      // Stock is back: neither a replay of the notification nor a retry, the admin's or the job's, places an
      // order on money Medusa already refunded. The ledger stops trying, and the shopper may pay anew.
      await setStock(container, store.inventoryItemId!, 1)
      await notifyMedusaOfPaidCheckout(checkoutId!, shiftId)
      expect(await orderWithPayments(container, cart.id)).toBeUndefined()
      const retried = await api.post(`/admin/crypto-swap/shifts/${row.id}/retry`, {}, admin)
      await reconcile(container)
      expect({
        order: await orderWithPayments(container, cart.id),
        shift: { paid_no_order_since: retried.data.shift.paid_no_order_since, refunded_by_medusa: retried.data.shift.flags?.refunded_by_medusa },
        paidNoOrder: (await api.get("/admin/crypto-swap/status", admin)).data.paid_no_order,
        refunds: (await refundsOf()).length,
      }).toEqual({ order: undefined, shift: { paid_no_order_since: null, refunded_by_medusa: captured.id }, paidNoOrder: [], refunds: 1 })
    })

    it("gives back what a paid checkout settled above the payment Medusa refunded on its own, and leaves no action waiting", async () => {
      const container = getContainer()
      const { checkoutId, shiftId, row, named } = await paidWhileSoldOut(PROVIDERS.checkout)
      await env.control.walk(shiftId, ["settling", "settled"])
      // The service reports more settled than the amount due (the payer sent more than asked).
      const shift = env.sandbox.getShift(shiftId)
      const settled = new BigNumber(shift.settleAmount!).times("1.5").toFixed()
      await env.control.addFault({ method: "GET", path: `/v2/shifts/${shiftId}`, status: 200, body: JSON.stringify({ ...shift, settleAmount: settled }) })
      await notifyMedusaOfPaidCheckout(checkoutId!, shiftId)
      await reconcile(container)
      await ledgerOf(container).updateSwapShifts({ id: row.id, next_sync_at: new Date() })
      await reconcile(container)
      await env.control.clearFaults()
      // Paid once, above the amount due: given back, not told as a payment made again.
      expect(named("crypto-swap.shift.paid_again").filter((message) => (message.data as { id: string }).id === row.id)).toEqual([])

      const refunds = await ledgerOf(container).listSwapShifts({ kind: "refund", refund_of_shift_id: shiftId }, { order: { created_at: "ASC" } })
      const recorded = await ledgerRow(container, { id: row.id })
      expect(refunds.map((refund) => [refund.refund_id, refund.amount_due])).toEqual([
        [expect.stringMatching(/^ref/), recorded.amount_due],
        [`excess_${row.id}`, new BigNumber(settled).minus(recorded.amount_due!).toFixed()],
      ])
      // Nothing planned for it waits forever out of sight: no capture of money Medusa gave back.
      expect(await ledgerOf(container).listSwapShiftActions({ swap_shift_id: row.id, state: ["pending", "attention"] })).toEqual([])
    })

    it("gives back all of an overpaid deposit whose order could not be placed, not only the amount due", async () => {
      const container = getContainer()
      const cart = await shop.createCart()
      const { session } = await shop.createPaymentSession(cart.id, PROVIDERS.default, { deposit_coin: "ETH", deposit_network: "zksync", refund_address: ETH_REFUND })
      const shiftId = session.data.shift_id as string
      await setStock(container, store.inventoryItemId!, 0)
      // Half as much again as the page asked for, settled before any read.
      await env.control.deposit(shiftId, { amount: new BigNumber(session.data.deposit_estimate).times("1.5").toFixed(8) })
      await env.control.walk(shiftId, ["processing", "settling", "settled"])
      await reconcile(container)
      const row = await ledgerRow(container, { shift_id: shiftId })
      expect(row.paid_no_order_since).not.toBeNull()

      await api.post(`/admin/crypto-swap/shifts/${row.id}/refund`, {}, admin)
      await reconcile(container)
      const refunds = await ledgerOf(container).listSwapShifts({ kind: "refund", refund_of_shift_id: shiftId })
      expect(refunds.map((refund) => refund.amount_due)).toEqual([env.sandbox.getShift(shiftId).settleAmount])
    })

    it("records at the next tick the refund of a paid shift's money whose refund via shift stopped after marking it held, to the admin's address", async () => {
      const container = getContainer()
      const { shiftId, row } = await paidWhileSoldOut()
      await env.control.walk(shiftId, ["settling", "settled"])
      await reconcile(container)
      // The write of its refund fails after the money was marked held, as a process stopped there would leave it:
      // no longer paid with no order, nor owed yet.
      const ledger = ledgerOf(container)
      const record = ledger.recordNewSwapShift.bind(ledger)
      const lost = jest.spyOn(ledger, "recordNewSwapShift").mockImplementation(((data: { refund_id?: string }, ...rest: unknown[]) =>
        data?.refund_id === heldRefundId(row.id) ? Promise.reject(new Error(LOST_CONNECTION)) : (record as Function)(data, ...rest)) as never)
      try {
        expect((await failing(api.post(`/admin/crypto-swap/shifts/${row.id}/refund`, { address: BTC_REFUND }, admin))).status).toBeGreaterThanOrEqual(400)
      } finally {
        lost.mockRestore()
      }

      await reconcile(container)
      const refunds = await ledger.listSwapShifts({ kind: "refund", refund_of_shift_id: shiftId })
      expect(refunds.map(({ refund_id, amount_due, refund_address }) => ({ refund_id, amount_due, refund_address }))).toEqual([
        { refund_id: heldRefundId(row.id), amount_due: env.sandbox.getShift(shiftId).settleAmount, refund_address: BTC_REFUND },
      ])
      // Recorded once, by an action done with it: a later sync runs it no more.
      const [recorder] = await ledger.listSwapShiftActions({ swap_shift_id: row.id, kind: "refund_excess" })
      expect(recorder).toMatchObject({ state: "done", done_at: expect.any(Date) })
      await ledger.updateSwapShifts({ id: row.id, next_sync_at: new Date() })
      await reconcile(container)
      expect(await ledger.listSwapShiftActions({ swap_shift_id: row.id, kind: "refund_excess" })).toEqual([expect.objectContaining({ state: "done", done_at: recorder.done_at })])
      expect(await ledger.listSwapShifts({ kind: "refund", refund_of_shift_id: shiftId })).toHaveLength(1)
    })

    it("places no order on a payment a refund instead canceled before it stopped, when the shopper completes the cart", async () => {
      const container = getContainer()
      const { cart, row } = await paidWhileSoldOut()
      // Medusa authorized the session without placing the order (a completion that failed after it).
      const payments = container.resolve(Modules.PAYMENT)
      await payments.authorizePaymentSession(row.payment_session_id!, {})
      // The session's mark that the money goes back is lost, as a process stopped at that write would leave it.
      const update = payments.updatePaymentSession.bind(payments)
      const lost = jest.spyOn(payments, "updatePaymentSession").mockImplementation(((data: { data?: Record<string, unknown> }, ...rest: unknown[]) =>
        data?.data?.given_back === true ? Promise.reject(new Error(LOST_CONNECTION)) : (update as Function)(data, ...rest)) as never)
      try {
        expect((await failing(api.post(`/admin/crypto-swap/shifts/${row.id}/refund-instead`, {}, admin))).status).toBeGreaterThanOrEqual(400)
      } finally {
        lost.mockRestore()
      }

      // Nothing was given up: the shopper's completion, once stock is back, places the order on the live payment.
      await setStock(container, store.inventoryItemId!, 1)
      await shop.complete(cart.id)
      const order = await orderWithPayments(container, cart.id)
      expect(order?.payments.map((payment: any) => payment.canceled_at)).toEqual([null])
    })

    it("never completes the cart of a payment refunded instead, even one Medusa authorized before the refund", async () => {
      const container = getContainer()
      const { cart, row } = await paidWhileSoldOut()
      // Medusa authorized the session without placing the order (a completion that failed after it).
      await container.resolve(Modules.PAYMENT).authorizePaymentSession(row.payment_session_id!, {})
      await api.post(`/admin/crypto-swap/shifts/${row.id}/refund-instead`, {}, admin)
      expect((await paymentsOfCart(container, cart.id)).map((payment: any) => payment.canceled_at)).toEqual([expect.any(Date)])
      await setStock(container, store.inventoryItemId!, 1)

      // The shopper completes the cart; then a replayed "authorized" notification runs Medusa's own flow.
      const completed = await failing(shop.complete(cart.id))
      expect(completed.status).toBe(400)
      expect(completed.data.message).toMatch(/refund/i)
      const { errors } = await processPaymentWorkflow(container).run({
        input: { action: "authorized", data: { session_id: row.payment_session_id!, amount: 0 } },
        throwOnError: false,
      })
      expect(errors.map(({ error }) => error.message)).toEqual([completed.data.message])
      expect(await orderWithPayments(container, cart.id)).toBeUndefined()
    })

    it("lets the shopper start a new payment on the cart whose payment is refunded instead, and still owes the first one back", async () => {
      const container = getContainer()
      const { cart, shiftId, row } = await paidWhileSoldOut()
      await api.post(`/admin/crypto-swap/shifts/${row.id}/refund-instead`, {}, admin)

      // As the store tells them: "Please start a new payment", and it places the order once stock is back.
      const { session } = await shop.createPaymentSession(cart.id, PROVIDERS.default, { deposit_coin: "LTC", deposit_network: "litecoin" })
      expect(session.id).not.toBe(row.payment_session_id)
      await setStock(container, store.inventoryItemId!, 1)
      await env.control.deposit(session.data.shift_id)
      await env.control.setStatus(session.data.shift_id, "processing")
      await reconcile(container)
      const order = await orderWithPayments(container, cart.id)
      expect(order?.payments.map((payment: any) => payment.payment_session_id)).toEqual([session.id])

      // The first payment settles: owed back, and never taken for the new payment's order.
      await env.control.walk(shiftId, ["settling", "settled"])
      await reconcile(container)
      const owed = await ledgerRow(container, { id: row.id })
      expect(owed).toMatchObject({ status: "settled", refund_owed: owed.settle_amount, captured_at: null, order_id: null })
      expect(owed.flags?.paid_without_session ?? null).toBeNull()

      // Its refund waits for an address the shopper is asked for on that payment's page, which still answers.
      await api.post(`/admin/crypto-swap/shifts/${row.id}/refund`, {}, admin)
      const page = `/store/crypto-swap/payment-sessions/${row.payment_session_id}`
      const { data } = await api.get(`${page}?cart_id=${cart.id}`, shop.headers)
      expect(data.payment.refund.address_needed).toBe(true)
      const BTC_REFUND = "bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq"
      await api.post(`${page}/refund-address`, { cart_id: cart.id, address: BTC_REFUND }, shop.headers)
      const [refund] = await ledgerOf(container).listSwapShifts({ kind: "refund", refund_of_shift_id: shiftId })
      expect(refund).toMatchObject({ refund_address: BTC_REFUND })
    })

    it("lets the admin refund a paid shift instead of placing its order: the settled amount becomes owed and nothing retries", async () => {
      const container = getContainer()
      const { cart, shiftId } = await paidWhileSoldOut()
      const row = await ledgerRow(container, { shift_id: shiftId })

      const refused = await api.post(`/admin/crypto-swap/shifts/${row.id}/refund-instead`, { extra: 1 }, admin).catch((error: any) => error.response)
      expect(refused.status).toBe(400)

      const answered = await api.post(`/admin/crypto-swap/shifts/${row.id}/refund-instead`, {}, admin)
      expect(answered.data.shift).toMatchObject({ paid_no_order_since: null, refund_owed: null })
      await env.control.walk(shiftId, ["settling", "settled"])
      await setStock(container, store.inventoryItemId!, 1)
      await reconcile(container)

      const settled = await ledgerRow(container, { id: row.id })
      expect(settled).toMatchObject({ status: "settled", captured_at: null, authorized_at: null, refund_owed: settled.settle_amount })
      expect(await orderWithPayments(container, cart.id)).toBeUndefined()
      const actions = await ledgerOf(container).listSwapShiftActions({ swap_shift_id: row.id })
      expect(actions.filter((action) => action.state !== "done")).toEqual([])
      const { data } = await api.get("/admin/crypto-swap/status", admin)
      expect(data.paid_no_order).toEqual([])
      expect(data.refund_owed).toEqual([expect.objectContaining({ id: row.id, cart_id: cart.id, refund_owed: settled.settle_amount })])

      // Only a paid shift without an order can be refunded this way.
      const again = await api.post(`/admin/crypto-swap/shifts/${row.id}/refund-instead`, {}, admin).catch((error: any) => error.response)
      expect(again.status).toBe(400)
      expect(again.data.message).toMatch(/order/)
    })
  },
})
