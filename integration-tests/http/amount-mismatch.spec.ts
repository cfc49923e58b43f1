import { medusaIntegrationTestRunner } from "@medusajs/test-utils"
import BigNumber from "bignumber.js"
import { useSandbox } from "../helpers/sandbox"
import { createStoreFixture, PROVIDERS, type StoreFixture } from "../helpers/store-fixtures"
import { storefront } from "../helpers/storefront"
import { ledgerRow, orderWithPayments, reconcile } from "../helpers/ledger"

jest.setTimeout(180_000)

const env = useSandbox()
// Variable rate only: the shopper may send any amount in the accepted range.
const ZK_ETH = { deposit_coin: "ETH", deposit_network: "zksync" }

medusaIntegrationTestRunner({
  testSuite: ({ api, getContainer }) => {
    let store: StoreFixture
    let shop: ReturnType<typeof storefront>

    beforeEach(async () => {
      store = await createStoreFixture(getContainer(), { stock: 10 })
      shop = storefront(api, store)
    })

    async function variablePayment() {
      const cart = await shop.createCart()
      const { session } = await shop.createPaymentSession(cart.id, PROVIDERS.default, ZK_ETH)
      expect(session.data.shift_type).toBe("variable")
      return { cart, session, shiftId: session.data.shift_id as string }
    }

    it("places no order for a variable-rate deposit that will settle below the amount due, from the moment the service says so", async () => {
      const container = getContainer()
      const { cart, session, shiftId } = await variablePayment()
      // The smallest deposit the service accepts: worth a few dollars of a 49.99 order.
      await env.control.deposit(shiftId, { amount: session.data.deposit_min })
      await env.control.setStatus(shiftId, "processing")
      const expected = env.sandbox.getShift(shiftId).settleAmount
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
      expect(await ledgerRow(container, { shift_id: shiftId })).toMatchObject({ status: "settled", authorized_at: null, captured_at: null })
    })

    it("places the order as soon as a variable-rate deposit is known to cover the amount due", async () => {
      const container = getContainer()
      const { cart, session, shiftId } = await variablePayment()
      // A fifth more than the order needs at the pair's rate (the service's fees included).
      const { baseUrl, account } = env.sandbox
      const pair = await fetch(`${baseUrl}/v2/pair/eth-zksync/usdc-ethereum?affiliateId=${account.id}`, { headers: { "x-service-secret": account.secret } })
      const { rate } = (await pair.json()) as { rate: string }
      const covering = new BigNumber(session.data.amount).div(rate).times(1.2).decimalPlaces(8, BigNumber.ROUND_UP)
      await env.control.deposit(shiftId, { amount: covering.toFixed() })
      await env.control.setStatus(shiftId, "processing")
      const expected = env.sandbox.getShift(shiftId).settleAmount
      expect(new BigNumber(expected).gte(session.data.amount)).toBe(true)
      await reconcile(container)
      const order = await orderWithPayments(container, cart.id)
      expect(order?.payments).toHaveLength(1)
    })
  },
})
