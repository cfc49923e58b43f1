// Browser tests of the demo storefront against the real demo stack (`scripts/demo.mjs`): a headless
// Chromium picks a product and a coin, sees the QR code and countdown, simulates the deposit and
// watches the status move to an order confirmation; a second test expires a quote and requotes; one pays
// a short variable-rate deposit's rest with a top-up; a
// third logs into the admin dashboard and finds the order captured, with the plugin's widget (loaded
// from the packed build). Screenshots go to test-artifacts/.
//
//   node --test --test-concurrency=1 integration-tests/browser/   (one demo at a time: demo-browser.mjs)
//   DEMO_STOREFRONT_URL=http://localhost:8000 node --test integration-tests/browser/checkout.test.mjs   (a running `npm run demo`)
//
// Needs Chromium: /usr/bin/chromium (Debian: apt-get install -y chromium) or CHROMIUM_PATH.
import assert from "node:assert/strict"
import path from "node:path"
import { after, before, test } from "node:test"
import { ARTIFACTS, byTestId, checkout as checkoutOn, launchChromium, newPage as pageOf, shot, startDemo, stopDemo } from "./demo-browser.mjs"

let demo
let urls
let browser
let paidOrderId
// A shopper's own bitcoin address, for the refund.
const SHOPPER_BTC_ADDRESS = "bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq"

before(async () => {
  if (process.env.DEMO_STOREFRONT_URL) {
    // Against a demo already running (`npm run demo`); note the requote test moves its sandbox clock.
    urls = { storefront: process.env.DEMO_STOREFRONT_URL, admin: process.env.DEMO_ADMIN_URL ?? null }
  } else {
    demo = startDemo({ database: "crypto_swap_demo_browser" })
    urls = await demo.ready
  }
  browser = await launchChromium()
})

after(async () => {
  await browser?.close().catch(() => {})
  await stopDemo(demo)
})

const newPage = () => pageOf(browser)
const checkout = (page, options) => checkoutOn(page, urls.storefront, options)

test("a shopper pays with BTC: QR, countdown, simulated deposit, order confirmation", async () => {
  const { page, errors, consoleErrors, context } = await newPage()
  try {
    await checkout(page, { prefix: "checkout" })
    assert.equal(await byTestId(page, "headline").innerText(), "Waiting for your payment")
    assert.equal(await byTestId(page, "payment-status").innerText(), "waiting")
    assert.match(await byTestId(page, "deposit-address").innerText(), /^bc1/)
    assert.match(await byTestId(page, "deposit-amount").innerText(), /^[0-9.]+ BTC$/)
    // The countdown is live: it goes down while the page is open.
    const first = Number(await byTestId(page, "countdown").getAttribute("data-seconds-left"))
    assert.ok(first > 800, `countdown starts at ${first}s`)
    await page.waitForFunction((start) => Number(document.querySelector("[data-testid=countdown]").dataset.secondsLeft) < start, first)
    await shot(page, "checkout-3-payment-page")

    await byTestId(page, "simulate-deposit").click()
    // The status moves on from "waiting" while the sandbox walks the deposit (pending, processing, settling).
    await page.waitForFunction(() => document.querySelector("[data-testid=payment-status]").textContent !== "waiting", null, {
      timeout: 30_000,
    })
    const moving = await byTestId(page, "payment-status").innerText()
    await shot(page, "checkout-4-status-moving")
    assert.notEqual(moving, "waiting")

    await byTestId(page, "order-confirmation").waitFor({ timeout: 60_000 })
    paidOrderId = await byTestId(page, "order-id").innerText()
    assert.match(paidOrderId, /^order_/)
    await page.waitForFunction(() => document.querySelector("[data-testid=order-number]").textContent !== "", null, { timeout: 10_000 })
    // The page follows the payment until it is captured (settled), so nothing is left open when the demo stops.
    await page.waitForFunction(() => document.querySelector("[data-testid=order-payment-status]").dataset.stage === "settled", null, {
      timeout: 60_000,
    })
    assert.equal(await byTestId(page, "order-payment-status").innerText(), "complete (captured)")
    await shot(page, "checkout-5-order-confirmation")
    assert.deepEqual([...errors, ...consoleErrors], [])
  } finally {
    await context.close()
  }
})

test("an expired quote is requoted from the payment page", async () => {
  const { page, errors, consoleErrors, context } = await newPage()
  try {
    await checkout(page, { product: "satoshi-t-shirt", coin: "ETH", network: "ethereum" })
    const oldAddress = await byTestId(page, "deposit-address").innerText()
    await byTestId(page, "expire").click()
    await byTestId(page, "requote").waitFor({ state: "visible", timeout: 15_000 })
    assert.equal(await byTestId(page, "countdown").innerText(), "Expired")
    assert.equal(await byTestId(page, "headline").innerText(), "This payment request has expired")
    await shot(page, "requote-1-expired")

    await byTestId(page, "requote").click()
    await page.waitForFunction(
      (old) => {
        const address = document.querySelector("[data-testid=deposit-address]").textContent
        return address !== old && document.querySelector("[data-testid=payment-status]").textContent === "waiting"
      },
      oldAddress,
      { timeout: 20_000 }
    )
    await page.locator('[data-testid="qr"] svg').waitFor()
    // The sandbox clock is now ahead of real time, so the new deadline looks further away than 15 minutes.
    assert.match(await byTestId(page, "countdown").innerText(), /^\d+:\d\d$/)
    await shot(page, "requote-2-new-quote")
    assert.deepEqual([...errors, ...consoleErrors], [])
  } finally {
    await context.close()
  }
})

test("a short variable-rate deposit is topped up from the payment page, and the order is placed", async () => {
  const { page, errors, consoleErrors, context } = await newPage()
  try {
    await checkout(page, { product: "satoshi-t-shirt", coin: "ETH", network: "zksync" })
    assert.match(await byTestId(page, "deposit-amount").innerText(), /^[0-9.]+ and [0-9.]+ ETH$/)
    const firstAddress = await byTestId(page, "deposit-address").innerText()
    await byTestId(page, "simulate-short-deposit").click()
    // Judged as soon as the service prices the deposit: no order, and the page asks for the rest.
    await byTestId(page, "top-up").waitFor({ state: "visible", timeout: 30_000 })
    assert.equal(await byTestId(page, "headline").innerText(), "Payment received, but less than the amount due")
    assert.match(await byTestId(page, "next-step").innerText(), /^[0-9.]+ USD is still missing \(about [0-9.]+ ETH\)\. Pay the rest with a top-up/)
    await shot(page, "top-up-1-short")

    await byTestId(page, "top-up").click()
    await page.waitForFunction(
      (first) => {
        const address = document.querySelector("[data-testid=deposit-address]").textContent
        return address !== first && document.querySelector("[data-testid=next-step]").textContent.startsWith("Top-up for the rest:")
      },
      firstAddress,
      { timeout: 20_000 }
    )
    await page.locator('[data-testid="qr"] svg').waitFor()
    assert.match(await byTestId(page, "next-step").innerText(), /Send about [0-9.]+ ETH/)
    assert.equal(await byTestId(page, "top-up").isVisible(), false)
    await shot(page, "top-up-2-pay-the-rest")

    await byTestId(page, "simulate-deposit").click()
    await byTestId(page, "order-confirmation").waitFor({ timeout: 60_000 })
    await page.waitForFunction(() => document.querySelector("[data-testid=order-payment-status]").dataset.stage === "settled", null, {
      timeout: 60_000,
    })
    await shot(page, "top-up-3-order-confirmation")
    assert.deepEqual([...errors, ...consoleErrors], [])
  } finally {
    await context.close()
  }
})

test("a memo coin shows the memo and the warning not to send without it", async () => {
  const { page, errors, consoleErrors, context } = await newPage()
  try {
    await checkout(page, { product: "satoshi-t-shirt", coin: "XRP", network: "ripple" })
    await byTestId(page, "deposit-memo").waitFor()
    assert.match(await byTestId(page, "deposit-memo").innerText(), /^\d+$/)
    assert.match(await byTestId(page, "memo-warning").innerText(), /memo/i)
    assert.match(await byTestId(page, "deposit-amount").innerText(), /^[0-9.]+ XRP$/)
    await shot(page, "memo-1-payment-page")
    assert.deepEqual([...errors, ...consoleErrors], [])
  } finally {
    await context.close()
  }
})

test("the admin sees the order captured, with the plugin's crypto payments widget", async (t) => {
  if (!urls.admin) return t.skip("no admin dashboard (set DEMO_ADMIN_URL with DEMO_STOREFRONT_URL)")
  assert.ok(paidOrderId, "the checkout test placed no order")
  const { page, errors, consoleErrors, context } = await newPage()
  try {
    await page.setViewportSize({ width: 1280, height: 1400 })
    // Vite compiles the dashboard on its first visit.
    await page.goto(urls.admin, { timeout: 180_000 })
    await page.locator('input[name="email"]').waitFor({ timeout: 180_000 })
    await page.fill('input[name="email"]', urls.admin_email ?? "admin@example.com")
    await page.fill('input[name="password"]', urls.admin_password ?? "supersecret")
    await page.click('button[type="submit"]')
    await page.waitForURL(/\/app\/orders/, { timeout: 120_000 })
    await page.goto(`${urls.admin}/orders/${paidOrderId}`)
    const widget = page.locator("h2", { hasText: "Crypto payments" })
    await widget.waitFor({ timeout: 60_000 })
    await widget.scrollIntoViewIfNeeded()
    await page.getByText("Payment complete").first().waitFor({ timeout: 30_000 })
    assert.ok(await page.getByText("Captured").count(), "the order's payment shows Captured")
    await shot(page, "admin-order-captured")

    // The widget: the shift, its timeline from waiting to settled, and explorer links for both transactions.
    const payment = byTestId(page, "crypto-swap-shift").first()
    assert.equal(await payment.locator('[data-testid="crypto-swap-status-badge"]').getAttribute("data-status"), "settled")
    const timeline = await payment.locator('[data-testid="crypto-swap-timeline-event"]').evaluateAll((rows) => rows.map((row) => row.dataset.status))
    assert.ok(timeline.includes("waiting") && timeline.includes("settled"), `timeline ${timeline.join(" -> ")}`)
    for (const tx of ["crypto-swap-deposit-tx", "crypto-swap-settle-tx"]) {
      assert.match(await payment.locator(`a[data-testid="${tx}"]`).getAttribute("href"), /^https:\/\//, `${tx} links to an explorer`)
    }
    await byTestId(page, "crypto-swap-widget").screenshot({ path: path.join(ARTIFACTS, "admin-1-widget-settled.png") })

    // Refund via shift: Medusa's refund, then a refund shift that waits for the shopper's address.
    await payment.locator('[data-testid="crypto-swap-refund"]').click()
    await byTestId(page, "crypto-swap-refund-submit").click()
    await page.getByRole("alertdialog").getByRole("button", { name: "Refund" }).click()
    const refund = byTestId(page, "crypto-swap-shift").filter({ has: page.locator("h3", { hasText: /^Refund$/ }) })
    await refund.waitFor({ timeout: 60_000 })
    await refund.locator('[data-testid="crypto-swap-set-refund-address"]').click()
    await refund.locator('[data-testid="crypto-swap-refund-address-input"]').fill(SHOPPER_BTC_ADDRESS)
    await refund.locator('[data-testid="crypto-swap-refund-address-submit"]').click()
    // With the address the refund shift exists: the store funds it from the QR code shown.
    await refund.locator('[data-testid="crypto-swap-refund-deposit"] [data-testid="crypto-swap-qr"] svg').waitFor({ timeout: 60_000 })
    assert.match(await refund.locator('[data-testid="crypto-swap-refund-deposit-address"]').innerText(), /0x[0-9a-fA-F]{40}/)
    await byTestId(page, "crypto-swap-widget").screenshot({ path: path.join(ARTIFACTS, "admin-2-refund-shift-qr.png") })

    // Settings: credentials and reconciliation status, and registering the webhook with the service.
    await page.goto(`${urls.admin}/settings/crypto-swap`)
    await byTestId(page, "crypto-swap-settings").waitFor({ timeout: 60_000 })
    await page.locator('[data-testid="crypto-swap-credentials-badge"][data-valid="true"]').first().waitFor({ timeout: 30_000 })
    await byTestId(page, "crypto-swap-open-shifts").waitFor()
    const registered = await byTestId(page, "crypto-swap-webhook").count()
    await byTestId(page, "crypto-swap-register-webhook").click()
    await page.waitForFunction((before) => document.querySelectorAll("[data-testid=crypto-swap-webhook]").length > before, registered, { timeout: 30_000 })
    await shot(page, "admin-3-settings")
    // The dashboard runs React's development build under `medusa develop`, whose console warnings
    // are not failures; uncaught exceptions are.
    for (const line of consoleErrors) t.diagnostic(`admin console: ${line.replace(/\s+/g, " ").slice(0, 600)}`)
    assert.deepEqual(errors, [])
  } finally {
    await context.close()
  }
})
