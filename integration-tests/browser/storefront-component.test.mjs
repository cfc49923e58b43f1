// Browser tests of the plugin's drop-in payment component (<crypto-swap-checkout>, src/storefront) as the demo
// storefront uses it, against the real demo stack: a shopper pays in German (the store's `locale` passed to
// every store route, the component's own words from its catalogue, the server's from the store's) and switches
// to French on the payment page; a Portuguese browser gets Portuguese with nothing set; the page hears of the
// order through the component's events; a Spanish shopper whose deposit is sent back gives a refund address
// in the component and pays again with a new quote. Screenshots and the axe report go to test-artifacts/.
//
//   node --test --test-concurrency=1 integration-tests/browser/   (one demo at a time: demo-browser.mjs)
//   DEMO_STOREFRONT_URL=http://localhost:8000 node --test integration-tests/browser/storefront-component.test.mjs
//
// Needs Chromium: /usr/bin/chromium (Debian: apt-get install -y chromium) or CHROMIUM_PATH.
import assert from "node:assert/strict"
import { writeFileSync } from "node:fs"
import path from "node:path"
import { after, before, test } from "node:test"
import BigNumber from "bignumber.js"
import { ARTIFACTS, assertAccessible, byTestId, launchChromium, newPage, paymentPageReady, shot, startDemo, stopDemo } from "./demo-browser.mjs"

let demo
let urls
let browser
const axeFindings = []
// A shopper's own bitcoin address, for the refund.
const SHOPPER_BTC_ADDRESS = "bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq"

before(async () => {
  if (process.env.DEMO_STOREFRONT_URL) {
    urls = { storefront: process.env.DEMO_STOREFRONT_URL }
  } else {
    demo = startDemo({ database: "crypto_swap_demo_component", admin: false })
    urls = await demo.ready
  }
  browser = await launchChromium()
})

after(async () => {
  writeFileSync(path.join(ARTIFACTS, "axe-report-component.json"), JSON.stringify(axeFindings, null, 2))
  await browser?.close().catch(() => {})
  await stopDemo(demo)
})

const text = (page, id) => byTestId(page, id).innerText()

/** The store requests the page makes, to see which language each one asked for. */
function recordStoreRequests(page) {
  const requests = []
  page.on("request", (request) => {
    const url = new URL(request.url())
    if (url.pathname.startsWith("/store/crypto-swap/") || url.pathname.startsWith("/store/payment-collections")) {
      requests.push({ method: request.method(), path: url.pathname, locale: url.searchParams.get("locale") })
    }
  })
  return requests
}

/** Counts the component's events on the window (they bubble), with the last detail of each. */
const listenForEvents = (page) =>
  page.evaluate(() => {
    window.componentEvents = {}
    for (const type of ["crypto-swap-update", "crypto-swap-order-placed", "crypto-swap-paid"]) {
      window.addEventListener(type, (event) => {
        const seen = (window.componentEvents[type] ??= { count: 0 })
        seen.count += 1
        seen.orderId = event.detail.orderId ?? null
      })
    }
  })

/** From the product list to the coin picker, with the picker's coins and first estimate loaded. */
async function openPicker(page, url, product = "satoshi-t-shirt") {
  await page.goto(url)
  await page.locator(`[data-testid="buy-button"][data-product="${product}"]`).click()
  await byTestId(page, "checkout-view").waitFor()
  await page.waitForFunction(() => document.querySelectorAll("[data-testid=coin-select] option").length > 5)
  await byTestId(page, "estimate-amount").waitFor()
}

async function pay(page, coin, network) {
  await byTestId(page, "coin-select").selectOption(`${coin}|${network}`)
  await page.waitForFunction((coin) => document.querySelector("[data-testid=estimate-amount]")?.textContent.endsWith(` ${coin}`), coin)
  await page.waitForFunction(() => !document.querySelector("[data-testid=pay-button]").disabled)
  await byTestId(page, "pay-button").click()
  await paymentPageReady(page)
}

test("a shopper pays in German through the component, switches to French, and the page hears of the order", async () => {
  const { page, errors, consoleErrors, context } = await newPage(browser)
  const requests = recordStoreRequests(page)
  try {
    await openPicker(page, `${urls.storefront}/?locale=de`)
    await listenForEvents(page)
    // The component's words come from its catalogue, the store's refusals and views from the server's.
    assert.equal(await page.locator("crypto-swap-checkout h2").first().innerText(), "Mit Kryptowährung bezahlen")
    assert.equal(await text(page, "pay-button"), "Weiter zur Zahlung")
    assert.match(await text(page, "estimate"), /^Sie zahlen etwa\n/)
    assert.match(await text(page, "settle-info"), /^Der Shop erhält /)
    assert.equal(await page.getByLabel("Kryptowährung und Netzwerk").count(), 1)
    assert.equal(await page.locator("crypto-swap-checkout section").first().getAttribute("lang"), "de")
    await shot(page, "component-de-1-coin-picker")

    // XRP: a memo network, whose warning is the server's.
    await pay(page, "XRP", "ripple")
    assert.equal(await text(page, "headline"), "Wir warten auf Ihre Zahlung")
    assert.match(await text(page, "next-step"), /^Senden Sie vor Ablauf der Frist genau [0-9.]+ XRP über ripple mit dem Memo/)
    assert.equal(await text(page, "memo-warning"), "Geben Sie dieses Memo in Ihrer Transaktion an. Ohne Memo kann Ihre Einzahlung verloren gehen.")
    assert.match(await byTestId(page, "qr").getAttribute("aria-label"), /^QR-Code zum Bezahlen von [0-9.]+ XRP über ripple an die Adresse .+, mit dem Memo \d+\.$/)
    assert.equal(await text(page, "payment-status"), "wartet")
    assert.equal(await byTestId(page, "payment-status").getAttribute("data-status"), "waiting")
    assert.equal(await text(page, "copy-address"), "Kopieren")
    assert.equal(await byTestId(page, "copy-address").getAttribute("aria-label"), "Adresse kopieren")
    assert.match(await page.locator("crypto-swap-checkout").textContent(), /Verbleibende Zeit/)
    assert.match(await text(page, "status-steps"), /Warten auf Zahlung/)
    await page.waitForFunction(() => document.querySelector("[data-testid=announcer]").textContent.startsWith("Wir warten auf Ihre Zahlung."))
    await assertAccessible(page, "payment (German)", axeFindings)
    await shot(page, "component-de-2-payment-page")

    // Another language on the page: the component says everything again in it, the server's words included.
    await byTestId(page, "language-select").selectOption("fr")
    await page.waitForFunction(() => document.querySelector("[data-testid=headline]").textContent === "En attente de votre paiement")
    assert.equal(await text(page, "memo-warning"), "Indiquez ce mémo dans votre transaction. Sans lui, votre dépôt risque d’être perdu.")
    assert.equal(await text(page, "copy-address"), "Copier")
    assert.equal(await text(page, "payment-status"), "en attente")
    await shot(page, "component-fr-3-payment-page")

    // Every store route the component called asked in the page's language, Medusa's payment session route included.
    const asked = new Set(requests.map((r) => `${r.method} ${r.path.replace(/\/(cart|pay_col|payses)_\w+/g, "/:id")} ${r.locale}`))
    for (const route of [
      "GET /store/crypto-swap/permissions de",
      "GET /store/crypto-swap/coins de",
      "GET /store/crypto-swap/estimate de",
      "POST /store/payment-collections de",
      "POST /store/payment-collections/:id/payment-sessions de",
      "GET /store/crypto-swap/payment-sessions/:id de",
      "GET /store/crypto-swap/payment-sessions/:id fr",
    ]) {
      assert.ok(asked.has(route), `${route} in ${[...asked].join(", ")}`)
    }
    assert.deepEqual(requests.filter((r) => !["de", "fr"].includes(r.locale)), [])

    await byTestId(page, "simulate-deposit").click()
    await byTestId(page, "order-confirmation").waitFor({ timeout: 60_000 })
    const orderId = await text(page, "order-id")
    await page.waitForFunction(() => window.componentEvents["crypto-swap-paid"], null, { timeout: 60_000 })
    const events = await page.evaluate(() => window.componentEvents)
    assert.equal(events["crypto-swap-order-placed"].count, 1)
    assert.equal(events["crypto-swap-order-placed"].orderId, orderId)
    assert.equal(events["crypto-swap-paid"].count, 1)
    assert.ok(events["crypto-swap-update"].count >= 2)
    assert.equal(await byTestId(page, "order-payment-status").getAttribute("data-stage"), "settled")
    await shot(page, "component-fr-4-order-confirmed")
    assert.deepEqual([...errors, ...consoleErrors], [])
  } finally {
    await context.close()
  }
})

test("a Portuguese browser gets the component in Portuguese with no language set, and a reload lands on the same payment page", async () => {
  const { page, errors, consoleErrors, context } = await newPage(browser, { locale: "pt-BR" })
  const requests = recordStoreRequests(page)
  try {
    // The demo's "Browser's" language: no `locale` on the element, the browser's Accept-Language decides.
    await openPicker(page, `${urls.storefront}/?locale=`)
    assert.equal(await page.locator("crypto-swap-checkout").getAttribute("locale"), null)
    assert.equal(await text(page, "pay-button"), "Continuar para o pagamento")
    await pay(page, "USDT", "bsc")
    assert.equal(await text(page, "headline"), "Aguardando o seu pagamento")
    assert.equal(await text(page, "wallet-link"), "Abrir na carteira")
    assert.match(await byTestId(page, "wallet-link").getAttribute("href"), /^ethereum:0x[0-9a-f]{40}@56\/transfer\?address=/)
    assert.match(await byTestId(page, "qr").getAttribute("aria-label"), /^Código QR para pagar [0-9.]+ USDT na rede bsc ao endereço /)
    assert.deepEqual(requests.filter((r) => r.locale !== null), [])
    const address = await text(page, "deposit-address")
    await shot(page, "component-pt-1-payment-page")

    // The element finds the cart's crypto payment itself.
    await page.reload()
    await paymentPageReady(page)
    assert.equal(await text(page, "deposit-address"), address)
    assert.equal(await text(page, "headline"), "Aguardando o seu pagamento")
    assert.deepEqual([...errors, ...consoleErrors], [])
  } finally {
    await context.close()
  }
})

test("a payment another tab replaced: the component follows the cart's current payment instead of asking about the old one", async () => {
  const { page, errors, consoleErrors, context } = await newPage(browser)
  const requests = recordStoreRequests(page)
  try {
    await openPicker(page, urls.storefront)
    await pay(page, "BTC", "bitcoin")
    assert.match(await text(page, "deposit-amount"), / BTC$/)
    // The same cart in another tab chooses ETH: Medusa deletes the BTC session and makes another.
    const replaced = await page.evaluate(async () => {
      const element = document.querySelector("crypto-swap-checkout")
      const backend = (element.getAttribute("backend-url") || location.origin).replace(/\/+$/, "")
      const headers = { "x-publishable-api-key": element.getAttribute("publishable-key"), "content-type": "application/json" }
      const { cart } = await (await fetch(`${backend}/store/carts/${element.getAttribute("cart-id")}?fields=id,*payment_collection.payment_sessions`, { headers })).json()
      const [old] = cart.payment_collection.payment_sessions
      const response = await fetch(`${backend}/store/payment-collections/${cart.payment_collection.id}/payment-sessions`, {
        method: "POST",
        headers,
        body: JSON.stringify({ provider_id: old.provider_id, data: { deposit_coin: "ETH", deposit_network: "ethereum" } }),
      })
      if (!response.ok) throw new Error(await response.text())
      const { payment_collection } = await response.json()
      return { old: old.id, current: payment_collection.payment_sessions.find((session) => session.id !== old.id).id }
    })
    await page.waitForFunction(() => document.querySelector("[data-testid=deposit-amount]")?.textContent.endsWith(" ETH"), null, { timeout: 30_000 })
    await paymentPageReady(page)
    assert.equal(await page.locator('crypto-swap-checkout [data-part="payment-error"]').innerText(), "")
    // The old session was asked about until the store answered that it no longer knows it, then never again:
    // two more polls of the current one, none of the old.
    const asked = (id) => requests.filter((request) => request.path === `/store/crypto-swap/payment-sessions/${id}`).length
    const oldAsked = asked(replaced.old)
    const currentAsked = asked(replaced.current)
    while (asked(replaced.current) < currentAsked + 2) await page.waitForEvent("request")
    assert.equal(asked(replaced.old), oldAsked)
    await shot(page, "component-replaced-from-another-tab")
    assert.deepEqual(errors, [])
    // The one 404 the store answered about the replaced session, as the browser logs it.
    assert.deepEqual(consoleErrors.filter((line) => !/status of 404/.test(line)), [])
  } finally {
    await context.close()
  }
})

test("a deposit the service sends back asks for the shopper's refund address, given in the component (in Spanish)", async () => {
  const { page, errors, consoleErrors, context } = await newPage(browser)
  try {
    await openPicker(page, `${urls.storefront}/?locale=es`)
    await page.evaluate(() => window.addEventListener("crypto-swap-update", (event) => (window.shiftId = event.detail.session.data.shift_id)))
    await pay(page, "BTC", "bitcoin")
    // Half the amount on a fixed rate: the service holds the deposit to send it back.
    const amount = (await text(page, "deposit-amount")).replace(/ BTC$/, "")
    const wrong = new BigNumber(amount).div(2).toFixed(8, BigNumber.ROUND_DOWN)
    await page.evaluate(async (amount) => {
      const response = await fetch("/demo/simulate-deposit", {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ shift_id: window.shiftId, amount }),
      })
      if (!response.ok) throw new Error(await response.text())
    }, wrong)
    await byTestId(page, "refund-form").waitFor({ timeout: 30_000 })
    assert.match(await text(page, "headline"), /^Su pago se está reembolsando/)
    assert.match(await text(page, "next-step"), /Introduzca una dirección de BTC en bitcoin para recibir su reembolso\./)
    assert.equal(await page.getByLabel("Dirección de reembolso (BTC en bitcoin)").count(), 1)
    assert.equal(await byTestId(page, "refund-memo").isVisible(), false)
    await assertAccessible(page, "payment (refund address, Spanish)", axeFindings)
    await shot(page, "component-es-1-refund-address")

    // By keyboard: the address, then Enter sends the form.
    await byTestId(page, "refund-address").focus()
    await page.keyboard.type(SHOPPER_BTC_ADDRESS)
    await page.keyboard.press("Enter")
    await byTestId(page, "refund-form").waitFor({ state: "hidden", timeout: 30_000 })
    assert.equal(await page.evaluate(() => document.activeElement.dataset.testid), "headline")
    assert.doesNotMatch(await text(page, "next-step"), /Introduzca una dirección/)
    assert.equal(await text(page, "qr"), "Devuelto: no pague a esta dirección")
    await shot(page, "component-es-2-refund-address-given")

    // Then pays again, as the page says, with a new quote.
    const oldAddress = await text(page, "deposit-address")
    await byTestId(page, "requote").click()
    await page.waitForFunction(
      (old) => {
        const status = document.querySelector("[data-testid=payment-status]")
        return document.querySelector("[data-testid=deposit-address]").textContent !== old && status.dataset.status === "waiting"
      },
      oldAddress,
      { timeout: 20_000 }
    )
    await paymentPageReady(page)
    assert.equal(await text(page, "headline"), "Esperando su pago")
    await shot(page, "component-es-3-new-quote")
    assert.deepEqual([...errors, ...consoleErrors], [])
  } finally {
    await context.close()
  }
})
