// The demo storefront: pick a product, pick a coin, pay on the payment page the plugin's live view
// feeds. Bundled with esbuild by scripts/demo.mjs; talks to the store with @medusajs/js-sdk.
import Medusa from "@medusajs/js-sdk"

const config = window.__DEMO__
const sdk = new Medusa({ baseUrl: config.backendUrl, publishableKey: config.publishableKey, debug: false })
const PROVIDER_ID = config.providerId
const POLL_MS = 2000
const STEPS = [
  ["awaiting_deposit", "Waiting for payment"],
  ["deposit_detected", "Deposit detected"],
  ["deposit_confirmed", "Confirmed, swapping"],
  ["settled", "Paid"],
]

// What this page says to the shopper beyond the server's own texts (headline, next step, QR
// alternative), in one place for a later message catalogue.
const TEXT = {
  addressCopied: "Address copied.",
  oneMinuteLeft: "One minute left to pay.",
  qrExpired: "Expired: do not pay to this address",
  qrPaid: "Payment received",
  qrShort: "Less than the amount due arrived",
  topUp: "Top-up for the rest:",
}
/** Seconds left at which the countdown is read out once. */
const LAST_MINUTE_S = 60

const $ = (id) => document.getElementById(id)
const state = { regions: [], region: null, cart: null, coins: [], session: null, view: null, pollTimer: null, countdownTimer: null, deadline: null }

/**
 * Shows one view; after a shopper's action, moves focus to its heading (the product list: its first
 * button), so keyboard and screen reader users are not left on a control that just disappeared.
 */
function show(view, { focus = true } = {}) {
  for (const name of ["products", "checkout", "payment", "order"]) $(`view-${name}`).classList.toggle("hidden", name !== view)
  if (focus) $(`view-${view}`).querySelector("h2[tabindex], button")?.focus()
}

/** Read out by screen readers through the page's polite live region. */
function announce(text) {
  $("announcer").textContent = text
}

function money(amount, currency) {
  try {
    return new Intl.NumberFormat(undefined, { style: "currency", currency: currency.toUpperCase() }).format(amount)
  } catch {
    return `${amount} ${currency.toUpperCase()}`
  }
}

function errorText(error) {
  return error?.message || String(error)
}

// Remember where the shopper is, so a reload lands on the same payment page.
function save() {
  localStorage.setItem("crypto-demo", JSON.stringify({ cartId: state.cart?.id, sessionId: state.session?.id, regionId: state.region?.id }))
}
function saved() {
  try {
    return JSON.parse(localStorage.getItem("crypto-demo") || "{}")
  } catch {
    return {}
  }
}

// ---------------------------------------------------------------------------------------------
// Products
async function loadRegions() {
  const { regions } = await sdk.store.region.list({ limit: 20 })
  state.regions = regions.filter((r) => r.payment_providers?.some?.((p) => p.id === PROVIDER_ID) ?? true)
  const select = $("region")
  select.innerHTML = ""
  for (const region of state.regions) {
    const option = document.createElement("option")
    option.value = region.id
    option.textContent = `${region.name} (${region.currency_code.toUpperCase()})`
    select.append(option)
  }
  const wanted = saved().regionId
  state.region = state.regions.find((r) => r.id === wanted) ?? state.regions.find((r) => r.currency_code === "usd") ?? state.regions[0]
  if (state.region) select.value = state.region.id
}

async function loadProducts() {
  const container = $("products")
  container.innerHTML = `<p class="muted">Loading products…</p>`
  const { products } = await sdk.store.product.list({ region_id: state.region.id, fields: "title,description,handle,*variants.calculated_price", limit: 20 })
  container.innerHTML = ""
  for (const product of products) {
    const variant = product.variants?.[0]
    const price = variant?.calculated_price
    const card = document.createElement("div")
    card.className = "card product"
    card.dataset.testid = "product-card"
    card.innerHTML = `<h3></h3><p></p><div class="price" data-testid="product-price"></div><button data-testid="buy-button">Buy with crypto</button>`
    card.querySelector("h3").textContent = product.title
    card.querySelector("p").textContent = product.description ?? ""
    card.querySelector(".price").textContent = price ? money(price.calculated_amount, price.currency_code) : "–"
    const button = card.querySelector("button")
    button.dataset.product = product.handle
    button.disabled = !variant || !price
    button.onclick = () => buy(variant.id).catch((error) => alert(errorText(error)))
    container.append(card)
  }
}

// ---------------------------------------------------------------------------------------------
// Checkout: cart, coin picker, estimate
async function buy(variantId) {
  const { cart } = await sdk.store.cart.create({
    region_id: state.region.id,
    email: "shopper@example.com",
    items: [{ variant_id: variantId, quantity: 1 }],
  })
  state.cart = cart
  state.session = null
  save()
  await openCheckout()
}

async function openCheckout() {
  show("checkout")
  const cart = state.cart
  $("cart-summary").textContent = `${cart.items.map((i) => `${i.quantity} × ${i.product_title ?? i.title}`).join(", ")} — total ${money(cart.total, cart.currency_code)}`
  $("checkout-error").textContent = ""
  $("estimate").textContent = ""
  const select = $("coin")
  select.innerHTML = `<option>Loading coins…</option>`
  $("pay").disabled = true
  try {
    // The service serves some countries only: a storefront hides crypto where the shopper can't use it.
    const { permissions } = await sdk.client.fetch("/store/crypto-swap/permissions")
    if (!permissions.create_shift) {
      select.innerHTML = ""
      $("checkout-error").textContent = "Crypto payments are not available where you are."
      return
    }
    const { coins, settle } = await sdk.client.fetch("/store/crypto-swap/coins", { query: { cart_id: cart.id } })
    state.coins = coins
    $("settle-info").textContent = `The store receives ${settle.coin} on ${settle.network}; you can pay with any of ${coins.length} coins.`
    select.innerHTML = ""
    for (const coin of coins) {
      for (const network of coin.networks) {
        const option = document.createElement("option")
        option.value = `${coin.coin}|${network.network}`
        option.textContent = `${coin.coin} — ${coin.name} (${network.network})${network.memo ? " · memo" : ""}`
        select.append(option)
      }
    }
    select.value = [...select.options].some((o) => o.value === "BTC|bitcoin") ? "BTC|bitcoin" : select.options[0]?.value
    await estimate()
  } catch (error) {
    $("checkout-error").textContent = errorText(error)
  }
}

function chosenCoin() {
  const [coin, network] = $("coin").value.split("|")
  return { coin, network }
}

// Only the estimate for the coin picked last is shown: an earlier answer may arrive after it.
let latestEstimate = 0

async function estimate() {
  const { coin, network } = chosenCoin()
  const request = ++latestEstimate
  $("pay").disabled = true
  $("estimate").textContent = "Estimating…"
  $("checkout-error").textContent = ""
  try {
    const { estimate: e } = await sdk.client.fetch("/store/crypto-swap/estimate", { query: { cart_id: state.cart.id, coin, network } })
    if (request !== latestEstimate) return
    $("estimate").innerHTML = `<div class="muted">You pay about</div><div class="big mono" data-testid="estimate-amount"></div><div class="muted" data-testid="estimate-details"></div>`
    $("estimate").querySelector(".big").textContent = `${e.deposit_amount} ${e.deposit_coin}`
    $("estimate").querySelector("[data-testid=estimate-details]").textContent =
      `for ${money(e.amount_due, e.currency_code)} · rate ${e.rate} ${e.settle_coin}/${e.deposit_coin} · accepted ${e.min}–${e.max} ${e.deposit_coin}`
    $("pay").disabled = false
  } catch (error) {
    if (request !== latestEstimate) return
    $("estimate").textContent = ""
    $("checkout-error").textContent = errorText(error)
  }
}

async function pay() {
  const { coin, network } = chosenCoin()
  $("pay").disabled = true
  $("checkout-error").textContent = ""
  try {
    const { payment_collection: collection } = await sdk.store.payment.initiatePaymentSession(state.cart, {
      provider_id: PROVIDER_ID,
      data: { deposit_coin: coin, deposit_network: network },
    })
    state.cart = { ...state.cart, payment_collection: collection }
    state.session = collection.payment_sessions.find((s) => s.provider_id === PROVIDER_ID)
    save()
    openPayment()
  } catch (error) {
    $("checkout-error").textContent = errorText(error)
    $("pay").disabled = false
  }
}

// ---------------------------------------------------------------------------------------------
// Payment page: the live view, polled every 2 s
function openPayment() {
  show("payment")
  $("payment-error").textContent = ""
  stopPolling()
  poll()
  state.countdownTimer = setInterval(tick, 250)
}

function stopPolling() {
  clearTimeout(state.pollTimer)
  clearInterval(state.countdownTimer)
}

async function poll() {
  try {
    const view = await sdk.client.fetch(`/store/crypto-swap/payment-sessions/${state.session.id}`, { query: { cart_id: state.cart.id } })
    render(view)
    if (view.payment.order_id) {
      if ($("view-order").classList.contains("hidden")) showOrder(view.payment.order_id, view)
      renderOrderPayment(view.payment)
      // The order exists once the payment is confirmed; keep following it until it is captured.
      if (view.payment.stage === "settled") return
    }
    $("payment-error").textContent = ""
  } catch (error) {
    $("payment-error").textContent = errorText(error)
  }
  state.pollTimer = setTimeout(poll, POLL_MS)
}

function render({ payment_session: session, payment }) {
  state.view = payment
  // An open top-up is what the shopper pays now: its address, amount, QR and deadline stand in for the payment's.
  const payable = payment.top_up ?? payment
  state.payable = payable
  $("headline").textContent = payment.headline
  $("next-step").textContent = payment.top_up ? `${TEXT.topUp} ${payable.next_step}` : payment.next_step
  const status = $("status")
  status.textContent = payment.status
  status.dataset.stage = payment.stage
  status.className = `status ${payment.stage === "settled" ? "ok" : ["expired", "refund", "refunded", "underpaid", "review"].includes(payment.stage) ? "bad" : ""}`

  // A stage the shopper has not heard yet (the first view included) is read out once.
  if (status.dataset.announced !== payment.stage) {
    status.dataset.announced = payment.stage
    announce(`${payment.headline}. ${payment.next_step}`)
  }

  const qr = $("qr")
  if (payable.qr_svg) {
    if (qr.dataset.uri !== payable.payment_uri) {
      qr.innerHTML = payable.qr_svg
      qr.dataset.uri = payable.payment_uri ?? ""
      // The SVG's squares mean nothing read aloud: the box says what it holds instead.
      qr.querySelector("svg")?.setAttribute("aria-hidden", "true")
    }
    qr.className = "qr"
    qr.setAttribute("role", "img")
    qr.setAttribute("aria-label", payable.qr_alt ?? payable.payment_uri ?? "")
  } else {
    qr.className = "qr empty"
    qr.dataset.uri = ""
    qr.removeAttribute("role")
    qr.removeAttribute("aria-label")
    qr.textContent = payable.stage === "expired" ? TEXT.qrExpired : payable.stage === "underpaid" ? TEXT.qrShort : TEXT.qrPaid
  }
  // Opens the shopper's wallet with the address, network and exact amount filled in.
  const wallet = $("wallet-link")
  wallet.classList.toggle("hidden", !payable.wallet_uri)
  if (payable.wallet_uri) wallet.href = payable.wallet_uri
  else wallet.removeAttribute("href")

  const deposit = payable.deposit
  const waitingForDeposit = payable.stage === "awaiting_deposit"
  if (deposit.amount) {
    $("amount-label").textContent = waitingForDeposit ? "Send exactly" : "Amount"
    $("amount").textContent = `${deposit.amount} ${deposit.coin}`
  } else {
    $("amount-label").textContent = waitingForDeposit ? "Send between" : "Accepted range"
    $("amount").textContent = `${deposit.min} and ${deposit.max} ${deposit.coin}`
  }
  $("address").textContent = deposit.address ?? "–"
  $("memo-field").classList.toggle("hidden", !deposit.memo_required)
  $("memo").textContent = deposit.memo ?? ""
  $("memo-warning").textContent = deposit.memo_warning ?? ""
  $("settle").textContent = payment.top_up
    ? `On ${deposit.network}. The store receives the rest, ${payable.amount_due} ${payable.settle.coin}, for your order of ${money(session.amount, session.currency_code)}.`
    : `On ${deposit.network}. The store receives ${payment.settle.amount} ${payment.settle.coin} (${money(session.amount, session.currency_code)}).`

  const tx = $("transactions")
  tx.innerHTML = ""
  for (const [label, entry] of Object.entries(payable.transactions ?? {})) {
    if (!entry) continue
    const line = document.createElement("div")
    line.innerHTML = `<span class="muted"></span> <a class="mono" target="_blank" rel="noopener"></a>`
    line.querySelector("span").textContent = `${label} transaction:`
    const link = line.querySelector("a")
    link.textContent = entry.hash
    if (entry.url) link.href = entry.url
    tx.append(line)
  }

  if (payable.seconds_left !== null && payable.seconds_left !== undefined) {
    state.deadline = Date.now() + payable.seconds_left * 1000
  } else {
    state.deadline = null
  }
  const waiting = payable.stage === "awaiting_deposit"
  $("simulate").classList.toggle("hidden", !waiting)
  $("simulate-short").classList.toggle("hidden", !waiting || !deposit.estimate)
  $("expire").classList.toggle("hidden", !waiting || !payable.expires_at)
  $("requote").classList.toggle("hidden", payment.stage !== "expired")
  $("top-up").classList.toggle("hidden", !payment.missing?.can_top_up || Boolean(payment.top_up))

  const index = STEPS.findIndex(([stage]) => stage === payment.stage)
  $("steps").innerHTML = ""
  for (const [i, [stage, label]] of STEPS.entries()) {
    const li = document.createElement("li")
    li.textContent = label
    li.dataset.stage = stage
    if (index >= 0 && i < index) li.className = "done"
    if (i === index) li.className = stage === "settled" ? "done" : "current"
    $("steps").append(li)
  }
  tick()
}

function tick() {
  const el = $("countdown")
  if (!state.payable) return
  if (state.payable.stage === "expired") {
    el.textContent = "Expired"
    return
  }
  if (state.payable.stage !== "awaiting_deposit") {
    el.textContent = "Deposit received"
    return
  }
  if (!state.deadline) {
    el.textContent = "No deadline (variable rate)"
    return
  }
  const left = Math.max(0, Math.round((state.deadline - Date.now()) / 1000))
  const minutes = Math.floor(left / 60)
  // The countdown is not a live region (it would talk every second): the last minute is said once.
  const before = Number(el.dataset.secondsLeft)
  if (before > LAST_MINUTE_S && left <= LAST_MINUTE_S && left > 0) announce(TEXT.oneMinuteLeft)
  el.textContent = `${minutes}:${String(left % 60).padStart(2, "0")}`
  el.dataset.secondsLeft = String(left)
}

async function demoCall(route, body) {
  const response = await fetch(route, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) })
  const data = await response.json().catch(() => ({}))
  if (!response.ok) throw new Error(data.error?.message ?? data.message ?? `HTTP ${response.status}`)
  return data
}

/** Half of a decimal string at its own precision, rounded down (the short deposit a wallet's fee or a typo makes). */
function half(decimal) {
  const [whole, fraction = ""] = decimal.split(".")
  const digits = (BigInt(whole + fraction) / 2n).toString().padStart(fraction.length + 1, "0")
  return fraction ? `${digits.slice(0, -fraction.length)}.${digits.slice(-fraction.length)}` : digits
}

/** Sends what the page asks for (a variable rate: its estimate), or half of it. */
async function simulateDeposit({ short = false } = {}) {
  const payable = state.payable
  const shiftId = payable?.shift_id ?? state.session?.data?.shift_id
  if (!shiftId) return
  const estimate = payable?.deposit?.estimate
  $("simulate").disabled = true
  try {
    await demoCall("/demo/simulate-deposit", { shift_id: shiftId, ...(estimate ? { amount: short ? half(estimate) : estimate } : {}) })
    clearTimeout(state.pollTimer)
    poll()
  } catch (error) {
    $("payment-error").textContent = errorText(error)
  } finally {
    $("simulate").disabled = false
  }
}

async function expire() {
  try {
    await demoCall("/demo/advance-clock", { seconds: 900 })
    clearTimeout(state.pollTimer)
    poll()
  } catch (error) {
    $("payment-error").textContent = errorText(error)
  }
}

async function requote() {
  $("requote").disabled = true
  try {
    const { payment_session: session } = await sdk.client.fetch(`/store/crypto-swap/payment-sessions/${state.session.id}/requote`, {
      method: "POST",
      body: { cart_id: state.cart.id },
    })
    state.session = session
    save()
    const qr = $("qr")
    qr.dataset.uri = ""
    openPayment()
  } catch (error) {
    $("payment-error").textContent = errorText(error)
  } finally {
    $("requote").disabled = false
  }
}

/** Pays the rest of a short payment: a top-up for what is missing, shown in place of the payment's deposit. */
async function topUp() {
  $("top-up").disabled = true
  try {
    const view = await sdk.client.fetch(`/store/crypto-swap/payment-sessions/${state.session.id}/top-up`, {
      method: "POST",
      body: { cart_id: state.cart.id },
    })
    $("qr").dataset.uri = ""
    render(view)
    $("payment-error").textContent = ""
  } catch (error) {
    $("payment-error").textContent = errorText(error)
  } finally {
    $("top-up").disabled = false
  }
}

function renderOrderPayment(payment) {
  const el = $("order-payment-status")
  el.textContent = payment.stage === "settled" ? "complete (captured)" : payment.headline
  el.dataset.stage = payment.stage
  el.className = `status ${payment.stage === "settled" ? "ok" : ""}`
}

async function showOrder(orderId, view) {
  clearInterval(state.countdownTimer)
  show("order")
  $("order-id").textContent = orderId
  $("order-number").textContent = ""
  $("order-summary").textContent = `Paid ${view.payment.deposit.amount ?? ""} ${view.payment.deposit.coin}; the store received ${view.payment.settle.amount} ${view.payment.settle.coin}.`
  localStorage.removeItem("crypto-demo")
  try {
    const { order } = await sdk.store.order.retrieve(orderId, { fields: "id,display_id,total,currency_code" })
    $("order-number").textContent = `#${order.display_id}`
    $("order-summary").textContent += ` Total ${money(order.total, order.currency_code)}.`
  } catch {
    $("order-number").textContent = "placed"
  }
}

// ---------------------------------------------------------------------------------------------
async function start() {
  $("region").onchange = () => {
    state.region = state.regions.find((r) => r.id === $("region").value)
    save()
    show("products", { focus: false })
    loadProducts().catch((error) => alert(errorText(error)))
  }
  $("coin").onchange = () => estimate()
  $("pay").onclick = () => pay()
  $("back").onclick = () => {
    show("products")
  }
  $("copy").onclick = () =>
    navigator.clipboard
      ?.writeText($("address").textContent)
      .then(() => announce(TEXT.addressCopied))
      .catch(() => {})
  $("simulate").onclick = () => simulateDeposit()
  $("simulate-short").onclick = () => simulateDeposit({ short: true })
  $("top-up").onclick = () => topUp()
  $("expire").onclick = () => expire()
  $("requote").onclick = () => requote()
  $("again").onclick = () => {
    stopPolling()
    state.cart = null
    state.session = null
    show("products")
  }

  await loadRegions()
  // Back on the payment page after a reload.
  const { cartId, sessionId } = saved()
  if (cartId && sessionId) {
    try {
      const { cart } = await sdk.store.cart.retrieve(cartId, { fields: "id,total,currency_code,region_id,*items,*payment_collection,*payment_collection.payment_sessions" })
      const session = cart.payment_collection?.payment_sessions?.find((s) => s.id === sessionId)
      if (session) {
        state.cart = cart
        state.session = session
        openPayment()
        loadProducts().catch(() => {})
        return
      }
    } catch {}
  }
  show("products", { focus: false })
  await loadProducts()
}

start().catch((error) => {
  document.querySelector("main").innerHTML = `<div class="card error"></div>`
  document.querySelector("main .card").textContent = `The store did not answer: ${errorText(error)}`
})
