// <crypto-swap-checkout>: the coin picker and the payment page of medusa-payment-crypto-swap, drawn from the
// plugin's store routes. Plain ESM without dependencies, so a store imports it as it is or through any
// bundler; importing it where there is no DOM (server rendering) defines nothing.
//
//   <crypto-swap-checkout backend-url="https://api.example.com" publishable-key="pk_…" cart-id="cart_…" locale="de">
//
// It renders into its own children (no shadow root), so the page's fonts apply and its tests reach every
// part; its styles are scoped to the element and themed with `--crypto-swap-*` CSS variables. It tells the
// page what happens with events: `crypto-swap-update` (each view it shows), `crypto-swap-order-placed`
// (once, when the plugin has placed the order) and `crypto-swap-paid` (once, when the payment is captured);
// neither for money coming back to the shopper.
import { messages } from "./messages.mjs"

export { messages }

export const TAG = "crypto-swap-checkout"
export const EVENTS = { update: "crypto-swap-update", orderPlaced: "crypto-swap-order-placed", paid: "crypto-swap-paid" }

const POLL_MS = 2000
/** Seconds left at which the countdown is read out, once. */
const LAST_MINUTE_S = 60
const STEPS = ["awaiting_deposit", "deposit_detected", "deposit_confirmed", "settled"]
const BAD_STAGES = new Set(["expired", "refund", "refunded", "underpaid", "review"])
/** The deposit goes back to the shopper: the payment's address takes nothing more. */
const SENT_BACK = new Set(["refund", "refunded"])
const PROVIDER_PREFIX = "pp_crypto-swap_"
const PREFERRED_COIN = "BTC|bitcoin"

/** An amount in a currency, in the shopper's language where the browser knows the currency. */
export function formatMoney(amount, currency, locale) {
  try {
    return new Intl.NumberFormat(locale, { style: "currency", currency: currency.toUpperCase() }).format(amount)
  } catch {
    return `${amount} ${currency.toUpperCase()}`
  }
}

/** The catalogue language for `locale` ("pt-BR" is pt), else the browser's first one the catalogue has, else English. */
function languageFor(locale) {
  const wanted = locale ? [locale] : (globalThis.navigator?.languages ?? [])
  for (const tag of wanted) {
    const language = tag.toLowerCase().split(/[-_]/)[0]
    if (messages[language]) return language
  }
  return "en"
}

// Private names with defaults: a store sets `--crypto-swap-accent` (on the element or any ancestor) to theme it.
const CSS = `
crypto-swap-checkout {
  --csc-ink: var(--crypto-swap-ink, #1b1f24); --csc-muted: var(--crypto-swap-muted, #5b6470);
  --csc-line: var(--crypto-swap-line, #e3e6ea); --csc-surface: var(--crypto-swap-surface, #fff);
  --csc-accent: var(--crypto-swap-accent, #3b5bdb); --csc-on-accent: var(--crypto-swap-on-accent, #fff);
  --csc-accent-soft: var(--crypto-swap-accent-soft, #edf2ff); --csc-soft: var(--crypto-swap-soft, #f1f3f5);
  --csc-ok: var(--crypto-swap-ok, #2b8a3e); --csc-ok-soft: var(--crypto-swap-ok-soft, #ebfbee);
  --csc-bad: var(--crypto-swap-bad, #c92a2a); --csc-bad-soft: var(--crypto-swap-bad-soft, #fff5f5);
  --csc-warning-ink: var(--crypto-swap-warning-ink, #a34700); --csc-warning-bg: var(--crypto-swap-warning-bg, #fff4e6);
  --csc-warning-line: var(--crypto-swap-warning-line, #ffd8a8);
  --csc-radius: var(--crypto-swap-radius, 8px); --csc-qr-size: var(--crypto-swap-qr-size, 240px);
  display: block; color: var(--csc-ink); font-family: var(--crypto-swap-font, inherit);
}
crypto-swap-checkout [hidden] { display: none !important; }
crypto-swap-checkout .csc-heading { margin: 0 0 8px; font-size: 1.35em; }
crypto-swap-checkout .csc-heading:focus { outline: none; }
crypto-swap-checkout :focus-visible { outline: 3px solid var(--csc-accent); outline-offset: 2px; }
crypto-swap-checkout .csc-row { display: flex; gap: 12px; align-items: center; flex-wrap: wrap; }
crypto-swap-checkout .csc-between { justify-content: space-between; }
crypto-swap-checkout .csc-muted { color: var(--csc-muted); }
crypto-swap-checkout .csc-error { color: var(--csc-bad); margin-top: 8px; }
crypto-swap-checkout .csc-button { font: inherit; border: 0; border-radius: var(--csc-radius); padding: 9px 16px; background: var(--csc-accent); color: var(--csc-on-accent); cursor: pointer; display: inline-block; text-decoration: none; text-align: center; }
crypto-swap-checkout .csc-button.csc-secondary { background: var(--csc-surface); color: var(--csc-ink); border: 1px solid var(--csc-line); }
crypto-swap-checkout .csc-button:disabled { opacity: 0.5; cursor: default; }
crypto-swap-checkout .csc-refund { display: grid; gap: 8px; justify-items: start; }
crypto-swap-checkout .csc-refund label, crypto-swap-checkout .csc-refund input { width: 100%; box-sizing: border-box; }
crypto-swap-checkout select, crypto-swap-checkout input { font: inherit; color: inherit; padding: 8px 10px; border: 1px solid var(--csc-line); border-radius: var(--csc-radius); background: var(--csc-surface); }
crypto-swap-checkout .csc-pay { display: grid; grid-template-columns: var(--csc-qr-size) 1fr; gap: 24px; margin-top: 12px; }
crypto-swap-checkout .csc-qr svg { width: var(--csc-qr-size); height: var(--csc-qr-size); display: block; border: 1px solid var(--csc-line); border-radius: var(--csc-radius); background: #fff; }
crypto-swap-checkout .csc-qr.csc-empty { width: var(--csc-qr-size); height: var(--csc-qr-size); display: grid; place-items: center; color: var(--csc-muted); border: 1px dashed var(--csc-line); border-radius: var(--csc-radius); text-align: center; padding: 16px; box-sizing: border-box; }
crypto-swap-checkout .csc-wallet { display: block; width: var(--csc-qr-size); margin-top: 12px; box-sizing: border-box; }
crypto-swap-checkout .csc-field { margin-bottom: 12px; }
crypto-swap-checkout .csc-label { display: block; font-size: 12px; text-transform: uppercase; letter-spacing: .04em; color: var(--csc-muted); }
crypto-swap-checkout .csc-mono { font-family: ui-monospace, SFMono-Regular, Menlo, monospace; word-break: break-all; }
crypto-swap-checkout .csc-big { font-size: 20px; font-weight: 600; }
crypto-swap-checkout .csc-status { display: inline-block; border-radius: 99px; padding: 3px 12px; font-weight: 600; background: var(--csc-accent-soft); color: var(--csc-accent); }
crypto-swap-checkout .csc-status.csc-ok { background: var(--csc-ok-soft); color: var(--csc-ok); }
crypto-swap-checkout .csc-status.csc-bad { background: var(--csc-bad-soft); color: var(--csc-bad); }
crypto-swap-checkout .csc-warning { background: var(--csc-warning-bg); border: 1px solid var(--csc-warning-line); color: var(--csc-warning-ink); border-radius: var(--csc-radius); padding: 8px 12px; margin: 8px 0; }
crypto-swap-checkout .csc-steps { list-style: none; padding: 0; margin: 12px 0 0; display: flex; gap: 8px; flex-wrap: wrap; }
crypto-swap-checkout .csc-steps li { font-size: 12px; padding: 3px 10px; border-radius: 99px; background: var(--csc-soft); color: var(--csc-muted); }
crypto-swap-checkout .csc-steps li.csc-done { background: var(--csc-ok-soft); color: var(--csc-ok); }
crypto-swap-checkout .csc-steps li.csc-current { background: var(--csc-accent-soft); color: var(--csc-accent); font-weight: 600; }
crypto-swap-checkout .csc-sr-only { position: absolute; width: 1px; height: 1px; padding: 0; margin: -1px; overflow: hidden; clip: rect(0 0 0 0); white-space: nowrap; border: 0; }
@media (max-width: 640px) { crypto-swap-checkout .csc-pay { grid-template-columns: 1fr; } }
`

// `data-text` and `data-label` name catalogue keys, filled in (again) whenever the language changes; `data-part`
// is how the code finds an element, `data-testid` how tests and the store's own scripts do.
const TEMPLATE = `
<section class="csc-picker" data-part="picker">
  <h2 class="csc-heading" tabindex="-1" data-text="picker.heading"></h2>
  <div class="csc-row">
    <label><span data-text="picker.coin"></span>
      <select data-testid="coin-select" data-part="coin"></select>
    </label>
    <button type="button" class="csc-button" data-testid="pay-button" data-part="pay" data-text="picker.continue" disabled></button>
  </div>
  <p class="csc-muted" data-testid="settle-info" data-part="settle-info"></p>
  <div class="csc-field" data-testid="estimate" data-part="estimate" aria-live="polite"></div>
  <div class="csc-error" data-testid="checkout-error" data-part="picker-error" role="alert"></div>
</section>
<section data-testid="payment-view" data-part="payment" hidden>
  <div class="csc-row csc-between">
    <h2 class="csc-heading" data-testid="headline" data-part="headline" tabindex="-1"></h2>
    <span class="csc-status" data-testid="payment-status" data-part="status"></span>
  </div>
  <p class="csc-muted" data-testid="next-step" data-part="next-step"></p>
  <div class="csc-pay">
    <div>
      <div class="csc-qr" data-testid="qr" data-part="qr"></div>
      <a class="csc-button csc-wallet" data-testid="wallet-link" data-part="wallet" data-text="pay.wallet" hidden></a>
    </div>
    <div>
      <div class="csc-field">
        <span class="csc-label" data-part="amount-label"></span>
        <div class="csc-big csc-mono" data-testid="deposit-amount" data-part="amount"></div>
      </div>
      <div class="csc-field">
        <span class="csc-label" data-text="pay.address"></span>
        <div class="csc-row">
          <span class="csc-mono" data-testid="deposit-address" data-part="address"></span>
          <button type="button" class="csc-button csc-secondary" data-testid="copy-address" data-part="copy" data-text="pay.copy" data-label="pay.copy_label"></button>
        </div>
      </div>
      <div class="csc-field" data-part="memo-field" hidden>
        <span class="csc-label" data-text="pay.memo"></span>
        <div class="csc-mono csc-big" data-testid="deposit-memo" data-part="memo"></div>
        <div class="csc-warning" data-testid="memo-warning" data-part="memo-warning"></div>
      </div>
      <div class="csc-field">
        <span class="csc-label" data-text="pay.time_left"></span>
        <div class="csc-big" data-testid="countdown" data-part="countdown" role="timer">–</div>
      </div>
      <div class="csc-field csc-muted" data-testid="settle" data-part="settle"></div>
      <div class="csc-field" data-testid="transactions" data-part="transactions"></div>
      <form class="csc-field csc-refund" data-testid="refund-form" data-part="refund-form" hidden>
        <label><span class="csc-label" data-part="refund-address-label"></span>
          <input class="csc-mono" data-testid="refund-address" data-part="refund-address" required maxlength="256" autocomplete="off" spellcheck="false">
        </label>
        <label data-part="refund-memo-field" hidden><span class="csc-label" data-text="refund.memo"></span>
          <input class="csc-mono" data-testid="refund-memo" data-part="refund-memo" maxlength="128" autocomplete="off" spellcheck="false">
        </label>
        <button type="submit" class="csc-button" data-testid="refund-submit" data-part="refund-submit" data-text="refund.submit"></button>
      </form>
      <div class="csc-row">
        <button type="button" class="csc-button" data-testid="requote" data-part="requote" data-text="pay.requote" hidden></button>
        <button type="button" class="csc-button" data-testid="top-up" data-part="top-up" data-text="pay.pay_rest" hidden></button>
      </div>
      <div class="csc-error" data-testid="payment-error" data-part="payment-error" role="alert"></div>
    </div>
  </div>
  <ul class="csc-steps" data-testid="status-steps" data-part="steps"></ul>
</section>
<div class="csc-sr-only" role="status" aria-live="polite" data-testid="announcer" data-part="announcer"></div>
`

let sheet
/** The styles, once per document or shadow root the element is in. */
function adoptStyles(root) {
  if ("adoptedStyleSheets" in root && typeof CSSStyleSheet === "function" && "replaceSync" in CSSStyleSheet.prototype) {
    if (!sheet) {
      sheet = new CSSStyleSheet()
      sheet.replaceSync(CSS)
    }
    if (!root.adoptedStyleSheets.includes(sheet)) root.adoptedStyleSheets = [...root.adoptedStyleSheets, sheet]
    return
  }
  // Browsers without constructable style sheets (Safari before 16.4).
  const parent = root.head ?? root
  if (parent.querySelector(`style[data-${TAG}]`)) return
  const style = document.createElement("style")
  style.setAttribute(`data-${TAG}`, "")
  style.textContent = CSS
  parent.prepend(style)
}

/**
 * A link from the store's answer, only with a scheme a payment page has use for (an explorer over
 * https, a wallet's own scheme): never `javascript:` or `data:`, whatever the answer says.
 */
function linkable(url) {
  if (typeof url !== "string") return undefined
  const scheme = /^([a-z][a-z0-9+.-]*):/i.exec(url)?.[1]?.toLowerCase()
  return scheme && !["javascript", "data", "vbscript", "file", "blob"].includes(scheme) ? url : undefined
}

const Base = globalThis.HTMLElement ?? class {}

export class CryptoSwapCheckout extends Base {
  static observedAttributes = ["backend-url", "publishable-key", "cart-id", "locale", "provider-id"]

  #run = 0
  /** "starting" (no cart yet, or finding its payment), "picker" or "payment". */
  #view = "starting"
  #session = null
  #providerId = null
  #payable = null
  #deadline = null
  #pollTimer = null
  /** Sessions the store answered 404 for: never opened again from the cart. */
  #gone = new Set()
  #countdownTimer = null
  #latestEstimate = 0
  #orderPlaced = false

  connectedCallback() {
    adoptStyles(this.getRootNode())
    if (!this.querySelector('[data-part="picker"]')) this.innerHTML = TEMPLATE
    this.#bind()
    this.#applyTexts()
    this.#start()
  }

  disconnectedCallback() {
    this.#stop()
  }

  attributeChangedCallback(name, before, after) {
    if (before === after || !this.isConnected || !this.#part("picker")) return
    if (name !== "locale") return this.#start()
    this.#applyTexts()
    // Everything the server said is said again in the new language.
    if (this.#view === "payment") this.refresh()
    else if (this.#view === "picker") this.#loadPicker(this.#run)
  }

  /** Reads the payment again now (after something outside the page moved it, e.g. a sandbox deposit). */
  refresh() {
    if (this.#view !== "payment" || !this.#session) return
    clearTimeout(this.#pollTimer)
    this.#poll(this.#run)
  }

  // -------------------------------------------------------------------------------------------
  // Plumbing

  #part(name) {
    return this.querySelector(`[data-part="${name}"]`)
  }

  get #language() {
    return languageFor(this.getAttribute("locale"))
  }

  /** Formatting follows the `locale` as given ("pt-BR"), texts its language. */
  get #formatLocale() {
    return this.getAttribute("locale") || undefined
  }

  #t(key, values = {}) {
    const text = messages[this.#language]?.[key] ?? messages.en[key] ?? key
    return text.replace(/\{(\w+)\}/g, (whole, name) => (name in values ? String(values[name]) : whole))
  }

  #applyTexts() {
    this.querySelectorAll("[data-text]").forEach((el) => (el.textContent = this.#t(el.dataset.text)))
    this.querySelectorAll("[data-label]").forEach((el) => el.setAttribute("aria-label", this.#t(el.dataset.label)))
    for (const section of this.querySelectorAll("section")) section.lang = this.#language
  }

  #bind() {
    this.#part("coin").onchange = () => this.#estimate(this.#run)
    this.#part("pay").onclick = () => this.#pay(this.#run)
    this.#part("copy").onclick = () =>
      navigator.clipboard
        ?.writeText(this.#part("address").textContent)
        .then(() => this.#announce(this.#t("pay.copied")))
        .catch(() => {})
    this.#part("requote").onclick = () => this.#act("requote", this.#run)
    this.#part("top-up").onclick = () => this.#act("top-up", this.#run)
    this.#part("refund-form").onsubmit = (event) => {
      event.preventDefault()
      this.#giveRefundAddress(this.#run)
    }
  }

  /** Read out by screen readers through the element's polite live region. */
  #announce(text) {
    this.#part("announcer").textContent = text
  }

  #emit(type, detail) {
    this.dispatchEvent(new CustomEvent(type, { detail, bubbles: true, composed: true }))
  }

  /** A store route: the publishable key, the shopper's language, and the store's own error message on a refusal. */
  async #call(method, route, { query = {}, body } = {}) {
    // Appended, not resolved: a backend behind a path prefix keeps it.
    const url = new URL(`${(this.getAttribute("backend-url") || location.origin).replace(/\/+$/, "")}${route}`)
    for (const [key, value] of Object.entries(query)) if (value) url.searchParams.set(key, value)
    if (this.getAttribute("locale")) url.searchParams.set("locale", this.getAttribute("locale"))
    const response = await fetch(url, {
      method,
      headers: {
        "x-publishable-api-key": this.getAttribute("publishable-key") ?? "",
        ...(body ? { "content-type": "application/json" } : {}),
      },
      body: body ? JSON.stringify(body) : undefined,
    })
    const data = await response.json().catch(() => ({}))
    if (!response.ok) throw Object.assign(new Error(data.message || this.#t("error.http", { status: response.status })), { status: response.status })
    return data
  }

  #stop() {
    this.#run += 1
    clearTimeout(this.#pollTimer)
    clearInterval(this.#countdownTimer)
  }

  #show(view) {
    this.#part("picker").hidden = view !== "picker"
    this.#part("payment").hidden = view !== "payment"
  }

  // -------------------------------------------------------------------------------------------
  // Start: the cart's crypto payment if it has one (a reload lands on the same payment page), else the picker

  async #start({ notice = "" } = {}) {
    this.#stop()
    const run = this.#run
    this.#session = null
    this.#payable = null
    this.#orderPlaced = false
    // What the last cart's payment said is not this one's.
    delete this.#part("status").dataset.announced
    delete this.#part("countdown").dataset.secondsLeft
    this.#part("payment-error").textContent = ""
    const cartId = this.getAttribute("cart-id")
    this.#show("picker")
    this.#view = "starting"
    if (!cartId) return
    try {
      const { cart } = await this.#call("GET", `/store/carts/${encodeURIComponent(cartId)}`, {
        query: { fields: "id,*payment_collection.payment_sessions,payment_collection.payment_sessions.data" },
      })
      if (run !== this.#run) return
      const wanted = this.getAttribute("provider-id")
      const session = cart.payment_collection?.payment_sessions?.find(
        (s) => (wanted ? s.provider_id === wanted : s.provider_id?.startsWith(PROVIDER_PREFIX)) && s.data?.shift_id && !this.#gone.has(s.id)
      )
      if (session) return this.#openPayment(session, run)
    } catch (error) {
      if (run === this.#run) this.#part("picker-error").textContent = error.message
      return
    }
    await this.#loadPicker(run)
    if (notice && run === this.#run) {
      this.#part("picker-error").textContent = notice
      this.#announce(notice)
    }
  }

  // -------------------------------------------------------------------------------------------
  // Coin picker and estimate

  async #loadPicker(run) {
    this.#view = "picker"
    const cartId = this.getAttribute("cart-id")
    const select = this.#part("coin")
    const chosen = select.value
    this.#part("picker-error").textContent = ""
    this.#part("estimate").textContent = ""
    this.#part("settle-info").textContent = ""
    select.innerHTML = ""
    select.append(new Option(this.#t("picker.loading"), ""))
    this.#part("pay").disabled = true
    try {
      // The service serves some countries only: crypto is not offered where the shopper can't use it.
      const { permissions } = await this.#call("GET", "/store/crypto-swap/permissions")
      if (run !== this.#run) return
      if (!permissions.create_shift) {
        select.innerHTML = ""
        this.#part("picker-error").textContent = this.#t("picker.unavailable")
        return
      }
      const { coins, settle, provider_id } = await this.#call("GET", "/store/crypto-swap/coins", {
        query: { cart_id: cartId, provider_id: this.getAttribute("provider-id") },
      })
      if (run !== this.#run) return
      this.#providerId = provider_id
      this.#part("settle-info").textContent = this.#t("picker.settle", { coin: settle.coin, network: settle.network, count: coins.length })
      select.innerHTML = ""
      for (const coin of coins) {
        for (const network of coin.networks) {
          const memo = network.memo ? ` · ${this.#t("picker.memo")}` : ""
          select.append(new Option(`${coin.coin} — ${coin.name} (${network.network})${memo}`, `${coin.coin}|${network.network}`))
        }
      }
      const values = [...select.options].map((option) => option.value)
      select.value = [chosen, PREFERRED_COIN].find((value) => values.includes(value)) ?? values[0] ?? ""
      await this.#estimate(run)
    } catch (error) {
      if (run === this.#run) this.#part("picker-error").textContent = error.message
    }
  }

  #chosenCoin() {
    const [coin, network] = this.#part("coin").value.split("|")
    return { coin, network }
  }

  async #estimate(run) {
    const { coin, network } = this.#chosenCoin()
    if (!coin) return
    // Only the estimate for the coin picked last is shown: an earlier answer may arrive after it.
    const request = ++this.#latestEstimate
    const box = this.#part("estimate")
    this.#part("pay").disabled = true
    box.textContent = this.#t("picker.estimating")
    this.#part("picker-error").textContent = ""
    try {
      const { estimate: e } = await this.#call("GET", "/store/crypto-swap/estimate", {
        query: { cart_id: this.getAttribute("cart-id"), coin, network, provider_id: this.getAttribute("provider-id") },
      })
      if (request !== this.#latestEstimate || run !== this.#run) return
      box.innerHTML = `<div class="csc-muted"></div><div class="csc-big csc-mono" data-testid="estimate-amount"></div><div class="csc-muted" data-testid="estimate-details"></div>`
      box.children[0].textContent = this.#t("picker.you_pay")
      box.children[1].textContent = `${e.deposit_amount} ${e.deposit_coin}`
      box.children[2].textContent = this.#t("picker.details", {
        amount: formatMoney(e.amount_due, e.currency_code, this.#formatLocale),
        rate: e.rate,
        settle: e.settle_coin,
        coin: e.deposit_coin,
        min: e.min,
        max: e.max,
      })
      this.#part("pay").disabled = false
    } catch (error) {
      if (request !== this.#latestEstimate || run !== this.#run) return
      box.textContent = ""
      this.#part("picker-error").textContent = error.message
    }
  }

  /** Medusa's own routes: the cart's payment collection (made if it has none), then a crypto session for the coin. */
  async #pay(run) {
    const { coin, network } = this.#chosenCoin()
    const cartId = this.getAttribute("cart-id")
    this.#part("pay").disabled = true
    this.#part("picker-error").textContent = ""
    try {
      const { payment_collection: collection } = await this.#call("POST", "/store/payment-collections", { body: { cart_id: cartId } })
      const providerId = this.getAttribute("provider-id") || this.#providerId
      const { payment_collection: updated } = await this.#call("POST", `/store/payment-collections/${collection.id}/payment-sessions`, {
        body: { provider_id: providerId, data: { deposit_coin: coin, deposit_network: network } },
      })
      if (run !== this.#run) return
      this.#openPayment(
        updated.payment_sessions.find((s) => s.provider_id === providerId),
        run,
        { focus: true }
      )
    } catch (error) {
      if (run !== this.#run) return
      this.#part("picker-error").textContent = error.message
      this.#part("pay").disabled = false
    }
  }

  // -------------------------------------------------------------------------------------------
  // Payment page: the live view, polled

  #openPayment(session, run, { focus = false } = {}) {
    this.#session = session
    this.#part("headline").textContent = this.#t("pay.loading")
    this.#view = "payment"
    this.#show("payment")
    // After the shopper's own step, focus follows to what the page now says (not on a resumed page).
    if (focus) this.#part("headline").focus()
    this.#part("payment-error").textContent = ""
    this.#part("qr").dataset.uri = ""
    clearTimeout(this.#pollTimer)
    clearInterval(this.#countdownTimer)
    this.#countdownTimer = setInterval(() => this.#tick(), 250)
    this.#poll(run)
  }

  async #poll(run) {
    const cartId = this.getAttribute("cart-id")
    try {
      const view = await this.#call("GET", `/store/crypto-swap/payment-sessions/${encodeURIComponent(this.#session.id)}`, { query: { cart_id: cartId } })
      if (run !== this.#run) return
      this.#render(view)
      this.#part("payment-error").textContent = ""
      const { payment } = view
      // Money coming back (its order canceled, or refunded instead) is followed until refunded, never announced as paid.
      if (payment.order_id && !payment.given_back) {
        const detail = { cartId, orderId: payment.order_id, payment }
        if (!this.#orderPlaced) {
          this.#orderPlaced = true
          this.#emit(EVENTS.orderPlaced, detail)
        }
        // The order exists once the payment is confirmed; it is followed until captured.
        if (payment.stage === "settled") {
          clearInterval(this.#countdownTimer)
          this.#emit(EVENTS.paid, detail)
          return
        }
      }
    } catch (error) {
      if (run !== this.#run) return
      // The store no longer knows this payment (the cart was paid another way, or another tab chose again):
      // the cart's current payment, or the picker, instead of asking about it forever.
      if (error.status === 404) {
        this.#gone.add(this.#session.id)
        return this.#start({ notice: this.#t("pay.gone") })
      }
      this.#part("payment-error").textContent = error.message
    }
    this.#pollTimer = setTimeout(() => this.#poll(run), POLL_MS)
  }

  /** Requote (a fresh quote and session for an expired one) or top-up (a second shift for what is missing). */
  async #act(action, run) {
    const button = this.#part(action)
    const cartId = this.getAttribute("cart-id")
    button.disabled = true
    try {
      const answer = await this.#call("POST", `/store/crypto-swap/payment-sessions/${encodeURIComponent(this.#session.id)}/${action}`, {
        body: { cart_id: cartId },
      })
      if (run !== this.#run) return
      // The button goes away with the state it answered: focus goes back to the headline.
      if (action === "requote") this.#openPayment(answer.payment_session, run, { focus: true })
      else {
        this.#part("qr").dataset.uri = ""
        this.#render(answer)
        this.#part("headline").focus()
        this.#part("payment-error").textContent = ""
      }
    } catch (error) {
      if (run === this.#run) this.#part("payment-error").textContent = error.message
    } finally {
      button.disabled = false
    }
  }

  /** Where the service sends back a deposit it can't use (late, wrong amount): the shopper's own address. */
  async #giveRefundAddress(run) {
    const button = this.#part("refund-submit")
    const memo = this.#part("refund-memo").value.trim()
    button.disabled = true
    try {
      await this.#call("POST", `/store/crypto-swap/payment-sessions/${encodeURIComponent(this.#session.id)}/refund-address`, {
        body: { cart_id: this.getAttribute("cart-id"), address: this.#part("refund-address").value.trim(), ...(memo ? { memo } : {}) },
      })
      if (run !== this.#run) return
      this.#announce(this.#t("refund.saved"))
      this.#part("payment-error").textContent = ""
      this.refresh()
    } catch (error) {
      if (run === this.#run) this.#part("payment-error").textContent = error.message
    } finally {
      button.disabled = false
    }
  }

  #render(view) {
    const { payment_session: session, payment } = view
    // An open top-up is what the shopper pays now: its address, amount, QR and deadline stand in for the payment's.
    const payable = payment.top_up ?? payment
    this.#payable = payable
    const total = formatMoney(session.amount, session.currency_code, this.#formatLocale)
    this.#part("headline").textContent = payment.headline
    this.#part("next-step").textContent = payment.top_up ? `${this.#t("pay.top_up")} ${payable.next_step}` : payment.next_step
    const status = this.#part("status")
    status.textContent = messages[this.#language]?.[`status.${payment.status}`] ?? messages.en[`status.${payment.status}`] ?? payment.status
    status.dataset.stage = payment.stage
    status.dataset.status = payment.status
    status.className = `csc-status${payment.stage === "settled" ? " csc-ok" : BAD_STAGES.has(payment.stage) ? " csc-bad" : ""}`
    // A stage the shopper has not heard yet (the first view included) is read out once.
    if (status.dataset.announced !== payment.stage) {
      status.dataset.announced = payment.stage
      this.#announce(`${payment.headline}. ${payment.next_step}`)
    }

    const qr = this.#part("qr")
    if (payable.qr_svg) {
      // The SVG is made on the server from the payment link, never from shopper input: safe to put in as is.
      if (qr.dataset.uri !== payable.payment_uri) {
        qr.innerHTML = payable.qr_svg
        qr.dataset.uri = payable.payment_uri ?? ""
        // The squares mean nothing read aloud: the box says what it holds instead.
        qr.querySelector("svg")?.setAttribute("aria-hidden", "true")
      }
      qr.className = "csc-qr"
      qr.setAttribute("role", "img")
      qr.setAttribute("aria-label", payable.qr_alt ?? payable.payment_uri ?? "")
    } else {
      qr.className = "csc-qr csc-empty"
      qr.dataset.uri = ""
      qr.removeAttribute("role")
      qr.removeAttribute("aria-label")
      const stage = payable.stage
      qr.textContent = this.#t(stage === "expired" ? "pay.qr_expired" : stage === "underpaid" ? "pay.qr_short" : SENT_BACK.has(stage) ? "pay.qr_sent_back" : "pay.qr_paid")
    }
    // Opens the shopper's wallet with the address, network and exact amount filled in.
    const wallet = this.#part("wallet")
    const walletUri = linkable(payable.wallet_uri)
    wallet.hidden = !walletUri
    if (walletUri) wallet.href = walletUri
    else wallet.removeAttribute("href")

    const deposit = payable.deposit
    const waiting = payable.stage === "awaiting_deposit"
    if (deposit.amount) {
      this.#part("amount-label").textContent = this.#t(waiting ? "pay.send_exactly" : "pay.amount")
      this.#part("amount").textContent = `${deposit.amount} ${deposit.coin}`
    } else {
      this.#part("amount-label").textContent = this.#t(waiting ? "pay.send_between" : "pay.accepted_range")
      this.#part("amount").textContent = this.#t("pay.range", { min: deposit.min, max: deposit.max, coin: deposit.coin })
    }
    this.#part("address").textContent = deposit.address ?? "–"
    this.#part("memo-field").hidden = !deposit.memo_required
    this.#part("memo").textContent = deposit.memo ?? ""
    this.#part("memo-warning").textContent = deposit.memo_warning ?? ""
    this.#part("settle").textContent = payment.top_up
      ? this.#t("pay.settle_rest", { network: deposit.network, amount: payable.amount_due, coin: payable.settle.coin, total })
      : this.#t("pay.settle", { network: deposit.network, amount: payment.settle.amount, coin: payment.settle.coin, total })

    const transactions = this.#part("transactions")
    transactions.innerHTML = ""
    for (const [kind, entry] of Object.entries(payable.transactions ?? {})) {
      if (!entry) continue
      const line = document.createElement("div")
      line.innerHTML = `<span class="csc-muted"></span> <a class="csc-mono" target="_blank" rel="noopener"></a>`
      line.querySelector("span").textContent = this.#t(`pay.tx.${kind}`)
      const link = line.querySelector("a")
      link.textContent = entry.hash
      const explorer = linkable(entry.url)
      if (explorer?.startsWith("https:")) link.href = explorer
      transactions.append(line)
    }

    // The form goes once the address is known; the headline takes its focus if it had it.
    const refundForm = this.#part("refund-form")
    const needed = payable.refund?.address_needed || payment.refund?.address_needed
    if (!needed && refundForm.contains(document.activeElement)) this.#part("headline").focus()
    refundForm.hidden = !needed
    this.#part("refund-address-label").textContent = this.#t("refund.address", { coin: deposit.coin, network: deposit.network })
    this.#part("refund-memo-field").hidden = !deposit.memo_required

    this.#deadline = payable.seconds_left === null || payable.seconds_left === undefined ? null : Date.now() + payable.seconds_left * 1000
    // As the route allows: an expired payment, or a fixed-rate one sent back once its refund address is known.
    const sentBackFixed = SENT_BACK.has(payment.stage) && Boolean(payment.deposit.amount) && !payment.refund?.address_needed
    this.#part("requote").hidden = payment.stage !== "expired" && !sentBackFixed
    this.#part("top-up").hidden = !payment.missing?.can_top_up || Boolean(payment.top_up)

    const index = STEPS.indexOf(payment.stage)
    const steps = this.#part("steps")
    steps.innerHTML = ""
    for (const [i, stage] of STEPS.entries()) {
      const li = document.createElement("li")
      li.textContent = this.#t(`step.${stage}`)
      li.dataset.stage = stage
      if (index >= 0 && i < index) li.className = "csc-done"
      if (i === index) li.className = stage === "settled" ? "csc-done" : "csc-current"
      steps.append(li)
    }
    this.#tick()
    this.#emit(EVENTS.update, { cartId: this.getAttribute("cart-id"), session: this.#session, payment })
  }

  #tick() {
    const el = this.#part("countdown")
    const payable = this.#payable
    if (!payable) return
    if (payable.stage === "expired") return void (el.textContent = this.#t("pay.expired"))
    if (payable.stage !== "awaiting_deposit") return void (el.textContent = this.#t("pay.received"))
    if (!this.#deadline) return void (el.textContent = this.#t("pay.no_deadline"))
    const left = Math.max(0, Math.round((this.#deadline - Date.now()) / 1000))
    // The countdown is not a live region (it would talk every second): the last minute is said once.
    const before = Number(el.dataset.secondsLeft)
    if (before > LAST_MINUTE_S && left <= LAST_MINUTE_S && left > 0) this.#announce(this.#t("pay.last_minute"))
    el.textContent = `${Math.floor(left / 60)}:${String(left % 60).padStart(2, "0")}`
    el.dataset.secondsLeft = String(left)
  }
}

if (globalThis.customElements && !customElements.get(TAG)) customElements.define(TAG, CryptoSwapCheckout)
