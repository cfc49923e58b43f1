// Browser tests of the payment page's wallet links and accessibility, in the demo storefront against
// the real demo stack: the "Open in wallet" button carries the exact amount for an EVM token and on
// Solana, a shopper pays by keyboard alone and hears status changes, and axe-core finds no serious or
// critical violation on any view. Screenshots and the axe report go to test-artifacts/.
//
//   node --test --test-concurrency=1 integration-tests/browser/   (with checkout.test.mjs; one demo at a time)
//   DEMO_NO_BUILD=1 node --test integration-tests/browser/wallet-and-a11y.test.mjs   (after a build)
//   DEMO_STOREFRONT_URL=http://localhost:8000 node --test integration-tests/browser/wallet-and-a11y.test.mjs
//
// Needs Chromium: /usr/bin/chromium (Debian: apt-get install -y chromium) or CHROMIUM_PATH.
import assert from "node:assert/strict"
import { writeFileSync } from "node:fs"
import path from "node:path"
import { after, before, test } from "node:test"
import BigNumber from "bignumber.js"
import {
  ARTIFACTS,
  assertAccessible as assertAccessibleIn,
  byTestId,
  checkout as checkoutOn,
  launchChromium,
  newPage as pageOf,
  paymentPageReady,
  shot,
  startDemo,
  stopDemo,
} from "./demo-browser.mjs"

/** The sandbox catalogue's contracts (src/sandbox/catalogue-data.ts), as the coins listing gives them. */
const USDT_BSC = { contract: "0x55d398326f99059ff775485246999027b3197955", decimals: 18 }
const USDC_SOLANA_MINT = "EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v"

let demo
let urls
let browser
const axeFindings = []

before(async () => {
  if (process.env.DEMO_STOREFRONT_URL) {
    urls = { storefront: process.env.DEMO_STOREFRONT_URL }
  } else {
    // No admin dashboard: these tests stay on the storefront, and `medusa start` is ready sooner.
    demo = startDemo({ database: "crypto_swap_demo_a11y", admin: false })
    urls = await demo.ready
  }
  browser = await launchChromium()
})

after(async () => {
  writeFileSync(path.join(ARTIFACTS, "axe-report.json"), JSON.stringify(axeFindings, null, 2))
  await browser?.close().catch(() => {})
  await stopDemo(demo)
})

const newPage = () => pageOf(browser)
const checkout = (page, options) => checkoutOn(page, urls.storefront, options)

/** The amount and address the page shows: "12.5 USDT" gives "12.5". */
async function shownPayment(page, coin) {
  const amount = (await byTestId(page, "deposit-amount").innerText()).replace(new RegExp(` ${coin}$`), "")
  assert.match(amount, /^\d+(\.\d+)?$/)
  return { amount, address: await byTestId(page, "deposit-address").innerText() }
}

/** The QR code is an image whose text alternative names the coin, the amount and the address. */
async function assertQrAlternative(page, { coin, amount, address }) {
  const qr = byTestId(page, "qr")
  assert.equal(await qr.getAttribute("role"), "img")
  const alt = await qr.getAttribute("aria-label")
  for (const part of [coin, amount, address]) assert.ok(alt.includes(part), `QR alternative "${alt}" names ${part}`)
  assert.equal(await qr.locator("svg").getAttribute("aria-hidden"), "true")
}

const assertAccessible = (page, label) => assertAccessibleIn(page, label, axeFindings)

const focused = (page) =>
  page.evaluate(() => {
    const el = document.activeElement
    return { tag: el.tagName.toLowerCase(), testid: el.dataset.testid ?? null, outline: getComputedStyle(el).outlineStyle }
  })

/** Presses Tab until the element with `testid` has focus (at most `limit` presses). */
async function tabTo(page, testid, limit = 30) {
  for (let i = 0; i < limit; i += 1) {
    if ((await focused(page)).testid === testid) return
    await page.keyboard.press("Tab")
  }
  assert.fail(`${testid} never got focus by Tab`)
}

/** Pays on a page of its own (a page resumes its last payment when reloaded), then runs `body` on it. */
async function onPaymentPage(coin, network, body) {
  const { page, errors, consoleErrors, context } = await newPage()
  try {
    await checkout(page, { product: "satoshi-t-shirt", coin, network })
    await body(page)
    assert.deepEqual([...errors, ...consoleErrors], [])
  } finally {
    await context.close()
  }
}

test("the wallet button pays an ERC-20 token with its contract, chain and exact amount in base units", async () => {
  await onPaymentPage("USDT", "bsc", async (page) => {
    const { amount, address } = await shownPayment(page, "USDT")
    const units = new BigNumber(amount).shiftedBy(USDT_BSC.decimals).integerValue(BigNumber.ROUND_UP).toFixed()
    const wallet = byTestId(page, "wallet-link")
    assert.equal(await wallet.innerText(), "Open in wallet")
    assert.equal(await wallet.getAttribute("href"), `ethereum:${USDT_BSC.contract}@56/transfer?address=${address}&uint256=${units}`)
    await assertQrAlternative(page, { coin: "USDT", amount, address })
    await shot(page, "wallet-1-usdt-bsc")
  })
})

test("on Solana the wallet button is a Solana Pay link, with the SPL mint for a token", async () => {
  await onPaymentPage("SOL", "solana", async (page) => {
    const sol = await shownPayment(page, "SOL")
    assert.equal(await byTestId(page, "wallet-link").getAttribute("href"), `solana:${sol.address}?amount=${sol.amount}`)
    await assertQrAlternative(page, { coin: "SOL", ...sol })
    await shot(page, "wallet-2-sol")
  })
  await onPaymentPage("USDC", "solana", async (page) => {
    const usdc = await shownPayment(page, "USDC")
    assert.equal(
      await byTestId(page, "wallet-link").getAttribute("href"),
      `solana:${usdc.address}?amount=${usdc.amount}&spl-token=${USDC_SOLANA_MINT}`
    )
    await shot(page, "wallet-3-usdc-solana")
  })
  // A memo network has no link standard that carries the memo: no button, the address and the warning.
  await onPaymentPage("XRP", "ripple", async (page) => {
    assert.equal(await byTestId(page, "wallet-link").isVisible(), false)
    assert.match(await byTestId(page, "memo-warning").innerText(), /memo/i)
    assert.match(await byTestId(page, "qr").getAttribute("aria-label"), /with the memo \d+/)
  })
})

test("a shopper pays by keyboard alone, with visible focus, and hears the status change", async () => {
  const { page, errors, consoleErrors, context } = await newPage()
  try {
    await page.goto(urls.storefront)
    await byTestId(page, "product-card").first().waitFor()
    // The first "Buy with crypto" button: the product list's order is the store's.
    await tabTo(page, "buy-button")
    assert.equal((await focused(page)).tag, "button")
    await page.keyboard.press("Enter")

    // Focus follows to the checkout's heading; the coin picker is the next stop.
    await byTestId(page, "checkout-view").waitFor()
    await page.waitForFunction(() => document.querySelectorAll("[data-testid=coin-select] option").length > 5)
    assert.equal((await focused(page)).tag, "h2")
    await page.keyboard.press("Tab")
    assert.equal((await focused(page)).testid, "coin-select")
    // Arrow keys choose in a closed select: from the default BTC to ETH on arbitrum.
    const target = "ETH|arbitrum"
    for (let i = 0; i < 40 && (await byTestId(page, "coin-select").inputValue()) !== target; i += 1) await page.keyboard.press("ArrowDown")
    assert.equal(await byTestId(page, "coin-select").inputValue(), target)
    await page.waitForFunction(() => document.querySelector("[data-testid=estimate-amount]")?.textContent.endsWith(" ETH"))
    await page.waitForFunction(() => !document.querySelector("[data-testid=pay-button]").disabled)
    await page.keyboard.press("Tab")
    const pay = await focused(page)
    assert.equal(pay.testid, "pay-button")
    assert.notEqual(pay.outline, "none", "the focused pay button shows its focus")
    await shot(page, "keyboard-1-pay-button-focused")
    await page.keyboard.press("Enter")

    await paymentPageReady(page)
    assert.equal((await focused(page)).testid, "headline")
    await page.waitForFunction(() => document.querySelector("[data-testid=announcer]").textContent.startsWith("Waiting for your payment."))
    // The wallet button comes first after the heading: one Tab from the headline to paying.
    await page.keyboard.press("Tab")
    const wallet = await focused(page)
    assert.equal(wallet.testid, "wallet-link")
    assert.notEqual(wallet.outline, "none")
    const { amount, address } = await shownPayment(page, "ETH")
    assert.equal(
      await byTestId(page, "wallet-link").getAttribute("href"),
      `ethereum:${address}@42161?value=${new BigNumber(amount).shiftedBy(18).integerValue(BigNumber.ROUND_UP).toFixed()}`
    )
    await shot(page, "keyboard-2-wallet-link-focused")

    await tabTo(page, "simulate-deposit")
    await page.keyboard.press("Enter")
    // The live region reads out the next stage: the page moved on without the shopper looking.
    await page.waitForFunction(() => !document.querySelector("[data-testid=announcer]").textContent.startsWith("Waiting for your payment"), null, {
      timeout: 30_000,
    })
    assert.match(await byTestId(page, "announcer").innerText(), /^Payment (detected|confirmed|complete)/)
    await byTestId(page, "order-confirmation").waitFor({ timeout: 60_000 })
    assert.equal((await focused(page)).tag, "h2")
    await shot(page, "keyboard-3-order-confirmed")
    assert.deepEqual([...errors, ...consoleErrors], [])
  } finally {
    await context.close()
  }
})

test("axe-core finds no serious or critical violation on the products, checkout, payment and order views", async () => {
  const { page, errors, consoleErrors, context } = await newPage()
  try {
    await page.goto(urls.storefront)
    await byTestId(page, "product-card").first().waitFor()
    await assertAccessible(page, "products")
    await page.locator('[data-testid="buy-button"][data-product="satoshi-t-shirt"]').click()
    await page.waitForFunction(() => document.querySelector("[data-testid=estimate-amount]"))
    await assertAccessible(page, "checkout")
    assert.deepEqual([...errors, ...consoleErrors], [])
  } finally {
    await context.close()
  }
  await onPaymentPage("USDT", "bsc", (page) => assertAccessible(page, "payment (token, wallet link)"))
  await onPaymentPage("XRP", "ripple", async (page) => {
    await assertAccessible(page, "payment (memo)")
    await byTestId(page, "simulate-deposit").click()
    await byTestId(page, "order-confirmation").waitFor({ timeout: 60_000 })
    await assertAccessible(page, "order confirmation")
    await shot(page, "a11y-order-confirmation")
  })
})
