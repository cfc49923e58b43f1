// The demo's storefront: one page (demo/storefront) bundled with esbuild at start, plus a tiny
// proxy to the sandbox's control interface so the page's "Simulate deposit" needs no CORS. The page's
// payment component comes from the plugin's packed tarball in demo/node_modules, through its "exports".
import { readFile } from "node:fs/promises"
import http from "node:http"
import path from "node:path"

const SHIFT_ID = /^[A-Za-z0-9_-]{4,64}$/
const AMOUNT = /^\d{1,12}(\.\d{1,18})?$/
/** The statuses a happy-path deposit walks through after arriving (`pending`). */
const WALK = ["processing", "settling", "settled"]

async function control(sandboxUrl, method, route, body) {
  const response = await fetch(`${sandboxUrl}/sandbox${route}`, {
    method,
    headers: { "content-type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  })
  const text = await response.text()
  let data
  try {
    data = text ? JSON.parse(text) : {}
  } catch {
    data = { raw: text }
  }
  return { status: response.status, data }
}

/**
 * Simulates a shopper's deposit on the sandbox and walks it to `settled`, one status every `stepMs`,
 * so a payment page sees each stage. Resolves after the deposit arrived; the walk goes on.
 */
export async function simulateDeposit(sandboxUrl, shiftId, { amount, stepMs = 2500, log = () => {} } = {}) {
  const deposit = await control(sandboxUrl, "POST", `/shifts/${encodeURIComponent(shiftId)}/deposit`, amount ? { amount } : {})
  if (deposit.status >= 300) return deposit
  const walk = (async () => {
    for (const status of WALK) {
      await new Promise((r) => setTimeout(r, stepMs))
      const moved = await control(sandboxUrl, "POST", `/shifts/${encodeURIComponent(shiftId)}/status`, { status })
      if (moved.status >= 300) {
        log(`sandbox: shift ${shiftId} could not move to ${status}: ${JSON.stringify(moved.data)}`)
        return
      }
      log(`sandbox: shift ${shiftId} -> ${status}`)
    }
  })()
  walk.catch((error) => log(`sandbox: walking shift ${shiftId} failed: ${error.message}`))
  return { ...deposit, walk }
}

async function bundle(rootDir) {
  const esbuild = await import("esbuild")
  const result = await esbuild.build({
    entryPoints: [path.join(rootDir, "demo/storefront/app.js")],
    bundle: true,
    format: "esm",
    platform: "browser",
    target: "es2020",
    minify: true,
    write: false,
    logLevel: "silent",
    absWorkingDir: rootDir,
  })
  return result.outputFiles[0].text
}

function readBody(req, limit = 10_000) {
  return new Promise((resolve, reject) => {
    let body = ""
    req.on("data", (chunk) => {
      body += chunk
      if (body.length > limit) {
        reject(new Error("body too large"))
        req.destroy()
      }
    })
    req.on("end", () => resolve(body))
    req.on("error", reject)
  })
}

function send(res, status, type, body) {
  res.writeHead(status, { "content-type": type, "cache-control": "no-store" })
  res.end(body)
}
const json = (res, status, data) => send(res, status, "application/json", JSON.stringify(data))

/**
 * Starts the storefront server. `config` is what the page needs: backendUrl, publishableKey,
 * providerId, regions' currencies; read at each page load, so a caller may complete it once the
 * server listens.
 */
export async function startStorefront({ rootDir, port, host = "127.0.0.1", sandboxUrl, config, stepMs = 2500, log = () => {} }) {
  const [script, template] = await Promise.all([bundle(rootDir), readFile(path.join(rootDir, "demo/storefront/index.html"), "utf8")])
  const html = () =>
    template.replace("<!--DEMO_CONFIG-->", `<script>window.__DEMO__ = ${JSON.stringify(config).replace(/</g, "\\u003c")}</script>`)

  const server = http.createServer(async (req, res) => {
    try {
      const url = new URL(req.url, "http://localhost")
      if (req.method === "GET" && (url.pathname === "/" || url.pathname === "/index.html")) return send(res, 200, "text/html; charset=utf-8", html())
      if (req.method === "GET" && url.pathname === "/app.js") return send(res, 200, "text/javascript; charset=utf-8", script)
      if (req.method === "GET" && url.pathname === "/health") return json(res, 200, { ok: true })
      if (req.method === "POST" && url.pathname === "/demo/simulate-deposit") {
        const { shift_id: shiftId, amount } = JSON.parse((await readBody(req)) || "{}")
        if (typeof shiftId !== "string" || !SHIFT_ID.test(shiftId)) return json(res, 400, { message: "shift_id is required" })
        if (amount !== undefined && (typeof amount !== "string" || !AMOUNT.test(amount))) return json(res, 400, { message: "amount must be a decimal string" })
        const result = await simulateDeposit(sandboxUrl, shiftId, { amount, stepMs, log })
        log(`sandbox: deposit on shift ${shiftId} -> ${result.status}`)
        return json(res, result.status === 201 || result.status === 200 ? 200 : result.status, result.data)
      }
      if (req.method === "POST" && url.pathname === "/demo/advance-clock") {
        const { seconds = 900 } = JSON.parse((await readBody(req)) || "{}")
        const result = await control(sandboxUrl, "POST", "/clock", { advanceSeconds: Math.min(Math.max(Number(seconds) || 0, 0), 86_400) })
        log(`sandbox: clock moved ${seconds}s`)
        return json(res, result.status, result.data)
      }
      return json(res, 404, { message: "Not found" })
    } catch (error) {
      return json(res, 500, { message: error.message })
    }
  })
  await new Promise((resolve, reject) => {
    server.once("error", reject)
    server.listen(port, host, resolve)
  })
  const address = server.address()
  return {
    url: `http://localhost:${address.port}`,
    port: address.port,
    close: () =>
      new Promise((resolve) => {
        server.close(() => resolve())
        server.closeAllConnections()
      }),
  }
}
