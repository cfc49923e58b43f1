// The demo storefront: pick a product, then pay with the plugin's drop-in payment component
// (<crypto-swap-checkout>, imported from the plugin's packed package as a store does), which draws the coin
// picker and the payment page. The page itself keeps the products, the order confirmation and the sandbox's buttons.
// Bundled with esbuild by scripts/demo.mjs; talks to the store with @medusajs/js-sdk.
import Medusa from "@medusajs/js-sdk"
import { EVENTS, formatMoney as money } from "medusa-payment-crypto-swap/storefront"

const config = window.__DEMO__
const sdk = new Medusa({ baseUrl: config.backendUrl, publishableKey: config.publishableKey, debug: false })
const PROVIDER_ID = config.providerId
/** "" leaves the language to the browser's (Accept-Language for the store, navigator.languages for the component). */
const LANGUAGES = { "": "Browser's", en: "English", de: "Deutsch", fr: "Français", es: "Español", pt: "Português" }

const $ = (id) => document.getElementById(id)
const checkout = $("crypto-checkout")
checkout.setAttribute("backend-url", config.backendUrl)
checkout.setAttribute("publishable-key", config.publishableKey)
const state = { regions: [], region: null, cart: null, payable: null, shiftId: null, orderShown: false }

/**
 * Shows one view; after a shopper's action, moves focus to its heading (the product list: its first
 * button), so keyboard and screen reader users are not left on a control that just disappeared.
 */
function show(view, { focus = true } = {}) {
  for (const name of ["products", "checkout", "order"]) $(`view-${name}`).classList.toggle("hidden", name !== view)
  if (focus) $(`view-${view}`).querySelector("h2[tabindex], button")?.focus()
}

function errorText(error) {
  return error?.message || String(error)
}

// Remember where the shopper is, so a reload lands on the same payment page (the component finds the
// cart's crypto payment itself) and in the same language.
function save() {
  localStorage.setItem("crypto-demo", JSON.stringify({ cartId: state.cart?.id, regionId: state.region?.id, locale: $("language").value }))
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
  for (const region of state.regions) select.append(new Option(`${region.name} (${region.currency_code.toUpperCase()})`, region.id))
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
// Checkout: the component, given the cart
async function buy(variantId) {
  const { cart } = await sdk.store.cart.create({
    region_id: state.region.id,
    email: "shopper@example.com",
    items: [{ variant_id: variantId, quantity: 1 }],
  })
  openCheckout(cart)
}

function openCheckout(cart, { focus = true } = {}) {
  state.cart = cart
  state.payable = null
  state.orderShown = false
  save()
  $("cart-summary").textContent = `${cart.items.map((i) => `${i.quantity} × ${i.product_title ?? i.title}`).join(", ")} — total ${money(cart.total, cart.currency_code)}`
  $("back").hidden = false
  renderSandbox()
  checkout.setAttribute("cart-id", cart.id)
  show("checkout", { focus })
}

// Each view the component shows: the sandbox's buttons follow what the shopper is asked to pay, and the
// order page the payment's progress until it is captured.
checkout.addEventListener(EVENTS.update, ({ detail: { session, payment } }) => {
  $("back").hidden = true
  // An open top-up is what the shopper pays now.
  state.payable = payment.top_up ?? payment
  state.shiftId = payment.top_up?.shift_id ?? session.data?.shift_id
  renderSandbox()
  if (state.orderShown) renderOrderPayment(payment)
})
checkout.addEventListener(EVENTS.orderPlaced, ({ detail: { orderId, payment } }) => showOrder(orderId, payment))

// ---------------------------------------------------------------------------------------------
// Sandbox: the shopper's wallet and the service's clock, through the demo server
function renderSandbox() {
  const payable = state.payable
  const waiting = payable?.stage === "awaiting_deposit"
  $("sandbox").hidden = !payable
  $("simulate").hidden = !waiting
  $("simulate-short").hidden = !waiting || !payable.deposit.estimate
  $("expire").hidden = !waiting || !payable.expires_at
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

/** Runs a sandbox action, then has the component read the payment at once. */
async function sandbox(button, action) {
  button.disabled = true
  $("sandbox-error").textContent = ""
  try {
    await action()
    checkout.refresh()
  } catch (error) {
    $("sandbox-error").textContent = errorText(error)
  } finally {
    button.disabled = false
  }
}

/** Sends what the page asks for (a variable rate: its estimate), or half of it. */
function simulateDeposit({ short = false } = {}) {
  const estimate = state.payable?.deposit?.estimate
  return demoCall("/demo/simulate-deposit", { shift_id: state.shiftId, ...(estimate ? { amount: short ? half(estimate) : estimate } : {}) })
}

// ---------------------------------------------------------------------------------------------
// Order confirmation
function renderOrderPayment(payment) {
  const el = $("order-payment-status")
  el.textContent = payment.stage === "settled" ? "complete (captured)" : payment.headline
  el.dataset.stage = payment.stage
  el.className = `status ${payment.stage === "settled" ? "ok" : ""}`
}

async function showOrder(orderId, payment) {
  state.orderShown = true
  show("order")
  $("order-id").textContent = orderId
  $("order-number").textContent = ""
  $("order-summary").textContent = `Paid ${payment.deposit.amount ?? ""} ${payment.deposit.coin}; the store received ${payment.settle.amount} ${payment.settle.coin}.`
  renderOrderPayment(payment)
  localStorage.setItem("crypto-demo", JSON.stringify({ ...saved(), cartId: undefined }))
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
  const language = $("language")
  for (const [code, name] of Object.entries(LANGUAGES)) language.append(new Option(name, code))
  // `?locale=de` opens the demo in that language; the choice is kept across reloads.
  const asked = new URLSearchParams(location.search).get("locale") ?? saved().locale
  language.value = asked in LANGUAGES ? asked : ""
  const applyLanguage = () => (language.value ? checkout.setAttribute("locale", language.value) : checkout.removeAttribute("locale"))
  applyLanguage()
  language.onchange = () => {
    applyLanguage()
    save()
  }
  $("region").onchange = () => {
    state.region = state.regions.find((r) => r.id === $("region").value)
    save()
    show("products", { focus: false })
    loadProducts().catch((error) => alert(errorText(error)))
  }
  $("back").onclick = () => {
    checkout.removeAttribute("cart-id")
    show("products")
  }
  $("simulate").onclick = () => sandbox($("simulate"), () => simulateDeposit())
  $("simulate-short").onclick = () => sandbox($("simulate-short"), () => simulateDeposit({ short: true }))
  $("expire").onclick = () => sandbox($("expire"), () => demoCall("/demo/advance-clock", { seconds: 900 }))
  $("again").onclick = () => {
    checkout.removeAttribute("cart-id")
    state.cart = null
    show("products")
  }

  await loadRegions()
  // Back on the checkout after a reload: the component shows the cart's payment page if it has one.
  const { cartId } = saved()
  if (cartId) {
    try {
      const { cart } = await sdk.store.cart.retrieve(cartId, { fields: "id,total,currency_code,completed_at,*items" })
      if (!cart.completed_at) {
        openCheckout(cart, { focus: false })
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
