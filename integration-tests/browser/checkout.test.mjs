// Browser tests of the demo storefront against the real demo stack (`scripts/demo.mjs`): a headless
// Chromium picks a product and a coin, sees the QR code and countdown, simulates the deposit and
// watches the status move to an order confirmation; a second test expires a quote and requotes; a
// third logs into the admin dashboard and finds the order captured, with the plugin's widget (loaded
// from the packed build). Screenshots go to test-artifacts/.
//
//   node --test integration-tests/browser/
//   DEMO_STOREFRONT_URL=http://localhost:8000 node --test integration-tests/browser/   (a running `npm run demo`)
//
// Needs Chromium: /usr/bin/chromium (Debian: apt-get install -y chromium) or CHROMIUM_PATH.
import assert from "node:assert/strict"
import { spawn } from "node:child_process"
import { existsSync, mkdirSync } from "node:fs"
import path from "node:path"
import { after, before, test } from "node:test"
import { fileURLToPath } from "node:url"
import { chromium } from "playwright-core"
import { CHROMIUM_PATH as CHROMIUM } from "../../scripts/lib/chromium.mjs"
import { freePort } from "../../scripts/lib/free-port.mjs"

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..")
const ARTIFACTS = path.join(ROOT, "test-artifacts")

let demo
let urls
let browser
let paidOrderId
// A shopper's own bitcoin address, for the refund.
const SHOPPER_BTC_ADDRESS = "bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq"


/** Starts `scripts/demo.mjs` with its admin dashboard and resolves with its URLs. */
async function startDemo() {
  const [port, storefrontPort, sandboxPort] = await Promise.all([freePort(), freePort(), freePort()])
  // A database of its own, dropped first: the user's demo store keeps its state, and no payment a
  // previous run left open (its sandbox is gone) is synced here.
  const args = ["scripts/demo.mjs", "--database", "crypto_swap_demo_browser", "--fresh", "--port", String(port), "--storefront-port", String(storefrontPort), "--sandbox-port", String(sandboxPort)]
  if (process.env.DEMO_NO_BUILD === "1") args.push("--no-build")
  const child = spawn(process.execPath, args, { cwd: ROOT, stdio: ["ignore", "pipe", "pipe"], env: { ...process.env, NO_COLOR: "1" } })
  let output = ""
  const ready = new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`The demo was not ready after 300s:\n${output.slice(-4000)}`)), 300_000)
    const onData = (chunk) => {
      output += chunk
      const line = output.split("\n").find((l) => l.startsWith("DEMO_READY "))
      if (line) {
        clearTimeout(timer)
        resolve(JSON.parse(line.slice("DEMO_READY ".length)))
      }
    }
    child.stdout.on("data", onData)
    child.stderr.on("data", (chunk) => (output += chunk))
    child.once("exit", (code) => {
      clearTimeout(timer)
      reject(new Error(`The demo exited (${code}) before it was ready:\n${output.slice(-4000)}`))
    })
  })
  return { child, ready, output: () => output }
}

before(async () => {
  assert.ok(existsSync(CHROMIUM), `No Chromium at ${CHROMIUM}: apt-get install -y chromium, or set CHROMIUM_PATH`)
  mkdirSync(ARTIFACTS, { recursive: true })
  if (process.env.DEMO_STOREFRONT_URL) {
    // Against a demo already running (`npm run demo`); note the requote test moves its sandbox clock.
    urls = { storefront: process.env.DEMO_STOREFRONT_URL, admin: process.env.DEMO_ADMIN_URL ?? null }
  } else {
    demo = await startDemo()
    urls = await demo.ready
  }
  browser = await chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update", "--no-first-run"],
  })
})

after(async () => {
  await browser?.close().catch(() => {})
  if (demo?.child && demo.child.exitCode === null) {
    const exited = new Promise((resolve) => demo.child.once("exit", resolve))
    demo.child.kill("SIGINT")
    await Promise.race([exited, new Promise((r) => setTimeout(r, 20_000))])
    if (demo.child.exitCode === null) demo.child.kill("SIGKILL")
  }
})

async function newPage() {
  const context = await browser.newContext({ viewport: { width: 1100, height: 900 } })
  const page = await context.newPage()
  const errors = []
  const consoleErrors = []
  page.on("pageerror", (error) => errors.push(error.message))
  page.on("console", (message) => {
    if (message.type() !== "error") return
    // React's warnings format their arguments ("%s"): keep them, they name the element and component.
    Promise.all(message.args().map((arg) => arg.jsonValue().catch(() => "")))
      .then((values) => consoleErrors.push(`${values.map(String).join(" ") || message.text()} ${message.location()?.url ?? ""}`.trim()))
      .catch(() => consoleErrors.push(message.text()))
  })
  return { page, errors, consoleErrors, context }
}

const shot = (page, name) => page.screenshot({ path: path.join(ARTIFACTS, `${name}.png`), fullPage: true })
const byTestId = (page, id) => page.locator(`[data-testid="${id}"]`)

/** From the product list to the payment page, paying with `coin` on `network`. */
async function checkout(page, { product = "hardware-wallet", coin = "BTC", network = "bitcoin", prefix }) {
  await page.goto(urls.storefront)
  await byTestId(page, "product-card").first().waitFor()
  if (prefix) await shot(page, `${prefix}-1-products`)
  await page.locator(`[data-testid="buy-button"][data-product="${product}"]`).click()

  await byTestId(page, "checkout-view").waitFor()
  await page.waitForFunction(() => document.querySelectorAll("[data-testid=coin-select] option").length > 5)
  await byTestId(page, "coin-select").selectOption(`${coin}|${network}`)
  await page.waitForFunction(
    (coin) => document.querySelector("[data-testid=estimate-amount]")?.textContent.endsWith(` ${coin}`),
    coin
  )
  await page.waitForFunction(() => !document.querySelector("[data-testid=pay-button]").disabled)
  assert.match(await byTestId(page, "estimate-amount").innerText(), new RegExp(`^[0-9.]+ ${coin}$`))
  if (prefix) await shot(page, `${prefix}-2-coin-picker`)
  await byTestId(page, "pay-button").click()

  await byTestId(page, "payment-view").waitFor()
  await page.locator('[data-testid="qr"] svg').waitFor({ timeout: 30_000 })
  await page.waitForFunction(() => /^\d+:\d\d$/.test(document.querySelector("[data-testid=countdown]").textContent))
}

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
