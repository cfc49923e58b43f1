// The scripted shopper of `npm run demo -- --once`: buys a product over HTTP with the store API as a
// storefront does, lets the sandbox deposit and settle, and checks the order and its captured payment
// through the admin API.
import { simulateDeposit } from "./demo-storefront.mjs"
import { waitFor } from "./demo-steps.mjs"

const PROVIDER_ID = "pp_crypto-swap_crypto-swap"

// What fetch says when the connection broke without an answer (the store restarting, say), unlike a slow store (a timeout).
const CONNECTION_LOST = new Set(["ECONNRESET", "ECONNREFUSED", "EPIPE", "UND_ERR_SOCKET"])

/**
 * One request to the store (`headers` may carry an admin bearer token). A read, or a write marked
 * `repeatable` (a second cart or log-in leaves nothing wrong; a second refund would), whose connection
 * was lost before any answer is sent once more when the store answers /health again, as a storefront
 * would, and says so on stderr.
 */
export async function call(base, method, route, { body, headers = {}, query, repeatable = method === "GET" } = {}) {
  const url = new URL(route, base)
  for (const [key, value] of Object.entries(query ?? {})) url.searchParams.set(key, value)
  const send = () =>
    fetch(url, {
      method,
      headers: { "content-type": "application/json", ...headers },
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: AbortSignal.timeout(30_000),
    })
  let response
  try {
    response = await send()
  } catch (error) {
    const code = error.cause?.code
    if (!repeatable || !CONNECTION_LOST.has(code)) throw error
    console.error(`demo shopper: ${method} ${url.pathname} lost its connection (${code}); trying once more when ${base} answers /health`)
    await waitFor(`${base} to answer /health`, async () => (await fetch(new URL("/health", base), { signal: AbortSignal.timeout(2000) })).ok, { timeoutMs: 60_000 })
    response = await send()
  }
  const text = await response.text()
  let data
  try {
    data = text ? JSON.parse(text) : {}
  } catch {
    data = { raw: text.slice(0, 500) }
  }
  if (!response.ok) {
    const error = new Error(`${method} ${url.pathname} -> ${response.status}: ${data.message ?? JSON.stringify(data).slice(0, 500)}`)
    error.status = response.status
    error.data = data
    throw error
  }
  return data
}

/**
 * @param {{ backendUrl: string, sandboxUrl: string, publishableKey: string, admin: { email: string, password: string },
 *   coin: string, network: string, currency: string, step: (label: string, fn: () => Promise<any>) => Promise<any>,
 *   info: (line: string) => void }} options
 */
export async function runShopper({ backendUrl, sandboxUrl, publishableKey, admin, coin, network, currency, step, info }) {
  const store = (method, route, options = {}) =>
    call(backendUrl, method, route, { ...options, headers: { "x-publishable-api-key": publishableKey, ...options.headers } })

  const region = await step(`Shopper: find the ${currency.toUpperCase()} region`, async () => {
    const { regions } = await store("GET", "/store/regions")
    const found = regions.find((r) => r.currency_code === currency)
    if (!found) throw new Error(`No region in ${currency}; regions: ${regions.map((r) => r.currency_code).join(", ")}`)
    return found
  })

  const variant = await step("Shopper: pick a product", async () => {
    const { products } = await store("GET", "/store/products", { query: { region_id: region.id, fields: "title,handle,*variants.calculated_price", limit: "10" } })
    const priced = products.filter((p) => p.variants?.[0]?.calculated_price?.calculated_amount != null)
    const product = priced.find((p) => p.handle === "hardware-wallet") ?? priced[0]
    if (!product) throw new Error("No product with a price in this region")
    const v = product.variants[0]
    info(`    ${product.title}: ${v.calculated_price.calculated_amount} ${currency.toUpperCase()}`)
    return v
  })

  const cart = await step("Shopper: create a cart", async () => {
    const { cart } = await store("POST", "/store/carts", {
      repeatable: true,
      body: { region_id: region.id, email: "shopper@example.com", items: [{ variant_id: variant.id, quantity: 1 }] },
    })
    info(`    cart ${cart.id}, total ${cart.total} ${cart.currency_code.toUpperCase()}`)
    return cart
  })

  await step(`Shopper: list coins and estimate ${coin} on ${network}`, async () => {
    const { coins, settle } = await store("GET", "/store/crypto-swap/coins", { query: { cart_id: cart.id } })
    const offered = coins.find((c) => c.coin.toLowerCase() === coin.toLowerCase() && c.networks.some((n) => n.network.toLowerCase() === network.toLowerCase()))
    if (!offered) throw new Error(`${coin} on ${network} is not offered (${coins.length} coins listed)`)
    const { estimate } = await store("GET", "/store/crypto-swap/estimate", { query: { cart_id: cart.id, coin, network } })
    info(`    ${coins.length} coins offered; the store receives ${settle.coin} on ${settle.network}`)
    info(`    estimate: ${estimate.deposit_amount} ${estimate.deposit_coin} for ${estimate.amount_due} ${estimate.currency_code.toUpperCase()} (rate ${estimate.rate})`)
  })

  const session = await step("Shopper: start the crypto payment (payment session -> shift)", async () => {
    const { payment_collection: collection } = await store("POST", "/store/payment-collections", { body: { cart_id: cart.id }, repeatable: true })
    const { payment_collection: updated } = await store("POST", `/store/payment-collections/${collection.id}/payment-sessions`, {
      body: { provider_id: PROVIDER_ID, data: { deposit_coin: coin, deposit_network: network } },
    })
    const session = updated.payment_sessions.find((s) => s.provider_id === PROVIDER_ID)
    if (!session?.data?.shift_id) throw new Error(`The payment session has no shift: ${JSON.stringify(session?.data ?? null)}`)
    return session
  })

  const live = () => store("GET", `/store/crypto-swap/payment-sessions/${session.id}`, { query: { cart_id: cart.id } })

  await step("Shopper: open the payment page (live view)", async () => {
    const { payment } = await live()
    if (payment.stage !== "awaiting_deposit" || !payment.deposit.address || !payment.qr_svg) {
      throw new Error(`Unexpected payment page: ${JSON.stringify({ stage: payment.stage, address: payment.deposit.address })}`)
    }
    info(`    "${payment.headline}": send ${payment.deposit.amount ?? `${payment.deposit.min}-${payment.deposit.max}`} ${payment.deposit.coin} to ${payment.deposit.address}${payment.deposit.memo ? ` with memo ${payment.deposit.memo}` : ""}`)
    info(`    QR code ${payment.qr_svg.length} bytes of SVG, ${payment.seconds_left}s left; wallet link ${payment.wallet_uri ?? "none (address only)"}`)
  })

  const walk = await step("Sandbox: the shopper's deposit arrives", async () => {
    const result = await simulateDeposit(sandboxUrl, session.data.shift_id, { stepMs: 1000, log: (line) => info(`    ${line}`) })
    if (result.status >= 300) throw new Error(`Deposit refused: ${JSON.stringify(result.data)}`)
    info(`    deposit ${result.data.deposits?.[0]?.depositAmount ?? result.data.depositAmount ?? ""} ${result.data.depositCoin ?? ""} arrived: ${result.data.status}; the sandbox settles it one status a second`)
    // Wrapped: an async step returning the walk's promise would wait for the whole walk.
    return { done: result.walk }
  })

  const orderId = await step("Shopper: watch the payment page until the order is placed", async () => {
    let lastStage
    const deadline = Date.now() + 90_000
    while (Date.now() < deadline) {
      const { payment } = await live()
      if (payment.stage !== lastStage) {
        info(`    ${payment.status}: ${payment.headline}`)
        lastStage = payment.stage
      }
      if (payment.order_id && payment.stage === "settled") return payment.order_id
      if (["expired", "refund", "refunded", "underpaid", "review"].includes(payment.stage)) throw new Error(`The payment went to ${payment.stage}`)
      await new Promise((r) => setTimeout(r, 1000))
    }
    throw new Error(`No order after 90s (last stage ${lastStage})`)
  })
  await walk.done

  const adminToken = await step("Admin: log in", async () => {
    const { token } = await call(backendUrl, "POST", "/auth/user/emailpass", { body: { email: admin.email, password: admin.password }, repeatable: true })
    return token
  })

  const order = await step("Admin: the order exists and its payment is captured", async () => {
    const deadline = Date.now() + 60_000
    let order
    while (Date.now() < deadline) {
      ;({ order } = await call(backendUrl, "GET", `/admin/orders/${orderId}`, {
        headers: { authorization: `Bearer ${adminToken}` },
        query: { fields: "id,display_id,status,payment_status,total,currency_code,*payment_collections.payments" },
      }))
      const payments = (order.payment_collections ?? []).flatMap((c) => c.payments ?? [])
      const captured = payments.find((p) => p.provider_id === PROVIDER_ID && p.captured_at)
      if (order.payment_status === "captured" && captured) return { ...order, payment: captured }
      await new Promise((r) => setTimeout(r, 1000))
    }
    throw new Error(`Order ${orderId} payment_status is ${order?.payment_status}, not captured`)
  })
  info(`    order #${order.display_id} (${order.id}): ${order.total} ${order.currency_code.toUpperCase()}, payment ${order.payment.id} captured at ${order.payment.captured_at}`)
  return order
}
