// Browser test of the admin's Crypto payments page (src/admin/routes/crypto-payments) against the real
// demo stack: two orders paid through the store API with the sandbox depositing (the demo's scripted
// shopper), a refund recorded on one of them through Medusa's admin API, then a headless Chromium
// opens the page, pages through it, filters by kind, resolves the refund waiting for an address from the attention
// filter, searches by order number and coin, and downloads the accounting export (CSV and JSON) of
// the date range shown. Screenshots admin-payments-1..n.png go to test-artifacts/.
//
//   node --test --test-concurrency=1 integration-tests/browser/   (with the other files; one demo at a time)
//   DEMO_NO_BUILD=1 node --test integration-tests/browser/admin-payments.test.mjs   (after a build)
//
// Needs Chromium: /usr/bin/chromium (Debian: apt-get install -y chromium) or CHROMIUM_PATH.
import assert from "node:assert/strict"
import { readFileSync } from "node:fs"
import path from "node:path"
import { after, before, test } from "node:test"
import { call, runShopper } from "../../scripts/lib/demo-shopper.mjs"
import { ARTIFACTS, byTestId, launchChromium, newPage as pageOf, shot, startDemo, stopDemo } from "./demo-browser.mjs"

// A shopper's own bitcoin address, for the refund.
const SHOPPER_BTC_ADDRESS = "bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq"

let demo
let urls
let browser
/** The orders the scripted shopper placed: { display_id, id, payment, ... } */
const orders = {}

before(async () => {
  demo = startDemo({ database: "crypto_swap_demo_admin_payments" })
  urls = await demo.ready
  browser = await launchChromium()
  const backendUrl = new URL(urls.store_api).origin
  const admin = { email: urls.admin_email, password: urls.admin_password }
  const quiet = { step: (_label, fn) => fn(), info: () => {} }
  for (const [coin, network] of [
    ["BTC", "bitcoin"],
    ["ETH", "ethereum"],
  ]) {
    orders[coin] = await runShopper({ backendUrl, sandboxUrl: urls.sandbox, publishableKey: urls.publishable_key, admin, coin, network, currency: "usd", ...quiet })
  }
  // A partial refund of the BTC order: the shopper gave no refund address at checkout, so its refund
  // shift waits for one (attention `refund_address_needed`) until the merchant gives it.
  const { token } = await call(backendUrl, "POST", "/auth/user/emailpass", { body: admin, repeatable: true })
  await call(backendUrl, "POST", `/admin/payments/${orders.BTC.payment.id}/refund`, { body: { amount: 10 }, headers: { authorization: `Bearer ${token}` } })
})

after(async () => {
  await browser?.close().catch(() => {})
  await stopDemo(demo)
})

/**
 * Waits until the list shows `count` rows for the filters in the URL, read afresh: neither an earlier
 * page standing in nor a cached answer being read again (after an action, a filter met before).
 */
async function listCount(page, count) {
  await page.waitForFunction(
    (count) => {
      const list = document.querySelector("[data-testid=crypto-swap-payments-list]")
      return list && list.dataset.loading === "false" && list.dataset.count === String(count)
    },
    count,
    { timeout: 30_000 }
  )
}

const rows = (page) => byTestId(page, "crypto-swap-payment-row")
const rowValues = (page, attribute) => rows(page).evaluateAll((all, attribute) => all.map((row) => row.getAttribute(attribute)), attribute)

/** Picks an option of one of the page's filter selects (Radix: a trigger, then a listbox). */
async function pick(page, id, option) {
  await byTestId(page, id).click()
  await page.getByRole("option", { name: option, exact: true }).click()
}

test("the admin's crypto payments page lists, filters, searches, resolves a refund and downloads the export", async (t) => {
  const { page, errors, consoleErrors, context } = await pageOf(browser)
  try {
    await page.setViewportSize({ width: 1440, height: 1200 })
    // Vite compiles the dashboard on its first visit.
    await page.goto(urls.admin, { timeout: 180_000 })
    await page.locator('input[name="email"]').waitFor({ timeout: 180_000 })
    await page.fill('input[name="email"]', urls.admin_email)
    await page.fill('input[name="password"]', urls.admin_password)
    await page.click('button[type="submit"]')
    await page.waitForURL(/\/app\/orders/, { timeout: 120_000 })

    // The page has its own entry in the sidebar.
    await page.getByRole("link", { name: "Crypto payments" }).first().click()
    await page.waitForURL(/\/app\/crypto-payments/)
    await byTestId(page, "crypto-swap-payments").waitFor({ timeout: 60_000 })
    // Two payments and the refund, newest first: the refund on top.
    await listCount(page, 3)
    assert.deepEqual(await rowValues(page, "data-kind"), ["refund", "payment", "payment"])
    assert.deepEqual(await rowValues(page, "data-attention"), ["refund_address_needed", "", ""])
    // Totals of what is shown: both payments captured in USD, the refund outstanding.
    const currency = byTestId(page, "crypto-swap-totals-currency").locator('tr[data-currency="usd"]')
    await currency.waitFor()
    const received = Number(await currency.locator('[data-testid="crypto-swap-total-received"]').innerText())
    assert.ok(Math.abs(received - (orders.BTC.total + orders.ETH.total)) < 1e-6, `received ${received} USD`)
    await shot(page, "admin-payments-1-list")

    // Paged on the server: two rows a page, then the next page holds the third.
    await page.goto(`${urls.admin}/crypto-payments?limit=2`)
    await listCount(page, 3)
    assert.equal(await rows(page).count(), 2)
    await page.getByRole("button", { name: "Next", exact: true }).click()
    await page.waitForURL(/[?&]offset=2\b/)
    await page.waitForFunction(() => document.querySelectorAll("[data-testid=crypto-swap-payment-row]").length === 1, null, { timeout: 30_000 })
    assert.deepEqual(await rowValues(page, "data-kind"), ["payment"])
    await page.goto(`${urls.admin}/crypto-payments`)
    await listCount(page, 3)

    // Filter by kind: only the refund, and the filter is in the URL.
    await pick(page, "crypto-swap-payments-kind", "Refund")
    await listCount(page, 1)
    assert.match(page.url(), /[?&]kind=refund\b/)
    assert.deepEqual(await rowValues(page, "data-kind"), ["refund"])
    await shot(page, "admin-payments-2-kind-refund")

    // What needs the merchant: the refund waiting for an address, resolved from here.
    await byTestId(page, "crypto-swap-payments-clear").click()
    await listCount(page, 3)
    await pick(page, "crypto-swap-payments-attention", "Needs attention")
    await listCount(page, 1)
    const refund = rows(page).first()
    assert.equal(await refund.getAttribute("data-attention"), "refund_address_needed")
    await refund.locator('[data-testid="crypto-swap-set-refund-address"]').click()
    await page.locator('[data-testid="crypto-swap-refund-address-input"]').fill(SHOPPER_BTC_ADDRESS)
    await shot(page, "admin-payments-3-attention")
    await page.locator('[data-testid="crypto-swap-refund-address-submit"]').click()
    // With the address the refund shift is made, and nothing needs attention any more.
    await listCount(page, 0)
    await byTestId(page, "crypto-swap-payments-empty").waitFor()

    // Search by order number, then by coin.
    await byTestId(page, "crypto-swap-payments-clear").click()
    await listCount(page, 3)
    assert.deepEqual(await rowValues(page, "data-attention"), ["", "", ""])
    await byTestId(page, "crypto-swap-payments-search").fill(`#${orders.ETH.display_id}`)
    await listCount(page, 1)
    assert.equal(await rows(page).first().locator("a", { hasText: `#${orders.ETH.display_id}` }).count(), 1)
    await byTestId(page, "crypto-swap-payments-search").fill("")
    await listCount(page, 3)
    await byTestId(page, "crypto-swap-payments-coin").fill("btc")
    // The BTC payment and its refund (paid out in BTC); not the ETH payment.
    await listCount(page, 2)
    assert.deepEqual(await rowValues(page, "data-kind"), ["refund", "payment"])
    await shot(page, "admin-payments-4-coin-btc")

    // The date range shown (today, UTC) and its accounting export.
    await byTestId(page, "crypto-swap-payments-clear").click()
    const today = new Date().toISOString().slice(0, 10)
    await byTestId(page, "crypto-swap-payments-from").fill(today)
    await byTestId(page, "crypto-swap-payments-to").fill(today)
    await page.waitForURL((url) => url.searchParams.get("from") === today && url.searchParams.get("to") === today)
    await listCount(page, 3)
    // The URL changes before the router's render of it commits: wait for the page to show the range.
    await byTestId(page, "crypto-swap-export-range").filter({ hasText: `${today} to ${today}` }).waitFor({ timeout: 30_000 })
    await shot(page, "admin-payments-5-range")

    const [csvDownload] = await Promise.all([page.waitForEvent("download"), byTestId(page, "crypto-swap-export-csv").click()])
    assert.equal(csvDownload.suggestedFilename(), `crypto-payments-${today}-${today}.csv`)
    const csvPath = path.join(ARTIFACTS, "admin-payments-export.csv")
    await csvDownload.saveAs(csvPath)
    const [header, ...lines] = readFileSync(csvPath, "utf8").split("\r\n").filter(Boolean)
    assert.match(header, /^id,kind,order_display_id,order_id,created_at,captured_at,status,attention,amount_due,currency_code,deposit_coin,/)
    assert.equal(lines.length, 3, `three lines: ${lines.join(" | ")}`)
    assert.ok(lines.some((line) => line.includes(`,payment,${orders.ETH.display_id},${orders.ETH.id},`)), "the ETH order's payment is a line")

    const [jsonDownload] = await Promise.all([page.waitForEvent("download"), byTestId(page, "crypto-swap-export-json").click()])
    assert.equal(jsonDownload.suggestedFilename(), `crypto-payments-${today}-${today}.json`)
    const jsonPath = path.join(ARTIFACTS, "admin-payments-export.json")
    await jsonDownload.saveAs(jsonPath)
    const exported = JSON.parse(readFileSync(jsonPath, "utf8"))
    assert.deepEqual(exported.map((line) => line.kind).sort(), ["payment", "payment", "refund"])

    for (const line of consoleErrors) t.diagnostic(`admin console: ${line.replace(/\s+/g, " ").slice(0, 600)}`)
    assert.deepEqual(errors, [])
  } finally {
    await context.close()
  }
})
