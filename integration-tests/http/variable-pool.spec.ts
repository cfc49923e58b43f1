import { medusaIntegrationTestRunner } from "@medusajs/test-utils"
import { useSandbox } from "../helpers/sandbox"
import { createStoreFixture, PROVIDERS, type StoreFixture } from "../helpers/store-fixtures"
import { storefront } from "../helpers/storefront"
import { shopperAt, type Answer } from "../helpers/shopper-at"
import { adminHeaders } from "../helpers/admin"
import { ledgerOf, ledgerRow, paidOrder, reconcile } from "../helpers/ledger"
import { CoinCatalogue } from "../../src/lib/swap-service/catalogue"

// The account's open variable-rate shifts as a managed pool: the plugin's defaults (5 open, 1 kept for
// refunds, idle after 60 minutes), against the sandbox, which refuses a sixth with 403 "too many open orders".

jest.setTimeout(180_000)

process.env.CRYPTO_SWAP_TEST_POOL = "{}"
const env = useSandbox()
// Variable rate only: each payment in it holds one of the account's open variable orders.
const ZK_ETH = { deposit_coin: "ETH", deposit_network: "zksync" }
const BTC = { deposit_coin: "BTC", deposit_network: "bitcoin" }
const ETH_REFUND = "0x52908400098527886E0F7030069857D2E4169EE7"
const ALGORAND_REFUND = "A".repeat(58)

medusaIntegrationTestRunner({
  testSuite: ({ api, getContainer }) => {
    let store: StoreFixture
    let shop: ReturnType<typeof storefront>
    let admin: { headers: Record<string, string> }

    afterAll(() => {
      delete process.env.CRYPTO_SWAP_TEST_POOL
    })

    beforeEach(async () => {
      store = await createStoreFixture(getContainer(), { stock: 20 })
      shop = storefront(api, store)
      admin = await adminHeaders(getContainer())
    })

    /** A variable-rate payment of a shopper at `ip` (one shopper holds one: variablePool.perShopper). */
    const variableSession = async (ip: string) => {
      const shopper = shopperAt(api, store, ip, (answer) => answer)
      const { cartId, collectionId } = await shopper.cart()
      const answer = await shopper.paySession(collectionId, { ...ZK_ETH, refund_address: ETH_REFUND })
      expect(answer.status).toBe(200)
      const session = answer.data.payment_collection.payment_sessions.find((candidate: { provider_id: string }) => candidate.provider_id === PROVIDERS.default)
      return { cart: { id: cartId }, session }
    }

    it("keeps a share of the open variable shifts for refunds, and offers the shopper another coin", async () => {
      const container = getContainer()
      // Paid at a fixed rate in a coin the service pays back only at a variable rate: its refund needs a variable shift.
      const { payments } = await paidOrder(container, shop, env.control, PROVIDERS.default, {
        deposit_coin: "USDC",
        deposit_network: "algorand",
        refund_address: ALGORAND_REFUND,
      })

      // Payments may hold 4 of the account's 5 open variable shifts (one shopper each): then the shopper is asked
      // to pick another coin.
      let refused: Answer | undefined
      for (let opened = 0; opened < 6 && !refused; opened++) {
        const shopper = shopperAt(api, store, `192.0.2.${opened + 1}`, (answer) => answer)
        const { collectionId } = await shopper.cart()
        await env.control.clearRequests()
        const answer = await shopper.paySession(collectionId, ZK_ETH)
        if (answer.status !== 200) refused = answer
      }
      expect(refused!.status).toBe(400)
      expect(refused!.data.message).toMatch(/Too many payments in coins paid at a variable rate are open right now: please pay with another coin/)
      expect(await env.control.requestsTo("POST", "/v2/shifts/variable")).toEqual([])
      const [, open] = await ledgerOf(container).listAndCountSwapShifts({ type: "variable", terminal: false })
      expect(open).toBe(4)
      // A coin paid at a fixed rate is not held back.
      const btc = await shop.createPaymentSession((await shop.createCart()).id, PROVIDERS.default, BTC)
      expect(btc.session.data).toMatchObject({ shift_type: "fixed", status: "waiting" })

      // The refund takes the share kept for it: the service makes its variable shift.
      await api.post(`/admin/payments/${payments[0].id}/refund`, { amount: 20 }, admin)
      // Recorded by one tick, its shift made by the next, as the job does.
      let refund: Awaited<ReturnType<ReturnType<typeof ledgerOf>["listSwapShifts"]>>[number] | undefined
      for (let tick = 0; tick < 3 && refund?.status !== "waiting"; tick++) {
        await reconcile(container)
        ;[refund] = await ledgerOf(container).listSwapShifts({ kind: "refund", payment_id: payments[0].id })
      }
      expect(refund).toMatchObject({ type: "variable", status: "waiting", refund_address: ALGORAND_REFUND })
    })
    it("cancels a waiting variable shift whose page nobody looked at for idleMinutes, once the service allows", async () => {
      const container = getContainer()
      // The shifts earlier tests left open at the service run out (variable shifts live 7 days).
      await env.control.advanceClock(7 * 24 * 60 * 60 + 60)
      const left = await variableSession("192.0.2.21")
      const watched = await variableSession("192.0.2.22")
      const page = (s: { cart: { id: string }; session: { id: string } }) =>
        api.get(`/store/crypto-swap/payment-sessions/${s.session.id}?cart_id=${s.cart.id}`, shop.headers)
      await page(left)
      // A day and more passes (idleMinutes): the service's clock, and the ledger's record of the last look at the page.
      await env.control.advanceClock(25 * 60 * 60)
      const leftRow = await ledgerRow(container, { shift_id: left.session.data.shift_id })
      await ledgerOf(container).updateSwapShifts({ id: leftRow.id, last_viewed_at: new Date(Date.now() - 25 * 60 * 60_000), next_sync_at: new Date() })
      await page(watched)

      await reconcile(container)
      await reconcile(container)
      expect(env.sandbox.getShift(left.session.data.shift_id).status).toBe("expired")
      expect(await ledgerRow(container, { id: leftRow.id })).toMatchObject({ status: "expired", terminal: true })
      // The shopper who comes back is told to start again; the one still watching keeps paying.
      expect((await page(left)).data.payment.stage).toBe("expired")
      expect(env.sandbox.getShift(watched.session.data.shift_id).status).toBe("waiting")
    })

    it("lets one shopper hold one unpaid variable-rate payment outside the cart they pay, however many carts they open", async () => {
      const one = shopperAt(api, store, "198.51.100.7", (answer) => answer)
      const first = await one.cart()
      expect((await one.paySession(first.collectionId, ZK_ETH)).status).toBe(200)
      // The same cart may start its payment again (another refund address makes a new shift): not another payment.
      expect((await one.paySession(first.collectionId, { ...ZK_ETH, refund_address: ETH_REFUND })).status).toBe(200)

      // Another cart of the same shopper while that payment waits unpaid: refused with the reason, the service asked nothing.
      const second = await one.cart()
      await env.control.clearRequests()
      const refused = await one.paySession(second.collectionId, ZK_ETH)
      expect(refused.status).toBe(400)
      expect(refused.data.message).toMatch(/You already have a payment waiting in a coin paid at a variable rate/)
      expect(await env.control.requestsTo("POST", "/v2/shifts/variable")).toEqual([])
      // A coin paid at a fixed rate is not held back, nor is another shopper.
      expect((await one.paySession(second.collectionId, BTC)).status).toBe(200)
      const other = shopperAt(api, store, "198.51.100.8", (answer) => answer)
      expect((await other.paySession((await other.cart()).collectionId, ZK_ETH)).status).toBe(200)
    })

    it("holds a requote to the same room as a new payment when the coin is now paid at a variable rate", async () => {
      const one = shopperAt(api, store, "198.51.100.17", (answer) => answer)
      expect((await one.paySession((await one.cart()).collectionId, ZK_ETH)).status).toBe(200)
      const second = await one.cart()
      const fixed = await one.paySession(second.collectionId, BTC)
      const session = fixed.data.payment_collection.payment_sessions[0]
      expect(session.data.shift_type).toBe("fixed")
      // Its quote ran out; meanwhile the service takes bitcoin deposits at a variable rate only.
      await env.control.advanceClock(16 * 60)
      const listed = CoinCatalogue.prototype.get
      jest.spyOn(CoinCatalogue.prototype, "get").mockImplementation(async function (this: CoinCatalogue) {
        return (await listed.call(this)).map((coin) => (coin.coin === "BTC" ? { ...coin, depositVariableOnly: ["bitcoin"] } : coin))
      })

      await env.control.clearRequests()
      const requote = await one.post(`/store/crypto-swap/payment-sessions/${session.id}/requote`, { cart_id: second.cartId })
      expect({ status: requote.status, message: requote.data.message }).toEqual({
        status: 400,
        message: expect.stringMatching(/You already have a payment waiting in a coin paid at a variable rate/),
      })
      expect(await env.control.requestsTo("POST", "/v2/shifts/variable")).toEqual([])
    })

    it("counts an IPv6 shopper by their /64, and never a payment the shopper moved on from", async () => {
      // The shifts earlier tests left open at the service run out (variable shifts live 7 days).
      await env.control.advanceClock(7 * 24 * 60 * 60 + 60)
      // Another address of the same /64 is the same shopper.
      const home = shopperAt(api, store, "2001:db8:0:1::1", (answer) => answer)
      expect((await home.paySession((await home.cart()).collectionId, ZK_ETH)).status).toBe(200)
      const rotated = shopperAt(api, store, "2001:db8:0:1::2", (answer) => answer)
      expect((await rotated.paySession((await rotated.cart()).collectionId, ZK_ETH)).status).toBe(400)

      // A shopper who switched that cart to a fixed-rate coin (its variable shift still waits, to be canceled) pays
      // another cart in a variable-rate coin.
      const switcher = shopperAt(api, store, "198.51.100.9", (answer) => answer)
      const first = await switcher.cart()
      expect((await switcher.paySession(first.collectionId, ZK_ETH)).status).toBe(200)
      expect((await switcher.paySession(first.collectionId, BTC)).status).toBe(200)
      expect((await switcher.paySession((await switcher.cart()).collectionId, ZK_ETH)).status).toBe(200)
    })
  },
})
