#!/usr/bin/env node
// `npm run demo`: crypto checkout in a real Medusa store on this machine, in one command, with no
// database, account or real money. Starts a PostgreSQL (the local one, else an embedded one), the
// swap-service sandbox, the demo store in demo/ (which installs the plugin's packed build as a store
// does) and a small storefront page; Ctrl-C stops everything.
//
// `npm run demo -- --once [--coin BTC --network bitcoin --currency usd]`: the same stack, a scripted
// shopper buys a product with that coin, and the command exits 0 only when the order exists with its
// payment captured (CI runs this).
//
// Other flags: --embedded-postgres (ignore localhost:5432), --no-build (reuse the last plugin build),
// --no-admin (skip the admin dashboard: `medusa start` instead of `medusa develop`),
// --port N (Medusa, default 9000), --storefront-port N (8000), --sandbox-port N (8788); 0 (and
// --once) takes any free port, and the DEMO_READY line at the end gives the addresses taken;
// --database NAME (default crypto_swap_demo), --fresh (drop that database first and seed again).
//
// The sandbox keeps its shifts in demo/.data/sandbox-{database}.json, so a payment still open when the
// demo stops goes on in the next run; --fresh starts both the database and the sandbox over.
import { spawn } from "node:child_process"
import { createHash } from "node:crypto"
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs"
import { createRequire } from "node:module"
import net from "node:net"
import path from "node:path"
import { fileURLToPath } from "node:url"
import { parseArgs } from "node:util"
import { cloneDatabase, copyDatabase, databaseUrl, ensureDatabase, lockAsTemplate, queryDemo } from "./lib/database.mjs"
import { runShopper } from "./lib/demo-shopper.mjs"
import { bold, cyan, dim, green, info, red, run, seconds, step, waitFor, yellow } from "./lib/demo-steps.mjs"
import { startStorefront } from "./lib/demo-storefront.mjs"
import { findOrStartPostgres } from "./lib/postgres.mjs"
import { freePort } from "./lib/free-port.mjs"

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..")
const DEMO = path.join(ROOT, "demo")
const DATA = path.join(DEMO, ".data")
const PACKAGE = "medusa-payment-crypto-swap"
const ADMIN = { email: "admin@example.com", password: "supersecret" }
// The sandbox accepts any account given at start; fixed values keep the store's config stable across runs.
const ACCOUNT = { id: "demo-store-account", secret: "demo-store-secret-not-real-money" }
const MEDUSA_CLI = createRequire(import.meta.url).resolve("@medusajs/cli/cli.js")

const { values: args } = parseArgs({
  options: {
    once: { type: "boolean", default: false },
    coin: { type: "string", default: "BTC" },
    network: { type: "string", default: "bitcoin" },
    currency: { type: "string", default: "usd" },
    "embedded-postgres": { type: "boolean", default: false },
    database: { type: "string", default: "crypto_swap_demo" },
    fresh: { type: "boolean", default: false },
    build: { type: "boolean", default: true },
    admin: { type: "boolean", default: true },
    port: { type: "string" },
    "storefront-port": { type: "string" },
    "sandbox-port": { type: "string" },
    help: { type: "boolean", default: false },
  },
  allowNegative: true,
  strict: true,
})

if (args.help) {
  console.log(readFileSync(fileURLToPath(import.meta.url), "utf8").split("\nimport ")[0].replace(/^#!.*\n/, "").replace(/^\/\/ ?/gm, ""))
  process.exit(0)
}

const once = args.once
// Non-interactive runs use free ports (CI machines may have anything on 9000) and no admin build.
const withAdmin = args.admin && !once

// ---------------------------------------------------------------------------------------------
// Shutdown: everything started is registered here and stopped in reverse order, once.
const cleanups = []
let shuttingDown = null
function shutdown(code) {
  if (shuttingDown) return shuttingDown
  shuttingDown = (async () => {
    if (cleanups.length) info(dim("Shutting down…"))
    for (const { label, fn } of cleanups.reverse()) {
      const t0 = Date.now()
      try {
        await Promise.race([fn(), new Promise((_, reject) => setTimeout(() => reject(new Error("timed out")), 15_000))])
        info(dim(`  stopped ${label} (${seconds(Date.now() - t0)})`))
      } catch (error) {
        info(yellow(`  stopping ${label} failed: ${error.message}`))
      }
    }
    process.exit(code)
  })()
  return shuttingDown
}
const onCleanup = (label, fn) => cleanups.push({ label, fn })
const SIGNALS = ["SIGINT", "SIGTERM", "SIGHUP"]
for (const signal of SIGNALS) {
  process.on(signal, () => {
    console.log("")
    info(`${signal} received`)
    shutdown(signal === "SIGINT" ? 0 : 1)
  })
}

// ---------------------------------------------------------------------------------------------
function portFree(port) {
  return new Promise((resolve) => {
    const server = net.createServer()
    server.once("error", () => resolve(false))
    server.listen(port, "0.0.0.0", () => server.close(() => resolve(true)))
  })
}
function portOpen(port) {
  return new Promise((resolve) => {
    const socket = net.connect(port, "127.0.0.1")
    socket.once("connect", () => {
      socket.destroy()
      resolve(true)
    })
    socket.once("error", () => resolve(false))
  })
}
/** The port asked for with --{name}; else the usual one (interactive runs keep the usual URLs), or 0 (any) with --once. */
function wantedPort(name, usual) {
  return Number(args[name] ?? (once ? 0 : usual))
}
const portTaken = (port, name) => new Error(`Port ${port} (--${name}) is in use`)

/**
 * Resolves with `start(port)`, which listens on the port: binding is the check, so nothing can take
 * the port between a check and the bind. A usual port in use gives way to any free one (0).
 */
async function listenOn(name, usual, start) {
  const port = wantedPort(name, usual)
  try {
    return await start(port)
  } catch (error) {
    if (error.code !== "EADDRINUSE") throw error
    if (args[name] !== undefined) throw portTaken(port, name)
    info(yellow(`Port ${port} is in use: using a free one instead`))
    return start(0)
  }
}

function hashFile(file) {
  return createHash("sha256").update(readFileSync(file)).digest("hex")
}

/** Builds the plugin and installs its packed tarball into demo/node_modules, as a store installs it. */
async function installPlugin() {
  if (args.build) {
    await step("Build the plugin (medusa plugin:build)", () => run(process.execPath, [MEDUSA_CLI, "plugin:build"], { cwd: ROOT }))
  } else if (!existsSync(path.join(ROOT, ".medusa/server/src"))) {
    throw new Error("--no-build, but the plugin was never built: run `npm run build` first")
  }
  const packDir = path.join(DATA, "pack")
  rmSync(packDir, { recursive: true, force: true })
  mkdirSync(packDir, { recursive: true })
  const tarball = await step("Pack the plugin (npm pack)", async () => {
    await run("npm", ["pack", "--pack-destination", packDir, "--ignore-scripts", "--silent"], { cwd: ROOT })
    const file = readdirSync(packDir).find((name) => name.endsWith(".tgz"))
    if (!file) throw new Error("npm pack wrote no tarball")
    return path.join(packDir, file)
  })
  const stamp = path.join(DATA, "installed-plugin.sha256")
  const digest = hashFile(tarball)
  const installed = path.join(DEMO, "node_modules", PACKAGE, "package.json")
  if (existsSync(installed) && existsSync(stamp) && readFileSync(stamp, "utf8") === digest) {
    info(`${green("✓")} Plugin tarball unchanged: demo/node_modules/${PACKAGE} is current`)
    return
  }
  // The Medusa packages (the plugin's peers, and the demo's own devDependencies so that the medusa CLI
  // knows it for a store) resolve from the repository's node_modules instead of a second install. npm
  // resolves a project's whole tree, dev dependencies included, even to install none of them (about a
  // minute for Medusa's): the tarball is installed in a folder of its own, whose node_modules becomes the demo's.
  const staging = path.join(DATA, "install")
  await step(`Install the tarball into demo/node_modules (npm install ${path.relative(DEMO, tarball)})`, async () => {
    rmSync(staging, { recursive: true, force: true })
    mkdirSync(staging, { recursive: true })
    writeFileSync(path.join(staging, "package.json"), JSON.stringify({ private: true }))
    const flags = ["--no-save", "--legacy-peer-deps", "--ignore-scripts", "--omit=peer", "--no-audit", "--no-fund", "--prefer-offline", "--loglevel=error"]
    await run("npm", ["install", ...flags, tarball], { cwd: staging })
    const modules = path.join(DEMO, "node_modules")
    // The dashboard's Vite cache stays: it is the demo's, not the plugin's.
    const viteCache = path.join(modules, ".vite")
    if (existsSync(viteCache)) renameSync(viteCache, path.join(staging, "node_modules", ".vite"))
    rmSync(modules, { recursive: true, force: true })
    renameSync(path.join(staging, "node_modules"), modules)
    rmSync(staging, { recursive: true, force: true })
  })
  writeFileSync(stamp, digest)
}

/** An embedded PostgreSQL a killed demo left running holds the data folder's lock: stop it first. */
async function stopLeftoverPostgres(dataDir) {
  const pidFile = path.join(dataDir, "postmaster.pid")
  if (!existsSync(pidFile)) return
  const pid = Number(readFileSync(pidFile, "utf8").split("\n")[0])
  if (!Number.isInteger(pid) || pid <= 0) return
  if (!running(pid)) return // PostgreSQL removes a stale lock itself
  info(yellow(`  an embedded PostgreSQL left running by an earlier demo (pid ${pid}) holds ${path.relative(process.cwd(), dataDir)}: stopping it`))
  process.kill(pid, "SIGINT")
  await waitFor(
    `PostgreSQL pid ${pid} to stop`,
    () => !running(pid),
    { timeoutMs: 15_000, everyMs: 200 }
  )
}

async function startPostgres() {
  const dataDir = path.join(DATA, "postgres")
  await stopLeftoverPostgres(dataDir)
  const signalListeners = Object.fromEntries(SIGNALS.map((signal) => [signal, process.listeners(signal)]))
  const server = await step("Find or start PostgreSQL", () =>
    findOrStartPostgres({ forceEmbedded: args["embedded-postgres"], dataDir, persistent: true, log: (line) => info(dim(`  postgres: ${line}`)) })
  )
  // embedded-postgres installs exit hooks that stop the cluster and exit on a signal, before this
  // script has stopped the store: drop them, this script stops the cluster last itself.
  for (const signal of SIGNALS) {
    for (const listener of process.listeners(signal)) {
      if (!signalListeners[signal].includes(listener)) process.off(signal, listener)
    }
  }
  if (server.embedded) {
    onCleanup("embedded PostgreSQL", () =>
      // A Ctrl-C in a terminal reaches the postgres process too (same process group): it may be down already.
      Promise.race([server.stop(), waitFor("PostgreSQL to stop", async () => !(await portOpen(server.port)), { timeoutMs: 14_000, everyMs: 250 })])
    )
    info(`  embedded PostgreSQL on port ${server.port}, data in ${bold(path.relative(process.cwd(), dataDir) || dataDir)} (kept for the next run; delete it to start over)`)
  } else {
    info(`  using the PostgreSQL at ${server.host}:${server.port}`)
  }
  if (!/^[a-z_][a-z0-9_]{0,62}$/.test(args.database)) throw new Error(`--database ${args.database}: use lower-case letters, digits and _`)
  // The test suite's demos (scripts/test.mjs) all start fresh, one after another, from the same build: the
  // first keeps its migrated and seeded database as DEMO_DB_TEMPLATE, the others clone it (~25 s less each).
  const template = args.fresh ? process.env.DEMO_DB_TEMPLATE : undefined
  const cloned = Boolean(template) && (await cloneDatabase(server, template, args.database))
  const created = cloned || (await ensureDatabase(server, args.database, { fresh: args.fresh }))
  info(`  database ${args.database} ${cloned ? `cloned from ${template}` : created ? (args.fresh ? "created afresh" : "created") : "exists"}`)
  return { server, url: databaseUrl(server, args.database), template, cloned }
}

async function startSwapSandbox() {
  const { startSandbox } = createRequire(path.join(DEMO, "package.json"))(`${PACKAGE}/sandbox`)
  // One per database: the store's open payments and the sandbox's shifts belong together.
  const stateFile = path.join(DATA, `sandbox-${args.database}.json`)
  if (args.fresh) rmSync(stateFile, { force: true })
  const sandbox = await step("Start the swap-service sandbox", () =>
    listenOn("sandbox-port", 8788, (port) => startSandbox({ port, host: "127.0.0.1", account: ACCOUNT, auto: false, stateFile }))
  )
  onCleanup("sandbox", () => sandbox.close())
  return sandbox
}

function medusa(command, extraArgs, env) {
  return run(process.execPath, [MEDUSA_CLI, command, ...extraArgs], { cwd: DEMO, env })
}

// One per database, as the sandbox's state: a demo on another database (a test's) never stops this one's store.
const MEDUSA_PID = path.join(DATA, `medusa-${args.database}.pid`)

/** Whether a process runs (a zombie, which a container's init may never reap, does not). */
function running(pid) {
  try {
    process.kill(pid, 0)
  } catch {
    return false
  }
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8")
    return stat.slice(stat.lastIndexOf(")") + 2)[0] !== "Z"
  } catch {
    return true // no /proc (macOS): kill(0) said it runs
  }
}

// Every demo wrote this one before each database had its own: read once after an upgrade, then gone.
const SHARED_MEDUSA_PID = path.join(DATA, "medusa.pid")

/** A store server a killed demo left running (it has its own process group): stop that group. */
async function stopLeftoverMedusa() {
  for (const pidFile of [MEDUSA_PID, SHARED_MEDUSA_PID]) await stopServerOf(pidFile)
}

async function stopServerOf(pidFile) {
  if (!existsSync(pidFile)) return
  const pid = Number(readFileSync(pidFile, "utf8"))
  rmSync(pidFile, { force: true })
  let cmdline = ""
  try {
    cmdline = readFileSync(`/proc/${pid}/cmdline`, "utf8")
  } catch {
    return // gone (or no /proc: nothing to check it against)
  }
  if (!cmdline.includes("@medusajs/cli/cli.js")) return
  info(yellow(`  a store server left running by an earlier demo (pid ${pid}) is stopped first`))
  try {
    process.kill(-pid, "SIGTERM")
  } catch {}
  // Its output pipes died with the old demo, so it may not finish a graceful stop: 5 s, then SIGKILL.
  await waitFor("the old store server to stop", () => !running(pid), { timeoutMs: 5_000, everyMs: 200 }).catch(() => {
    try {
      process.kill(-pid, "SIGKILL")
    } catch {}
  })
}

/**
 * Starts the store server with the environment `envFor(port)` and resolves with its port once it
 * answers /health. Medusa cannot take any free port and say which, so a picked port that another
 * process took before Medusa bound it is replaced by another pick.
 */
const SERVER_GONE = /Gracefully shutting down server|restarting dev server|Dev server failed/

async function startMedusa(envFor) {
  // The dashboard needs `medusa develop` (Vite serves it; ready in ~10 s) or `medusa build` before
  // `medusa start` (~30 s and 1.7 GB more): develop is the quicker way to a working admin here.
  const command = withAdmin ? "develop" : "start"
  const logFile = path.join(DATA, `medusa-${args.database}.log`)
  const { createWriteStream } = await import("node:fs")
  const log = createWriteStream(logFile, { flags: "w" })
  const wanted = wantedPort("port", 9000)
  let port = wanted && (args.port !== undefined || (await portFree(wanted))) ? wanted : await freePort()
  let child
  let healthy = false
  // The whole group: `medusa develop` forks the server as its own child.
  const kill = (signal) => {
    try {
      if (process.platform === "win32") child.kill(signal)
      else process.kill(-child.pid, signal)
    } catch {}
  }
  const stop = async () => {
    if (child.exitCode !== null || child.signalCode !== null) return
    const gone = new Promise((resolve) => child.once("exit", resolve))
    kill("SIGTERM")
    const timer = setTimeout(() => kill("SIGKILL"), 10_000)
    await gone
    clearTimeout(timer)
  }
  onCleanup(`Medusa (medusa ${command})`, async () => {
    if (!child) return
    await stop()
    rmSync(MEDUSA_PID, { force: true })
    log.end()
  })
  await step(`Start the store (medusa ${command}; log in ${path.relative(process.cwd(), logFile)})`, async () => {
    for (;;) {
      child = spawn(process.execPath, [MEDUSA_CLI, command, "--port", String(port)], {
        cwd: DEMO,
        env: { ...process.env, ...envFor(port) },
        stdio: ["ignore", "pipe", "pipe"],
        // Its own process group: Ctrl-C reaches this script, which stops the store (and develop's child) in order.
        detached: true,
      })
      writeFileSync(MEDUSA_PID, String(child.pid))
      let tail = ""
      // Its own server's word that it listens: a /health answer alone may come from whoever took the port.
      let listening = false
      const keep = (chunk) => {
        log.write(chunk)
        tail = (tail + chunk).slice(-8000)
        listening ||= tail.includes(`Server is ready on port: ${port}`)
        // `medusa develop` stays up when its server stops or restarts, so the exit below never says so: the log does.
        if (healthy && !shuttingDown && SERVER_GONE.test(String(chunk))) {
          info(red(`The store's server stopped or restarted; last lines of ${logFile}:`))
          console.log(tail.split("\n").slice(-30).join("\n"))
        }
      }
      child.stdout.on("data", keep)
      child.stderr.on("data", keep)
      let exited = null
      child.on("exit", (code, signal) => {
        exited = signal ?? `exit ${code}`
        if (healthy && !shuttingDown) {
          info(red(`The store stopped unexpectedly (${exited}); last lines of ${logFile}:`))
          console.log(tail.split("\n").slice(-30).join("\n"))
          shutdown(1)
        }
      })
      // `medusa develop` outlives a server that could not bind, waiting for a file change: the log says so.
      const portLost = () => tail.includes("EADDRINUSE")
      await waitFor(
        "the store to answer /health",
        async () =>
          exited || portLost() || (listening && (await fetch(`http://localhost:${port}/health`, { signal: AbortSignal.timeout(2000) })).ok),
        { timeoutMs: 240_000, everyMs: 500 }
      )
      if (!exited && !portLost()) break
      await stop()
      if (!portLost()) throw new Error(`medusa ${command} stopped (${exited}) before it answered; last lines of ${logFile}:\n${tail.split("\n").slice(-30).join("\n")}`)
      if (args.port !== undefined && wanted) throw portTaken(port, "port")
      const taken = port
      port = await freePort()
      info(yellow(`  port ${taken} was taken before the store bound it: trying ${port}`))
    }
    healthy = true
  })
  if (withAdmin && command === "develop") {
    // Vite compiles the dashboard in the browser's first visit (about 8 s here); this checks it is served.
    await step("Check the admin dashboard answers", async () => {
      const response = await fetch(`http://localhost:${port}/app`, { signal: AbortSignal.timeout(120_000) }).catch(() => null)
      if (!response?.ok) info(yellow("  the admin dashboard did not answer yet; it may take a moment on first open"))
    })
  }
  return port
}

async function main() {
  const t0 = Date.now()
  if (once) {
    // CI must never hang: the whole --once run normally takes well under two minutes.
    const limitS = Number(process.env.DEMO_ONCE_TIMEOUT_S || 600)
    setTimeout(() => {
      console.error(red(bold(`FAIL: --once did not finish within ${limitS}s`)))
      shutdown(1)
    }, limitS * 1000).unref()
  }
  console.log(bold(`Crypto checkout demo${once ? " (--once: a scripted shopper buys with " + args.coin + " on " + args.network + ")" : ""}`))
  mkdirSync(DATA, { recursive: true })
  await stopLeftoverMedusa()
  mkdirSync(DATA, { recursive: true })

  await installPlugin()
  const db = await startPostgres()
  const dbUrl = db.url
  const sandbox = await startSwapSandbox()

  const env = {
    NODE_ENV: "development",
    DATABASE_URL: dbUrl,
    DEMO_ADMIN: withAdmin ? "on" : "off",
    CRYPTO_SWAP_BASE_URL: sandbox.baseUrl,
    CRYPTO_SWAP_GRAPHQL_URL: sandbox.graphqlUrl,
    CRYPTO_SWAP_PAY_URL: sandbox.payUrl,
    CRYPTO_SWAP_ACCOUNT_ID: sandbox.account.id,
    CRYPTO_SWAP_PRIVATE_KEY: sandbox.account.secret,
    DEMO_ADMIN_EMAIL: ADMIN.email,
    DEMO_ADMIN_PASSWORD: ADMIN.password,
    MEDUSA_DISABLE_TELEMETRY: "true",
  }

  if (db.cloned) {
    info(`${green("✓")} Migrated and seeded already: the database is a copy of ${db.template}`)
  } else {
    await step("Run migrations (medusa db:migrate)", () => medusa("db:migrate", [], env))
    const seeded = await queryDemo(dbUrl, "select id from sales_channel where name = $1 and deleted_at is null", ["Crypto demo webshop"])
    if (seeded?.length) {
      info(`${green("✓")} Store already seeded (second run): regions, products, publishable key and admin user kept`)
    } else {
      await step("Seed the store (regions, products, publishable key, admin user)", () => medusa("exec", ["./scripts/seed.ts"], env))
    }
    // Before the store starts: nothing is connected to the database, and no payment is in it yet.
    if (db.template) {
      await step(`Keep the seeded database as ${db.template}`, async () => {
        await copyDatabase(db.server, args.database, db.template)
        await lockAsTemplate(db.server, db.template)
      })
    }
  }
  const [key] =
    (await queryDemo(
      dbUrl,
      "select token from api_key where title = $1 and type = 'publishable' and revoked_at is null and deleted_at is null order by created_at limit 1",
      ["Crypto demo storefront"]
    )) ?? []
  if (!key) throw new Error("The demo's publishable key is missing: run again with --fresh")

  const [open] =
    (await queryDemo(dbUrl, "select count(*)::int as n from crypto_swap_shift where terminal = false and shift_id is not null and deleted_at is null")) ?? []
  if (open?.n && !sandbox.restored) {
    info(
      yellow(
        `  ${open.n} crypto payment(s) from an earlier run are still open, but the sandbox's saved state is gone, so they can't move on and show up as failed syncs. \`npm run demo -- --fresh\` starts over.`
      )
    )
  }

  // The storefront listens first, so the store's CORS names its actual port; the page learns the
  // store's address once the store has bound one.
  const storefrontConfig = { publishableKey: key.token, providerId: "pp_crypto-swap_crypto-swap", sandboxUrl: sandbox.baseUrl }
  const storefront = await step("Start the storefront page (bundled with esbuild)", () =>
    listenOn("storefront-port", 8000, (port) =>
      startStorefront({ rootDir: ROOT, port, sandboxUrl: sandbox.baseUrl, stepMs: 2500, config: storefrontConfig, log: (line) => info(dim(line)) })
    )
  )
  onCleanup("storefront", () => storefront.close())
  const storefrontOrigins = [`http://localhost:${storefront.port}`, `http://127.0.0.1:${storefront.port}`].join(",")

  const medusaPort = await startMedusa((port) => {
    const adminOrigins = [`http://localhost:${port}`, `http://127.0.0.1:${port}`].join(",")
    return {
      ...env,
      MEDUSA_BACKEND_URL: `http://localhost:${port}`,
      STORE_CORS: storefrontOrigins,
      ADMIN_CORS: adminOrigins,
      AUTH_CORS: `${adminOrigins},${storefrontOrigins}`,
    }
  })
  const backendUrl = `http://localhost:${medusaPort}`
  storefrontConfig.backendUrl = backendUrl

  const urls = {
    storefront: storefront.url,
    store_api: `${backendUrl}/store`,
    admin: withAdmin ? `${backendUrl}/app` : null,
    admin_email: ADMIN.email,
    admin_password: ADMIN.password,
    sandbox: sandbox.baseUrl,
    publishable_key: key.token,
  }
  console.log("")
  console.log(bold(green(`The demo store is ready (${seconds(Date.now() - t0)}):`)))
  console.log(`  Storefront (pay in crypto)  ${cyan(urls.storefront)}`)
  console.log(`  Store API                   ${urls.store_api}   (x-publishable-api-key: ${urls.publishable_key})`)
  if (urls.admin) console.log(`  Admin dashboard             ${cyan(urls.admin)}   (${ADMIN.email} / ${ADMIN.password})`)
  console.log(`  Swap-service sandbox        ${urls.sandbox}   (control interface: ${urls.sandbox}/sandbox/..., no real money)`)
  console.log("")
  // One machine-readable line for tools that start the demo (browser tests).
  console.log(`DEMO_READY ${JSON.stringify(urls)}`)

  if (!once) {
    console.log(dim("Press Ctrl-C to stop everything."))
    return
  }

  console.log("")
  const order = await runShopper({
    backendUrl,
    sandboxUrl: sandbox.baseUrl,
    publishableKey: key.token,
    admin: ADMIN,
    coin: args.coin,
    network: args.network,
    currency: args.currency.toLowerCase(),
    step,
    info,
  })
  console.log("")
  console.log(bold(green(`PASS: order #${order.display_id} placed and its crypto payment captured (${seconds(Date.now() - t0)} in all)`)))
  await shutdown(0)
}

main().catch(async (error) => {
  console.error("")
  console.error(red(bold("FAIL: ")) + red(error.stack ?? String(error)))
  await shutdown(1)
})
