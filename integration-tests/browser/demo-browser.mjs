// What the browser test files share: the demo stack (`scripts/demo.mjs`) started and stopped, a
// headless Chromium, pages that record their errors, screenshots into test-artifacts/, the axe-core
// check, and the way from the product list to the payment page. Not a test file itself (node --test skips its name).
import assert from "node:assert/strict"
import { spawn } from "node:child_process"
import { existsSync, mkdirSync } from "node:fs"
import { createRequire } from "node:module"
import path from "node:path"
import { fileURLToPath } from "node:url"
import { chromium } from "playwright-core"
import { CHROMIUM_PATH as CHROMIUM } from "../../scripts/lib/chromium.mjs"

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..")
export const ARTIFACTS = path.join(ROOT, "test-artifacts")

/**
 * Starts `scripts/demo.mjs` on a database of its own and resolves `ready` with the URLs it reports.
 * Two demos must not run at once (they share demo/'s installed build and the dashboard's Vite cache):
 * the browser test files run one after the other (`--test-concurrency=1`).
 */
export function startDemo({ database, admin = true }) {
  // Any free ports, each taken by the server that listens on it: none can be taken between a pick and a bind.
  const PORT_FLAGS = ["--port", "0", "--storefront-port", "0", "--sandbox-port", "0"]
  // A database of its own, dropped first: the user's demo store keeps its state, and no payment a
  // previous run left open (its sandbox is gone) is synced here.
  const args = ["scripts/demo.mjs", "--database", database, "--fresh", ...PORT_FLAGS]
  if (!admin) args.push("--no-admin")
  if (process.env.DEMO_NO_BUILD === "1") args.push("--no-build")
  const child = spawn(process.execPath, args, { cwd: ROOT, stdio: ["ignore", "pipe", "pipe"], env: { ...process.env, NO_COLOR: "1" } })
  let output = ""
  /** starting, then running (what it says is echoed), then stopping. */
  let phase = "starting"
  const ready = new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`The demo was not ready after 300s:\n${output.slice(-4000)}`)), 300_000)
    const onData = (chunk) => {
      output += chunk
      // What the demo says once ready (the sandbox's moves, a store that stopped or restarted) shows in the test output.
      if (phase === "running") process.stderr.write(`demo ${database}: ${chunk}`)
      if (phase !== "starting") return
      const line = output.split("\n").find((l) => l.startsWith("DEMO_READY "))
      if (line) {
        phase = "running"
        clearTimeout(timer)
        resolve(JSON.parse(line.slice("DEMO_READY ".length)))
      }
    }
    child.stdout.on("data", onData)
    child.stderr.on("data", onData)
    child.once("exit", (code) => {
      clearTimeout(timer)
      reject(new Error(`The demo exited (${code}) before it was ready:\n${output.slice(-4000)}`))
    })
  })
  return { child, ready, output: () => output, quiet: () => (phase = "stopping") }
}

/** Stops a demo `startDemo` started: Ctrl-C first (it stops its servers in order), then a kill. */
export async function stopDemo(demo) {
  if (!demo?.child || demo.child.exitCode !== null) return
  const exited = new Promise((resolve) => demo.child.once("exit", resolve))
  demo.quiet()
  demo.child.kill("SIGINT")
  await Promise.race([exited, new Promise((r) => setTimeout(r, 20_000))])
  if (demo.child.exitCode === null) demo.child.kill("SIGKILL")
}

export async function launchChromium() {
  assert.ok(existsSync(CHROMIUM), `No Chromium at ${CHROMIUM}: apt-get install -y chromium, or set CHROMIUM_PATH`)
  mkdirSync(ARTIFACTS, { recursive: true })
  return chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update", "--no-first-run"],
  })
}

/** A page in a context of its own (`options`: Playwright's, e.g. the browser's `locale`), collecting uncaught exceptions and console errors. */
export async function newPage(browser, options = {}) {
  const context = await browser.newContext({ viewport: { width: 1100, height: 900 }, ...options })
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

const AXE_SCRIPT = createRequire(import.meta.url).resolve("axe-core/axe.min.js")

/**
 * Runs axe-core on the page as it is and adds what it found to `findings` (for a report); fails on a serious or
 * critical violation.
 */
export async function assertAccessible(page, label, findings = []) {
  await page.addScriptTag({ path: AXE_SCRIPT })
  const { violations } = await page.evaluate(() => window.axe.run(document, { resultTypes: ["violations"] }))
  const found = violations.map((v) => ({ id: v.id, impact: v.impact, help: v.help, targets: v.nodes.map((n) => n.target.join(" ")) }))
  findings.push({ view: label, violations: found })
  const blocking = found.filter((v) => v.impact === "serious" || v.impact === "critical")
  assert.deepEqual(blocking, [], `${label}: axe-core found ${JSON.stringify(blocking, null, 2)}`)
}

export const shot = (page, name) => page.screenshot({ path: path.join(ARTIFACTS, `${name}.png`), fullPage: true })
export const byTestId = (page, id) => page.locator(`[data-testid="${id}"]`)

/** Waits until the payment page shows the QR code and a running countdown. */
export async function paymentPageReady(page) {
  await byTestId(page, "payment-view").waitFor()
  await page.locator('[data-testid="qr"] svg').waitFor({ timeout: 30_000 })
  await page.waitForFunction(() => /^\d+:\d\d$/.test(document.querySelector("[data-testid=countdown]").textContent))
}

/** From the product list at `storefront` to the payment page, paying with `coin` on `network`. */
export async function checkout(page, storefront, { product = "hardware-wallet", coin = "BTC", network = "bitcoin", prefix }) {
  await page.goto(storefront)
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
  await paymentPageReady(page)
}
