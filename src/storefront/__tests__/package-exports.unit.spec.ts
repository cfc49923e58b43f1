import { execFileSync } from "node:child_process"
import { existsSync, readFileSync } from "node:fs"
import path from "node:path"

// The storefront component ships as plain ESM beside the plugin's build: these check that what the export map
// names is in the source tree, ships in the packed package, and loads by the package's name where there is no DOM
// (a Next.js server render).
const ROOT = path.resolve(__dirname, "../../..")
const pkg = JSON.parse(readFileSync(path.join(ROOT, "package.json"), "utf8"))
const STOREFRONT = ["./storefront", "./storefront/react"] as const

/** Runs an ES module in a Node of its own, from the package root, and gives what it printed as JSON. */
function runModule(source: string) {
  const out = execFileSync(process.execPath, ["--input-type=module", "-e", source], { cwd: ROOT, encoding: "utf8" })
  return JSON.parse(out)
}

describe("medusa-payment-crypto-swap/storefront", () => {
  it("names files that exist, and ships them", () => {
    const targets = STOREFRONT.flatMap((entry) => Object.values(pkg.exports[entry] as Record<string, string>))
    for (const target of targets) expect(existsSync(path.join(ROOT, target))).toBe(true)

    const [packed] = JSON.parse(
      execFileSync("npm", ["pack", "--dry-run", "--json", "--ignore-scripts"], { cwd: ROOT, encoding: "utf8", stdio: ["ignore", "pipe", "ignore"] })
    )
    const files = new Set<string>(packed.files.map((file: { path: string }) => file.path))
    for (const target of targets) expect(files.has(target.replace(/^\.\//, ""))).toBe(true)
    expect([...files].filter((file) => file.startsWith("src/") && (!file.startsWith("src/storefront/") || file.includes("__tests__")))).toEqual([])
  })

  it("imports by the package's name without a DOM, and the React wrapper renders the element with its attributes", () => {
    const result = runModule(`
      import { createElement } from "react"
      import { renderToString } from "react-dom/server"
      const element = await import("${pkg.name}/storefront")
      const { CryptoSwapCheckout } = await import("${pkg.name}/storefront/react")
      const html = renderToString(createElement(CryptoSwapCheckout, { backendUrl: "https://api.example.com", publishableKey: "pk_1", cartId: "cart_1", locale: "de", className: "pay" }))
      console.log(JSON.stringify({ tag: element.TAG, events: element.EVENTS, html }))
    `)
    expect(result.tag).toBe("crypto-swap-checkout")
    expect(result.events.orderPlaced).toBe("crypto-swap-order-placed")
    expect(result.html).toBe(
      '<crypto-swap-checkout backend-url="https://api.example.com" publishable-key="pk_1" cart-id="cart_1" locale="de" class="pay"></crypto-swap-checkout>'
    )
  })

  it("has every text in every shipped language, with no placeholder English lacks", () => {
    const { messages } = runModule(`
      const { messages } = await import("${pkg.name}/storefront")
      console.log(JSON.stringify({ messages }))
    `) as { messages: Record<string, Record<string, string>> }
    expect(Object.keys(messages).sort()).toEqual(["de", "en", "es", "fr", "pt"])
    const placeholders = (text: string) => new Set(text.match(/\{\w+\}/g) ?? [])
    for (const [language, texts] of Object.entries(messages)) {
      expect({ language, keys: Object.keys(texts).sort() }).toEqual({ language, keys: Object.keys(messages.en).sort() })
      for (const [key, text] of Object.entries(texts)) {
        const extra = [...placeholders(text)].filter((name) => !placeholders(messages.en[key]).has(name))
        expect({ language, key, extra }).toEqual({ language, key, extra: [] })
      }
    }
  })
})
