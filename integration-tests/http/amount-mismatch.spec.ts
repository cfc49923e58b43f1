import { medusaIntegrationTestRunner } from "@medusajs/test-utils"
import BigNumber from "bignumber.js"
import { useSandbox } from "../helpers/sandbox"
import { createStoreFixture, PROVIDERS, type StoreFixture } from "../helpers/store-fixtures"
import { failing, storefront } from "../helpers/storefront"
import { adminHeaders } from "../helpers/admin"
import { ledgerOf, ledgerRow, orderWithPayments, reconcile } from "../helpers/ledger"

jest.setTimeout(180_000)

const env = useSandbox()
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

    async function variablePayment(providerId = PROVIDERS.default) {
      const cart = await shop.createCart()
      const { session } = await shop.createPaymentSession(cart.id, providerId, { ...ZK_ETH, refund_address: ETH_REFUND })
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
  },
})
