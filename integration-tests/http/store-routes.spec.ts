import BigNumber from "bignumber.js"
import { medusaIntegrationTestRunner } from "@medusajs/test-utils"
import { ContainerRegistrationKeys } from "@medusajs/framework/utils"
import type { MedusaContainer } from "@medusajs/framework/types"
import { useSandbox } from "../helpers/sandbox"
import { createStoreFixture, PROVIDERS, type StoreFixture } from "../helpers/store-fixtures"
import { failing, storefront } from "../helpers/storefront"
import { ledgerOf, reconcile } from "../helpers/ledger"
import { waitFor } from "../helpers/wait-for"

jest.setTimeout(120_000)

const env = useSandbox()
const BTC = { deposit_coin: "BTC", deposit_network: "bitcoin" }
const XRP = { deposit_coin: "XRP", deposit_network: "ripple" }
const BTC_REFUND = "bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq"
const ROUTES = "/store/crypto-swap"

type Answer = { status: number; data: any }

async function sandboxShift(shiftId: string) {
  return (await fetch(`${env.sandbox.baseUrl}/v2/shifts/${shiftId}`)).json()
}

const upstream = (method: string, path: string | RegExp) => env.control.requestsTo(method, path)

async function orderOfCart(container: MedusaContainer, cartId: string): Promise<string | undefined> {
  const query = container.resolve(ContainerRegistrationKeys.QUERY)
  const { data } = await query.graph({ entity: "order_cart", fields: ["order_id"], filters: { cart_id: cartId } })
  return data[0]?.order_id
}

async function collectionSessions(container: MedusaContainer, collectionId: string) {
  const query = container.resolve(ContainerRegistrationKeys.QUERY)
  const {
    data: [collection],
  } = await query.graph({ entity: "payment_collection", fields: ["payment_sessions.*"], filters: { id: collectionId } })
  return collection.payment_sessions as Array<{ id: string; data: Record<string, any> }>
}

/** Every column of the shift's ledger row (or null), to prove a refused request changed nothing. */
async function ledgerSnapshot(container: MedusaContainer, shiftId: string) {
  const [row] = await ledgerOf(container).listSwapShifts({ shift_id: shiftId }, { relations: ["events"] })
  return row ? JSON.parse(JSON.stringify(row)) : null
}

medusaIntegrationTestRunner({
  testSuite: ({ api, getContainer }) => {
    let store: StoreFixture
    let shop: ReturnType<typeof storefront>
    /** Every body the store routes answered in the current test, to check none carries the account secret. */
    const bodies: string[] = []

    const record = (answer: Answer) => {
      bodies.push(JSON.stringify(answer.data ?? null))
      return answer
    }
    const get = async (url: string): Promise<Answer> => record(await api.get(url, shop.headers))
    const post = async (url: string, body: unknown): Promise<Answer> => record(await api.post(url, body, shop.headers))
    /** A request that must be refused: never a 5xx, always a reason. */
    const refused = async (request: Promise<Answer>, status = 400): Promise<Answer> => {
      const answer = record(await failing(request))
      expect(answer.status).toBe(status)
      expect(typeof answer.data.message).toBe("string")
      expect(answer.data.message.length).toBeGreaterThan(0)
      return answer
    }
    const refusedGet = (url: string, status = 400) => refused(api.get(url, shop.headers), status)
    const refusedPost = (url: string, body: unknown, status = 400) => refused(api.post(url, body, shop.headers), status)

    async function paySession(data: Record<string, unknown> = BTC, providerId = PROVIDERS.default) {
      const cart = await shop.createCart()
      const { session, collection } = await shop.createPaymentSession(cart.id, providerId, data)
      record({ status: 200, data: session })
      return { cart, session, collection, shiftId: session.data.shift_id as string }
    }

    const view = (sessionId: string, cartId: string) => get(`${ROUTES}/payment-sessions/${sessionId}?cart_id=${cartId}`)

    beforeEach(async () => {
      // Fresh sandbox state, clock and settings for every test, as the database is fresh too.
      await env.control.reset()
      store = await createStoreFixture(getContainer())
      shop = storefront(api, store)
      bodies.length = 0
    })

    afterEach(() => {
      expect(bodies.length).toBeGreaterThan(0)
      for (const body of bodies) expect(body).not.toContain(env.sandbox.account.secret)
    })

    describe("GET /store/crypto-swap/coins", () => {
      // First in the file: the routes' catalogue of this provider is still cold.
      it("lists the region's deposit options, reading the catalogue once", async () => {
        const cart = await shop.createCart()
        await env.control.clearRequests()
        const first = await get(`${ROUTES}/coins?cart_id=${cart.id}&provider_id=${PROVIDERS.beforePayment}`)
        expect(await upstream("GET", "/v2/coins")).toHaveLength(1)
        await env.control.clearRequests()
        const second = await get(`${ROUTES}/coins?cart_id=${cart.id}&provider_id=${PROVIDERS.beforePayment}`)
        expect(await upstream("GET", "/v2/coins")).toHaveLength(0)
        expect(second.data).toEqual(first.data)

        expect(first.status).toBe(200)
        expect(first.data.provider_id).toBe(PROVIDERS.beforePayment)
        expect(first.data.settle).toEqual({ coin: "USDC", network: "ethereum" })
        const coins = new Map<string, any>(first.data.coins.map((coin: any) => [coin.coin, coin]))
        const network = (coin: string, name: string) => coins.get(coin)?.networks.find((n: any) => n.network === name)

        expect(network("BTC", "bitcoin")).toMatchObject({ memo: false, fixed_rate: true, variable_rate: true, contract_address: null })
        // The sandbox's offline network is left out, the coin's other networks stay.
        expect(network("USDT", "avax")).toBeUndefined()
        expect(network("USDT", "tron")).toBeDefined()
        // The merchant's own settle pair is no deposit option; USDC elsewhere is.
        expect(network("USDC", "ethereum")).toBeUndefined()
        expect(network("USDC", "solana")).toBeDefined()
        // Memo networks say so.
        expect(network("XRP", "ripple")).toMatchObject({ memo: true })
        expect(network("XLM", "stellar")).toMatchObject({ memo: true })
        // Rate kinds follow the catalogue's flags.
        expect(network("ETH", "zksync")).toMatchObject({ fixed_rate: false, variable_rate: true })
        expect(network("USDT", "ton")).toMatchObject({ fixed_rate: true, variable_rate: false })
        expect(network("XMR", "monero")).toMatchObject({ fixed_rate: true, variable_rate: false })
        expect(network("USDT", "tron")).toMatchObject({ decimals: 6, contract_address: expect.any(String) })
      })

      it("refuses hostile queries with a reason and never a server error", async () => {
        const cart = await shop.createCart()
        const url = `${ROUTES}/coins`
        expect((await refusedGet(`${url}`)).data.message).toMatch(/cart_id/)
        expect((await refusedGet(`${url}?cart_id=not-a-cart`)).data.message).toMatch(/cart_id/)
        expect((await refusedGet(`${url}?cart_id=${cart.id}&extra=1`)).data.message).toMatch(/unknown field.*extra/)
        expect((await refusedGet(`${url}?cart_id=${cart.id}&cart_id=${cart.id}`)).data.message).toMatch(/cart_id/)
        expect((await refusedGet(`${url}?cart_id[]=${cart.id}`)).data.message).toMatch(/cart_id/)
        expect((await refusedGet(`${url}?cart_id[a]=${cart.id}`)).data.message).toMatch(/cart_id/)
        expect((await refusedGet(`${url}?cart_id=cart_${"A".repeat(4000)}`)).data.message).toMatch(/cart_id/)
        expect((await refusedGet(`${url}?cart_id=${cart.id}%00`)).data.message).toMatch(/cart_id/)
        expect((await refusedGet(`${url}?cart_id=${cart.id}&provider_id=pp_system_default`)).data.message).toMatch(/provider_id/)
        expect((await refusedGet(`${url}?cart_id=${cart.id}&provider_id=pp_crypto-swap_nope`)).data.message).toMatch(
          /not offered/
        )
        const unknown = await refusedGet(`${url}?cart_id=cart_01NOSUCHCART`, 404)
        expect(unknown.data.message).toMatch(/not found/i)
      })
    })

    describe("GET /store/crypto-swap/estimate", () => {
      it("estimates a BTC payment from the pair's rate and limits, commission applied", async () => {
        const cart = await shop.createCart()
        await env.control.clearRequests()
        const { status, data } = await get(`${ROUTES}/estimate?cart_id=${cart.id}&coin=BTC&network=bitcoin`)
        expect(status).toBe(200)
        const estimate = data.estimate
        expect(estimate).toMatchObject({
          deposit_coin: "BTC",
          deposit_network: "bitcoin",
          settle_coin: "USDC",
          settle_network: "ethereum",
          amount_due: "49.99",
          currency_code: "usd",
          commission_rate_percent: null,
        })
        for (const field of ["rate", "min", "max", "deposit_amount"]) expect(estimate[field]).toMatch(/^\d+(\.\d+)?$/)
        expect(Number(estimate.min)).toBeLessThan(Number(estimate.max))
        // Enough BTC to settle the amount due once the service's fees are taken (the rate it gives for that
        // very amount), with the estimate's margin for the rate moving, in at most 8 decimals, and not much more.
        expect(estimate).toMatchObject({ margin_percent: "1" })
        expect(estimate.deposit_amount).toMatch(/^\d+(\.\d{1,8})?$/)
        const { baseUrl, account } = env.sandbox
        const atAmount = await fetch(`${baseUrl}/v2/pair/btc-bitcoin/usdc-ethereum?affiliateId=${account.id}&amount=${estimate.deposit_amount}`, {
          headers: { "x-service-secret": account.secret },
        }).then((response) => response.json() as Promise<{ rate: string }>)
        const settles = new BigNumber(estimate.deposit_amount).times(atAmount.rate)
        expect(settles.gte(new BigNumber("49.99").times("1.01"))).toBe(true)
        expect(settles.lt(new BigNumber("49.99").times("1.012"))).toBe(true)
        // No commission option set: the pair names none, so it is priced with the commission the service
        // applies to the account, as quotes and shifts (which take none) are.
        const [pair] = await upstream("GET", "/v2/pair/btc-bitcoin/usdc-ethereum")
        expect(pair.query).not.toHaveProperty("commissionRate")

        // Ticker and network in any case: the answer names them as the catalogue does.
        const loose = await get(`${ROUTES}/estimate?cart_id=${cart.id}&coin=btc&network=BITCOIN`)
        expect(loose.data.estimate).toMatchObject({ deposit_coin: "BTC", deposit_network: "bitcoin", rate: estimate.rate })
      })

      it("refuses an unknown coin and hostile queries with a reason", async () => {
        const cart = await shop.createCart()
        const url = `${ROUTES}/estimate?cart_id=${cart.id}`
        expect((await refusedGet(`${url}&coin=NOPE&network=bitcoin`)).data.message).toMatch(/NOPE on bitcoin is not a coin/)
        expect((await refusedGet(`${url}&coin=BTC&network=ethereum`)).data.message).toMatch(/not a coin and network/)
        expect((await refusedGet(`${url}&coin=BTC`)).data.message).toMatch(/network/)
        expect((await refusedGet(`${url}&coin=BTC&network=bitcoin&amount=1`)).data.message).toMatch(/unknown field.*amount/)
        expect((await refusedGet(`${url}&coin[]=BTC&network=bitcoin`)).data.message).toMatch(/coin/)
        expect((await refusedGet(`${url}&coin=BTC&coin=ETH&network=bitcoin`)).data.message).toMatch(/coin/)
        expect((await refusedGet(`${url}&coin=${"B".repeat(5000)}&network=bitcoin`)).data.message).toMatch(/coin/)
        expect((await refusedGet(`${url}&coin=..%2F..%2Fcoins&network=bitcoin`)).data.message).toMatch(/coin/)
        expect((await refusedGet(`${url}&coin=BTC&network=bit%20coin`)).data.message).toMatch(/network/)
        expect((await refusedGet(`${url}&coin=USDC&network=ethereum`)).data.message).toMatch(/what the store receives/)
        expect((await refusedGet(`${url}&coin=USDT&network=avax`)).data.message).toMatch(/USDT on avax is temporarily unavailable/)
        expect((await refusedGet(`${ROUTES}/estimate?cart_id=bad&coin=BTC&network=bitcoin`)).data.message).toMatch(/cart_id/)
      })
    })

    describe("GET /store/crypto-swap/permissions", () => {
      it("says whether the shopper's IP may create shifts", async () => {
        await env.control.clearRequests()
        const allowed = await get(`${ROUTES}/permissions`)
        expect(allowed.status).toBe(200)
        expect(allowed.data).toEqual({ permissions: { create_shift: true } })
        const [asked] = await upstream("GET", "/v2/permissions")
        expect(asked.userIp).toMatch(/^(127\.0\.0\.1|::1)$/)

        await env.control.configure({ blockedIps: ["127.0.0.1", "::1", "::ffff:127.0.0.1"] })
        try {
          const blocked = await get(`${ROUTES}/permissions`)
          expect(blocked.status).toBe(200)
          expect(blocked.data).toEqual({ permissions: { create_shift: false } })
        } finally {
          await env.control.configure({ blockedIps: [] })
        }
        expect((await get(`${ROUTES}/permissions`)).data.permissions.create_shift).toBe(true)
      })

      it("refuses query fields it does not know", async () => {
        expect((await refusedGet(`${ROUTES}/permissions?ip=1.2.3.4`)).data.message).toMatch(/unknown field.*ip/)
        expect((await refusedGet(`${ROUTES}/permissions?x[]=1&x[]=2`)).data.message).toMatch(/unknown field/)
        expect((await refusedGet(`${ROUTES}/permissions?${"a".repeat(3000)}=1`)).data.message).toMatch(/unknown field/)
      })
    })

    describe("GET /store/crypto-swap/payment-sessions/:id", () => {
      it("shows how to pay while waiting: address, amount, deadline, payment URI and QR code", async () => {
        const { cart, session, shiftId } = await paySession()
        const { status, data } = await view(session.id, cart.id)
        expect(status).toBe(200)
        expect(data.payment_session).toMatchObject({ id: session.id, amount: "49.99", currency_code: "usd", pay_url: null })
        const payment = data.payment
        expect(payment).toMatchObject({
          status: "waiting",
          stage: "awaiting_deposit",
          headline: "Waiting for your payment",
          issue: null,
          deposit: {
            coin: "BTC",
            network: "bitcoin",
            address: session.data.deposit_address,
            amount: session.data.deposit_amount,
            memo: null,
            memo_required: false,
            memo_warning: null,
          },
          settle: { coin: "USDC", network: "ethereum", amount: "49.99" },
          transactions: { deposit: null, settle: null },
          refund: { address_needed: false, address: null },
        })
        expect(payment.next_step).toContain(`Send exactly ${session.data.deposit_amount} BTC on bitcoin`)
        expect(new Date(payment.expires_at).toISOString()).toBe(new Date(session.data.expires_at).toISOString())
        expect(payment.seconds_left).toBeGreaterThan(0)
        expect(payment.seconds_left).toBeLessThanOrEqual(15 * 60)
        expect(payment.payment_uri).toBe(`bitcoin:${session.data.deposit_address}?amount=${session.data.deposit_amount}`)
        expect(payment.wallet_uri).toBe(payment.payment_uri)
        expect(payment.qr_svg.startsWith("<svg")).toBe(true)
        expect(payment.qr_alt).toBe(`QR code to pay ${session.data.deposit_amount} BTC on bitcoin to the address ${session.data.deposit_address}.`)
        // The view never hands out the shift of another cart: this one names its own.
        expect(JSON.stringify(data)).toContain(session.data.deposit_address)
        expect((await sandboxShift(shiftId)).status).toBe("waiting")
      })

      it("warns that a memo network's deposit needs the memo, and writes each network's wallet URI", async () => {
        const { cart, session } = await paySession(XRP)
        expect(session.data.deposit_memo).toEqual(expect.any(String))
        const { data } = await view(session.id, cart.id)
        expect(data.payment.deposit).toMatchObject({
          coin: "XRP",
          network: "ripple",
          address: session.data.deposit_address,
          memo: session.data.deposit_memo,
          memo_required: true,
          memo_warning: expect.stringMatching(/memo/i),
        })
        expect(data.payment.next_step).toMatch(/with the memo/)
        // No wallet link standard carries the memo: the QR code holds the address alone.
        expect(data.payment.payment_uri).toBe(session.data.deposit_address)
        expect(data.payment.wallet_uri).toBeNull()
        expect(data.payment.qr_svg.startsWith("<svg")).toBe(true)

        // Cash addresses carry their scheme: the URI must not repeat it.
        const bch = await paySession({ deposit_coin: "BCH", deposit_network: "bitcoincash" })
        expect(bch.session.data.deposit_address).toMatch(/^bitcoincash:q/)
        const bchView = (await view(bch.session.id, bch.cart.id)).data.payment
        expect(bchView.payment_uri).toBe(`${bch.session.data.deposit_address}?amount=${bch.session.data.deposit_amount}`)
        expect(bchView.deposit.memo_required).toBe(false)

        // A variable-rate deposit: a range to send, and a link naming the chain but no amount.
        const zk = await paySession({ deposit_coin: "ETH", deposit_network: "zksync" })
        const zkView = (await view(zk.session.id, zk.cart.id)).data.payment
        expect(zkView.deposit).toMatchObject({ amount: null, min: zk.session.data.deposit_min, max: zk.session.data.deposit_max })
        expect(zkView.next_step).toContain(`Send about ${zk.session.data.deposit_estimate} ETH (between ${zk.session.data.deposit_min} and ${zk.session.data.deposit_max}) on zksync`)
        expect(zkView.payment_uri).toBe(`ethereum:${zk.session.data.deposit_address}@324`)
        expect(zkView.wallet_uri).toBe(zkView.payment_uri)

        // A token: its contract from the coins listing, the amount in its base units (USDT on bsc has 18 decimals).
        const usdt = await paySession({ deposit_coin: "USDT", deposit_network: "bsc" })
        const usdtView = (await view(usdt.session.id, usdt.cart.id)).data.payment
        const units = new BigNumber(usdt.session.data.deposit_amount).shiftedBy(18).toFixed()
        expect(usdtView.wallet_uri).toBe(
          `ethereum:0x55d398326f99059ff775485246999027b3197955@56/transfer?address=${usdt.session.data.deposit_address}&uint256=${units}`
        )
        expect(zkView.qr_svg.startsWith("<svg")).toBe(true)
      })

      it("sends a hosted-checkout payer to the pay page until a coin is chosen", async () => {
        const { cart, session } = await paySession(BTC, PROVIDERS.checkout)
        const { data } = await view(session.id, cart.id)
        expect(data.payment_session.pay_url).toBe(`${env.sandbox.payUrl}/checkout/${session.data.checkout_id}`)
        expect(data.payment).toMatchObject({ stage: "awaiting_deposit", payment_uri: null, qr_svg: null, deposit: { address: null } })
        expect(data.payment.next_step).toMatch(/Open the payment page/)
        expect(data.payment.next_step).not.toMatch(/null|undefined/)
        // No shift yet: nothing to refund and nothing to requote, said plainly (not "unknown payment").
        const early = await refusedPost(`${ROUTES}/payment-sessions/${session.id}/refund-address`, { cart_id: cart.id, address: BTC_REFUND })
        expect(early.data.message).toMatch(/only .* while the payment waits for a refund/)
        const requote = await refusedPost(`${ROUTES}/payment-sessions/${session.id}/requote`, { cart_id: cart.id })
        expect(requote.data.message).toMatch(/Only an expired fixed-rate payment, or one whose deposit the service sent back/)

        // The payer sends the wrong amount through the pay page; the route finds the checkout's shift itself.
        const { id: shiftId } = await env.control.payCheckout(session.data.checkout_id, "BTC", "bitcoin")
        await env.control.deposit(shiftId, { amount: "0.00001" })
        const applied = await post(`${ROUTES}/payment-sessions/${session.id}/refund-address`, { cart_id: cart.id, address: BTC_REFUND })
        expect(applied.status).toBe(200)
        expect((await sandboxShift(shiftId)).refundAddress).toBe(BTC_REFUND)
      })

      it("follows the deposit, places the order itself, and links the transactions", async () => {
        const container = getContainer()
        const { cart, session, shiftId } = await paySession()
        expect((await view(session.id, cart.id)).data.payment.stage).toBe("awaiting_deposit")

        await env.control.deposit(shiftId, { txid: "a".repeat(64) })
        await env.control.setStatus(shiftId, "processing")
        // Reads are cached for a few seconds per session: let a reconciliation tick read first, as the job would.
        await reconcile(container)
        const confirmed = await view(session.id, cart.id)
        expect(confirmed.data.payment).toMatchObject({
          status: "processing",
          stage: "deposit_confirmed",
          headline: "Payment confirmed, being processed",
          payment_uri: null,
          qr_svg: null,
          transactions: { deposit: { hash: "a".repeat(64), url: `https://mempool.space/tx/${"a".repeat(64)}` }, settle: null },
        })
        const orderId = await orderOfCart(container, cart.id)
        expect(orderId).toEqual(expect.any(String))

        await env.control.walk(shiftId, ["settling", "settled"])
        await reconcile(container)
        const settled = await view(session.id, cart.id)
        const settleHash = (await sandboxShift(shiftId)).settleHash
        expect(settled.data.payment).toMatchObject({
          status: "settled",
          stage: "settled",
          headline: "Payment complete",
          order_id: orderId,
          transactions: {
            deposit: { hash: "a".repeat(64) },
            settle: { hash: settleHash, url: `https://etherscan.io/tx/${settleHash}` },
          },
        })
      })

      it("completes the cart from the page's own poll, without /complete", async () => {
        const container = getContainer()
        const { cart, session, shiftId } = await paySession()
        await env.control.deposit(shiftId)
        await env.control.setStatus(shiftId, "processing")
        // The first poll of this session reads the service at once (nothing cached yet).
        const { data } = await view(session.id, cart.id)
        expect(data.payment.stage).toBe("deposit_confirmed")
        const orderId = await orderOfCart(container, cart.id)
        expect(orderId).toEqual(expect.any(String))
        expect(data.payment.order_id).toBe(orderId)
      })

      it("reads the service at most once per few seconds however often the page polls", async () => {
        const { cart, session, shiftId } = await paySession()
        await env.control.clearRequests()
        for (let poll = 0; poll < 10; poll++) {
          expect((await view(session.id, cart.id)).data.payment.status).toBe("waiting")
        }
        const reads = await upstream("GET", `/v2/shifts/${shiftId}`)
        expect(reads.length).toBeGreaterThanOrEqual(1)
        // At most two within the route's 3 s cache, and one more per 3 s the reads spanned on the
        // sandbox's log: a loaded machine that polls slowly is not counted against the store.
        const spanMs = new Date(reads.at(-1)!.receivedAt).getTime() - new Date(reads[0].receivedAt).getTime()
        expect(reads.length).toBeLessThanOrEqual(2 + Math.floor(spanMs / 3000))
      })

      it("answers another cart's session exactly like a missing one and refuses hostile input", async () => {
        const container = getContainer()
        const a = await paySession()
        const b = await paySession(XRP)
        await view(a.session.id, a.cart.id)
        const before = await ledgerSnapshot(container, a.shiftId)
        const beforeB = await waitFor("B's shift to be recorded", () => ledgerSnapshot(container, b.shiftId), (row) => row !== null)
        expect(before).not.toBeNull()

        const foreign = await refusedGet(`${ROUTES}/payment-sessions/${a.session.id}?cart_id=${b.cart.id}`, 404)
        const missing = await refusedGet(`${ROUTES}/payment-sessions/payses_01NOSUCHSESSION?cart_id=${b.cart.id}`, 404)
        expect(foreign.data.message).toBe(missing.data.message)
        expect(foreign.data).toEqual(missing.data)
        expect(JSON.stringify(foreign.data)).not.toContain(a.shiftId)
        const unknownCart = await refusedGet(`${ROUTES}/payment-sessions/${a.session.id}?cart_id=cart_01NOSUCHCART`, 404)
        expect(unknownCart.data).toEqual(missing.data)
        // A session of another payment provider, even on the shopper's own cart, is no crypto payment.
        const c = await shop.createCart()
        const { session: manual } = await shop.createPaymentSession(c.id, PROVIDERS.system, {})
        expect((await refusedGet(`${ROUTES}/payment-sessions/${manual.id}?cart_id=${c.id}`, 404)).data).toEqual(missing.data)

        const url = `${ROUTES}/payment-sessions/${a.session.id}`
        expect((await refusedGet(url)).data.message).toMatch(/cart_id/)
        expect((await refusedGet(`${url}?cart_id=${a.cart.id.toLowerCase()}x-y`)).data.message).toMatch(/cart_id/)
        expect((await refusedGet(`${url}?cart_id=${a.cart.id}&fields=*`)).data.message).toMatch(/unknown field.*fields/)
        expect((await refusedGet(`${url}?cart_id=${a.cart.id}&cart_id=${b.cart.id}`)).data.message).toMatch(/cart_id/)
        expect((await refusedGet(`${url}?cart_id[$ne]=x`)).data.message).toMatch(/cart_id/)
        expect((await refusedGet(`${url}?cart_id=cart_${"Z".repeat(5000)}`)).data.message).toMatch(/cart_id/)
        // Malformed session ids: refused with a reason before the database sees them (a NUL byte was a 500).
        for (const id of ["x".repeat(3000), "payses_%00", `${a.session.id}%00`, "%27%20OR%201%3D1", `payses_${"A".repeat(200)}`]) {
          const answer = await refusedGet(`${ROUTES}/payment-sessions/${id}?cart_id=${a.cart.id}`)
          expect(answer.data.message).toMatch(/^id: /)
          expect(JSON.stringify(answer.data)).not.toContain(a.shiftId)
        }
        await refusedPost(`${ROUTES}/payment-sessions/payses_%00/refund-address`, { cart_id: a.cart.id, address: BTC_REFUND })
        await refusedPost(`${ROUTES}/payment-sessions/payses_%00/requote`, { cart_id: a.cart.id })
        expect(await ledgerSnapshot(container, a.shiftId)).toEqual(before)
        // B's session was never looked at through A's cart either: its row is as its creation recorded it.
        expect(await ledgerSnapshot(container, b.shiftId)).toEqual(beforeB)
      })
    })

    describe("POST /store/crypto-swap/payment-sessions/:id/refund-address", () => {
      it("takes a refund address once, only while the deposit waits for a refund", async () => {
        const container = getContainer()
        const { cart, session, shiftId } = await paySession()
        const url = `${ROUTES}/payment-sessions/${session.id}/refund-address`

        const early = await refusedPost(url, { cart_id: cart.id, address: BTC_REFUND })
        expect(early.data.message).toMatch(/only .* while the payment waits for a refund/)
        expect((await sandboxShift(shiftId)).refundAddress).toBeUndefined()

        // A wrong amount on a fixed shift: the service queues the deposit for a refund.
        await env.control.deposit(shiftId, { amount: "0.00001" })
        expect(await sandboxShift(shiftId)).toMatchObject({ status: "refund", issue: "incorrect amount" })
        const asking = await view(session.id, cart.id)
        expect(asking.data.payment).toMatchObject({ stage: "refund", issue: "incorrect amount", refund: { address_needed: true } })
        expect(asking.data.payment.next_step).toMatch(/Enter a BTC address on bitcoin/)

        const memo = await refusedPost(url, { cart_id: cart.id, address: BTC_REFUND, memo: "12345" })
        expect(memo.data.message).toMatch(/bitcoin takes no memo/)
        const bad = await refusedPost(url, { cart_id: cart.id, address: "0x1111111111111111111111111111111111111111" })
        expect(bad.data.message).toMatch(/address/i)
        expect((await sandboxShift(shiftId)).refundAddress).toBeUndefined()

        const applied = await post(url, { cart_id: cart.id, address: BTC_REFUND })
        expect(applied.status).toBe(200)
        expect(applied.data).toEqual({ refund_address: BTC_REFUND, refund_memo: null })
        expect((await sandboxShift(shiftId)).refundAddress).toBe(BTC_REFUND)
        const [row] = await ledgerOf(container).listSwapShifts({ shift_id: shiftId })
        expect(row.refund_address).toBe(BTC_REFUND)

        const again = await refusedPost(url, { cart_id: cart.id, address: "bc1qxy2kgdygjrsqtzq2n0yrf2493p83kkfjhx0wlh" })
        expect(again.data.message).toMatch(/already has a refund address/)
        expect((await sandboxShift(shiftId)).refundAddress).toBe(BTC_REFUND)

        // The refund goes out on the deposit's network: its hash links to a bitcoin explorer, not the settle network's.
        await env.control.walk(shiftId, ["refunding", "refunded"])
        await reconcile(container)
        const refunded = (await view(session.id, cart.id)).data.payment
        const refundHash = (await sandboxShift(shiftId)).settleHash
        expect(refunded).toMatchObject({
          stage: "refunded",
          headline: "Your payment was refunded: the amount sent was not the exact amount asked",
          refund: { address_needed: false, address: BTC_REFUND },
          transactions: { settle: null, refund: { hash: refundHash, url: `https://mempool.space/tx/${refundHash}` } },
        })
      })

      it("takes a refund address for a second deposit the service sends back", async () => {
        const { cart, session, shiftId } = await paySession()
        await env.control.deposit(shiftId)
        await env.control.deposit(shiftId)
        const shift = await sandboxShift(shiftId)
        expect(shift.status).toBe("multiple")
        expect(shift.deposits[1]).toMatchObject({ status: "refund", issue: "max 1 deposit" })

        const { data } = await view(session.id, cart.id)
        expect(data.payment).toMatchObject({ status: "multiple", refund: { address_needed: true, address: null } })
        expect(data.payment.transactions.deposit).toEqual({
          hash: shift.deposits[0].depositHash,
          url: `https://mempool.space/tx/${shift.deposits[0].depositHash}`,
        })
        const applied = await post(`${ROUTES}/payment-sessions/${session.id}/refund-address`, { cart_id: cart.id, address: BTC_REFUND })
        expect(applied.status).toBe(200)
        expect((await sandboxShift(shiftId)).refundAddress).toBe(BTC_REFUND)
      })

      it("refuses another cart's session and malformed or oversized bodies without touching the shift", async () => {
        const container = getContainer()
        const a = await paySession()
        const b = await paySession()
        await env.control.deposit(a.shiftId, { amount: "0.00001" })
        await view(a.session.id, a.cart.id)
        const before = await ledgerSnapshot(container, a.shiftId)
        const url = `${ROUTES}/payment-sessions/${a.session.id}/refund-address`

        const foreign = await refusedPost(url, { cart_id: b.cart.id, address: BTC_REFUND }, 404)
        const missing = await refusedPost(
          `${ROUTES}/payment-sessions/payses_01NOSUCHSESSION/refund-address`,
          { cart_id: b.cart.id, address: BTC_REFUND },
          404
        )
        expect(foreign.data).toEqual(missing.data)
        expect(JSON.stringify(foreign.data)).not.toContain(a.shiftId)

        expect((await refusedPost(url, { address: BTC_REFUND })).data.message).toMatch(/cart_id/)
        expect((await refusedPost(url, { cart_id: a.cart.id })).data.message).toMatch(/address/)
        expect((await refusedPost(url, { cart_id: a.cart.id, address: [BTC_REFUND] })).data.message).toMatch(/address/)
        expect((await refusedPost(url, { cart_id: [a.cart.id], address: BTC_REFUND })).data.message).toMatch(/cart_id/)
        expect((await refusedPost(url, { cart_id: a.cart.id, address: { $ne: 1 } })).data.message).toMatch(/address/)
        expect((await refusedPost(url, { cart_id: a.cart.id, address: BTC_REFUND, extra: 1 })).data.message).toMatch(
          /unknown field.*extra/
        )
        expect((await refusedPost(url, { cart_id: a.cart.id, address: "bc1 q<script>" })).data.message).toMatch(/address/)
        expect((await refusedPost(url, { cart_id: a.cart.id, address: BTC_REFUND, memo: "\u0000" })).data.message).toMatch(/memo/)
        expect((await refusedPost(url, { cart_id: a.cart.id, address: "b".repeat(10_000) })).data.message).toMatch(/address/)
        expect((await refusedPost(url, [{ cart_id: a.cart.id, address: BTC_REFUND }])).status).toBe(400)
        // 100 kB: refused before it is parsed or after, but always as the client's fault.
        const huge = record(await failing(api.post(url, { cart_id: a.cart.id, address: "b".repeat(100_000) }, shop.headers)))
        expect(huge.status).toBeGreaterThanOrEqual(400)
        expect(huge.status).toBeLessThan(500)
        const text = record(
          await failing(api.post(url, "not json", { headers: { ...shop.headers.headers, "content-type": "application/json" } }))
        )
        expect(text.status).toBeGreaterThanOrEqual(400)
        expect(text.status).toBeLessThan(500)

        expect((await sandboxShift(a.shiftId)).refundAddress).toBeUndefined()
        expect(await ledgerSnapshot(container, a.shiftId)).toEqual(before)
      })
    })

    describe("POST /store/payment-collections/:id/payment-sessions, asked again", () => {
      it("gives back the waiting payment for the same coin, network, refund address and amount, without a new shift", async () => {
        const cart = await shop.createCart()
        const first = await shop.createPaymentSession(cart.id, PROVIDERS.default, BTC)
        await env.control.clearRequests()
        const again = await shop.createPaymentSession(cart.id, PROVIDERS.default, { deposit_coin: "btc", deposit_network: "BITCOIN" })
        record({ status: 200, data: again.collection })
        expect(again.session).toMatchObject({ id: first.session.id, data: { shift_id: first.session.data.shift_id } })
        expect(await upstream("POST", /^\/v2\/(quotes|shifts)/)).toHaveLength(0)

        // Anything that matters changed: a new payment.
        const refundable = await shop.createPaymentSession(cart.id, PROVIDERS.default, { ...BTC, refund_address: BTC_REFUND })
        expect(refundable.session.id).not.toBe(first.session.id)
        const eth = await shop.createPaymentSession(cart.id, PROVIDERS.default, { deposit_coin: "ETH", deposit_network: "ethereum" })
        expect(eth.session.id).not.toBe(refundable.session.id)
        expect(await upstream("POST", "/v2/shifts/fixed")).toHaveLength(2)
        expect(eth.collection.payment_sessions.map((session: { id: string }) => session.id)).toEqual([eth.session.id])
      })

      it("makes a new payment once the waiting one can't be paid any more", async () => {
        const cart = await shop.createCart()
        const first = await shop.createPaymentSession(cart.id, PROVIDERS.default, BTC)
        await env.control.advanceClock(16 * 60)
        expect((await view(first.session.id, cart.id)).data.payment.stage).toBe("expired")
        await env.control.clearRequests()
        const fresh = await shop.createPaymentSession(cart.id, PROVIDERS.default, BTC)
        expect(fresh.session.id).not.toBe(first.session.id)
        expect(await upstream("POST", "/v2/shifts/fixed")).toHaveLength(1)
      })
    })

    describe("POST /store/crypto-swap/payment-sessions/:id/requote", () => {
      it("refuses a waiting shift, and replaces an expired one with a new session and shift", async () => {
        const container = getContainer()
        const { cart, session, collection, shiftId } = await paySession()
        const url = `${ROUTES}/payment-sessions/${session.id}/requote`

        const early = await refusedPost(url, { cart_id: cart.id })
        expect(early.data.message).toMatch(/Only an expired fixed-rate payment, or one whose deposit the service sent back/)
        expect((await collectionSessions(container, collection.id)).map((s) => s.id)).toEqual([session.id])

        await env.control.advanceClock(16 * 60)
        // The refusal above just read the shift: within the read cache the page sees the ledger, so let a tick read.
        await reconcile(container)
        const expired = (await view(session.id, cart.id)).data.payment
        expect(expired).toMatchObject({ status: "expired", stage: "expired", seconds_left: 0, payment_uri: null, qr_svg: null })
        expect(expired.next_step).toMatch(/Request a new quote/)
        const requoted = await post(url, { cart_id: cart.id })
        expect(requoted.status).toBe(201)
        const fresh = requoted.data.payment_session
        expect(fresh.id).not.toBe(session.id)
        expect(fresh.data).toMatchObject({ deposit_coin: "BTC", deposit_network: "bitcoin", amount: "49.99", status: "waiting" })
        expect(fresh.data.shift_id).toEqual(expect.any(String))
        expect(fresh.data.shift_id).not.toBe(shiftId)
        expect(new Date(fresh.data.expires_at).getTime()).toBeGreaterThan(Date.now())
        expect(await sandboxShift(fresh.data.shift_id)).toMatchObject({ status: "waiting", externalId: fresh.id })
        expect((await sandboxShift(shiftId)).status).toBe("expired")

        const sessions = await collectionSessions(container, collection.id)
        expect(sessions.map((s) => s.id)).toEqual([fresh.id])
        // The old session is gone for the page too; the new one is live.
        const gone = await refusedGet(`${ROUTES}/payment-sessions/${session.id}?cart_id=${cart.id}`, 404)
        expect(gone.data.message).toMatch(/No crypto payment/)
        expect((await view(fresh.id, cart.id)).data.payment.stage).toBe("awaiting_deposit")
      })

      it("makes one new shift however often the shopper clicks", async () => {
        const container = getContainer()
        const { cart, session, collection } = await paySession()
        await env.control.advanceClock(16 * 60)
        await env.control.clearRequests()
        const url = `${ROUTES}/payment-sessions/${session.id}/requote`
        const answers = await Promise.all(
          [0, 1, 2].map(async () => record(await api.post(url, { cart_id: cart.id }, shop.headers).catch((error: { response: unknown }) => error.response)))
        )
        expect(answers.map((answer) => answer.status).sort()).toEqual([201, 404, 404])
        const created = answers.find((answer) => answer.status === 201)!.data.payment_session
        expect(await upstream("POST", "/v2/shifts/fixed")).toHaveLength(1)
        expect((await collectionSessions(container, collection.id)).map((s) => s.id)).toEqual([created.id])
      })

      it("refuses to requote once the cart's order is placed", async () => {
        const container = getContainer()
        const { cart, session, collection } = await paySession(BTC, PROVIDERS.beforePayment)
        const placed = await shop.complete(cart.id)
        expect(placed.type).toBe("order")
        await env.control.advanceClock(16 * 60)
        await env.control.clearRequests()
        const refusedRequote = await refusedPost(`${ROUTES}/payment-sessions/${session.id}/requote`, { cart_id: cart.id })
        expect(refusedRequote.data.message).toMatch(/already placed/)
        expect(await upstream("POST", /^\/v2\/(quotes|shifts)/)).toHaveLength(0)
        expect((await collectionSessions(container, collection.id)).map((s) => s.id)).toEqual([session.id])
      })

      it("refuses another cart's session and hostile bodies without a new shift", async () => {
        const container = getContainer()
        const a = await paySession()
        const b = await paySession()
        await env.control.advanceClock(16 * 60)
        await view(a.session.id, a.cart.id)
        const before = await ledgerSnapshot(container, a.shiftId)
        const url = `${ROUTES}/payment-sessions/${a.session.id}/requote`
        await env.control.clearRequests()

        const foreign = await refusedPost(url, { cart_id: b.cart.id }, 404)
        const missing = await refusedPost(`${ROUTES}/payment-sessions/payses_01NOSUCHSESSION/requote`, { cart_id: b.cart.id }, 404)
        expect(foreign.data).toEqual(missing.data)
        expect(JSON.stringify(foreign.data)).not.toContain(a.shiftId)
        expect((await refusedPost(url, {})).data.message).toMatch(/cart_id/)
        expect((await refusedPost(url, { cart_id: a.cart.id, deposit_coin: "ETH" })).data.message).toMatch(/unknown field/)
        expect((await refusedPost(url, { cart_id: 42 })).data.message).toMatch(/cart_id/)
        expect((await refusedPost(url, { cart_id: `cart_${"9".repeat(10_000)}` })).data.message).toMatch(/cart_id/)

        expect(await upstream("POST", /^\/v2\/(quotes|shifts)/)).toHaveLength(0)
        expect((await collectionSessions(container, a.collection.id)).map((s) => s.id)).toEqual([a.session.id])
        expect(await ledgerSnapshot(container, a.shiftId)).toEqual(before)
      })
    })
  },
})
