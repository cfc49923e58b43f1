#!/usr/bin/env node
// The whole suite in one command (`npm test`): unit tests, then integration tests on a real Medusa
// app and real PostgreSQL (beside their start, one integration file again on an embedded PostgreSQL to
// prove the fallback a laptop without a database relies on), then the demo (`npm run demo -- --once`: a
// scripted shopper pays in the demo store) and the browser tests of its pages.
// Along the way it type-checks the tests and runs every benchmark small (`npm run bench -- --quick`).
// What keeps one core busy runs beside what leaves one idle, never more than a 2-core machine takes.
//   node scripts/test.mjs [unit|integration|reliability|bench|demo|fuzz|all] [-- extra jest args]
// (`reliability` runs only the reliability suite, which `integration` and `all` run with the HTTP one,
// `all` without arguments its flood beside the demo: see BESIDE_DEMO_FILE;
// `demo` runs the demo and the browser tests; `fuzz` (`npm run test:fuzz`) runs the property tests with a
// fresh random seed and more runs: see integration-tests/helpers/property-runs.ts.)
import { spawn } from "node:child_process"
import { randomInt } from "node:crypto"
import { availableParallelism, setPriority } from "node:os"
import { existsSync, mkdirSync, readFileSync, rmSync } from "node:fs"
import { CHROMIUM_PATH } from "./lib/chromium.mjs"
import { databaseUrl, dropDatabase, ensureDatabase, lockAsTemplate } from "./lib/database.mjs"
import path from "node:path"
import { fileURLToPath } from "node:url"
import { findOrStartPostgres } from "./lib/postgres.mjs"

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..")
const [what = "all", ...rest] = process.argv.slice(2).filter((arg) => arg !== "--")
const EMBEDDED_PROOF_FILE = "integration-tests/modules/payment-provider.spec.ts"
/**
 * Run by `npm test` (no arguments) beside the demo and browser tests rather than with the other integration
 * files: most of its time is a fixed two minutes of flood that no spare core shortens, and after the quick
 * benchmarks a core waits there with nothing to do (see the demo step). With arguments, it runs with the others.
 */
const BESIDE_DEMO_FILE = "integration-tests/reliability/flood.spec.ts"
const floodBesideDemo = what === "all" && rest.length === 0

const reports = path.join(root, ".tmp", "jest-reports")
rmSync(reports, { recursive: true, force: true })
mkdirSync(reports, { recursive: true })
const totals = { passed: 0, failed: 0, skipped: 0 }
let runs = 0

/**
 * Runs node with `args` and adds what it reports to the totals: a jest JSON or TAP report, else one test.
 * Asynchronously (not spawnSync): what runs beside it (runBeside) must go on being read and followed meanwhile.
 */
async function run(label, args, env = {}, report) {
  console.log(`\n=== ${label}`)
  const child = spawn(process.execPath, args, { cwd: root, stdio: "inherit", env: { ...process.env, ...env } })
  const status = await new Promise((resolve) => child.on("close", resolve))
  return countReport(status === 0, report)
}

/** Adds what a finished step reports to the totals (see run) and says whether it passed. */
function countReport(passed, report) {
  if (report?.endsWith(".json") && existsSync(report)) {
    const { numPassedTests, numFailedTests, numPendingTests, numRuntimeErrorTestSuites } = JSON.parse(readFileSync(report, "utf8"))
    totals.passed += numPassedTests
    totals.failed += numFailedTests + numRuntimeErrorTestSuites
    totals.skipped += numPendingTests
  } else if (report?.endsWith(".tap") && existsSync(report)) {
    const tap = readFileSync(report, "utf8")
    const count = (name) => Number(tap.match(new RegExp(`^# ${name} (\\d+)$`, "m"))?.[1] ?? 0)
    totals.passed += count("pass")
    totals.failed += count("fail") + count("cancelled")
    totals.skipped += count("skipped")
  } else {
    totals[passed ? "passed" : "failed"] += 1
  }
  return passed
}

/**
 * Runs node with `args` beside whatever runs next, its output held back and printed when it ends; the
 * promise says whether it passed (counted as `run` counts it). `background`: at a lower priority, so
 * that what it runs beside gets the cores first.
 */
function runBeside(label, args, report, env = {}, { background = false } = {}) {
  const child = spawn(process.execPath, args, { cwd: root, env: { ...process.env, ...env } })
  if (background) {
    try {
      setPriority(child.pid, 10)
    } catch {
      // Not allowed here: it runs at the same priority, as before.
    }
  }
  const output = []
  child.stdout.on("data", (chunk) => output.push(chunk))
  child.stderr.on("data", (chunk) => output.push(chunk))
  return new Promise((resolve) =>
    child.on("close", (code) => {
      console.log(`\n=== ${label} (ran beside the steps after it)`)
      process.stdout.write(Buffer.concat(output))
      resolve(countReport(code === 0, report))
    })
  )
}

const reportFile = (name, extension) => path.join(reports, `${++runs}-${name.replace(/[^\w-]+/g, "-")}.${extension}`)
const JEST = path.join(root, "node_modules/jest/bin/jest.js")
const MEDUSA = path.join(root, "node_modules/@medusajs/cli/cli.js")

/**
 * Integration files side by side: each waits much of its time on its app, the sandbox and PostgreSQL, so
 * two at once keep a 2-core machine busy. Each file has its own database, sandbox, ports and (for those
 * that use Redis) Redis database; `TEST_WORKERS` sets the count (1 runs them one by one).
 */
const INTEGRATION_WORKERS = Math.max(1, Number(process.env.TEST_WORKERS ?? Math.min(2, availableParallelism())))

/** Unit test files are independent and quick: two at a time on a 2-core machine. */
const UNIT_WORKERS = Math.max(1, Math.min(2, availableParallelism()))

/** A jest run's label, node arguments, environment and report file. */
function jestStep(testType, args, env = {}, workers = 1) {
  const report = reportFile(testType, "json")
  const parallel = workers > 1 ? [`--maxWorkers=${workers}`] : ["--runInBand"]
  const jestEnv = {
    TEST_TYPE: testType,
    NODE_OPTIONS: "--experimental-vm-modules",
    // The apps under test log their own requests at info level: keep the output to what matters.
    LOG_LEVEL: process.env.LOG_LEVEL ?? "error",
    ...env,
  }
  return { label: `jest ${testType} ${args.join(" ")}`, args: [JEST, ...parallel, "--forceExit", "--json", `--outputFile=${report}`, ...args], env: jestEnv, report }
}

function jest(testType, args, env = {}, workers = 1) {
  const step = jestStep(testType, args, env, workers)
  return run(step.label, step.args, step.env, step.report)
}

/** A jest run beside whatever runs meanwhile (see runBeside); the promise says whether it passed. */
function jestBeside(testType, args, env = {}, workers = 1) {
  const step = jestStep(testType, args, env, workers)
  return runBeside(step.label, step.args, step.report, step.env)
}

function dbEnv(db) {
  return { DB_HOST: db.host, DB_PORT: String(db.port), DB_USERNAME: db.user, DB_PASSWORD: db.password }
}

async function withPostgres(options, body) {
  const db = await findOrStartPostgres({ dataDir: path.join(root, ".tmp", "test-postgres"), ...options })
  console.log(db.embedded ? `Using embedded PostgreSQL on port ${db.port}` : `Using PostgreSQL at ${db.host}:${db.port}`)
  try {
    return await body(dbEnv(db), db)
  } finally {
    await db.stop()
  }
}

/**
 * A database migrated as each integration file's app would migrate its own (`medusa db:migrate`, less the
 * migration scripts, which Medusa's test runner leaves out too), for the files to clone instead
 * (integration-tests/helpers/medusa-test-utils.ts): about 10 s less per file, more under load. Made afresh
 * for each run, so it has this checkout's migrations, and dropped after it; should the migration fail, each
 * file migrates its own database as before (and meets the failure there).
 */
async function withMigratedTemplate(db, env, body) {
  // Of this run only: another run on the same PostgreSQL has its own.
  const template = `crypto_swap_test_template_${process.pid}`
  await ensureDatabase(db, template, { fresh: true })
  try {
    const started = Date.now()
    // Not spawnSync: what runs beside it (the modules step) must go on being read meanwhile (see run).
    const migrate = await spawnAndWait(process.execPath, [MEDUSA, "db:migrate", "--skip-scripts"], {
      cwd: root,
      // NODE_ENV as under jest, for medusa-config.ts's loadEnv.
      env: { ...process.env, ...env, NODE_ENV: "test", LOG_LEVEL: "error", DATABASE_URL: databaseUrl(db, template) },
    })
    if (migrate.status !== 0) {
      console.log(`${migrate.stdout}${migrate.stderr}\nNo database template (its migration failed): each integration file migrates its own database`)
      return await body(env)
    }
    await lockAsTemplate(db, template)
    console.log(`\nMigrated ${template}, which each integration file's database is cloned from (${Math.round((Date.now() - started) / 1000)} s)`)
    return await body({ ...env, CRYPTO_SWAP_TEST_DB_TEMPLATE: template })
  } finally {
    await dropDatabase(db, template)
  }
}

/** Runs a command to its end without blocking this process, its output captured: `{ status, stdout, stderr }`. */
function spawnAndWait(command, args, options) {
  const child = spawn(command, args, options)
  const stdout = []
  const stderr = []
  child.stdout.on("data", (chunk) => stdout.push(chunk))
  child.stderr.on("data", (chunk) => stderr.push(chunk))
  return new Promise((resolve) =>
    child.on("close", (status) => resolve({ status, stdout: Buffer.concat(stdout).toString(), stderr: Buffer.concat(stderr).toString() }))
  )
}

const failures = []
if (what === "unit" || what === "all") {
  // `npm ci` refuses a lock file that leaves out a platform's optional package: caught here first.
  if (!(await run("lock file completeness", ["scripts/check-lockfile.mjs"]))) failures.push("lock file")
  // The build type-checks the plugin; this covers what it leaves out: tests and benchmarks. It keeps one
  // core busy for a fraction of the unit tests' time: it runs beside them at a lower priority, so the two
  // unit test workers get the cores first and take both once it is done.
  const tscArgs = [path.join(root, "node_modules/typescript/bin/tsc"), "-p", "tsconfig.tests.json"]
  const types = runBeside("tsc -p tsconfig.tests.json", tscArgs, undefined, {}, { background: true })
  if (!(await jest("unit", rest, {}, UNIT_WORKERS))) failures.push("unit")
  if (!(await types)) failures.push("types")
}
if (what === "integration" || what === "all") {
  await withPostgres({}, async (env, db) => {
    // The modules file (one module, migrated by itself: it needs no template) and, in a full run, the same file
    // again on an embedded PostgreSQL run beside the template's migration: each keeps about one core busy.
    const modules = jestBeside("integration:modules", rest, env).then(async (passed) => {
      if (!passed) failures.push("integration:modules")
      if (what !== "all") return
      // Its own cluster and data directory, whatever PostgreSQL the rest uses (an embedded one is in .tmp/test-postgres).
      const proofOptions = { forceEmbedded: true, dataDir: path.join(root, ".tmp", "embedded-proof-postgres") }
      const proof = await withPostgres(proofOptions, (embeddedEnv) => jestBeside("integration:modules", [EMBEDDED_PROOF_FILE], embeddedEnv))
      if (!proof) failures.push("embedded postgres")
    })
    // The flood runs beside the demo instead (see BESIDE_DEMO_FILE).
    const leaveOut = floodBesideDemo ? ["--testPathIgnorePatterns=/node_modules/", `--testPathIgnorePatterns=${BESIDE_DEMO_FILE.replace(/\./g, "\\.")}`] : []
    // Only the app runner's files clone the template: the modules file migrates one module, quickly.
    return withMigratedTemplate(db, env, async (env) => {
      await modules
      if (!(await jest("integration:http+reliability", [...rest, ...leaveOut], env, INTEGRATION_WORKERS))) failures.push("integration:http+reliability")
    })
  })
}
if (what === "reliability") {
  await withPostgres({}, async (env) => {
    if (!(await jest("integration:reliability", rest, env, INTEGRATION_WORKERS))) failures.push("integration:reliability")
  })
}
if (what === "fuzz") {
  // Property tests only, with a seed drawn now (or FC_SEED's) and five times the runs (or FC_RUNS).
  const seed = process.env.FC_SEED ?? String(randomInt(2 ** 31))
  const fuzz = { FC_SEED: seed, FC_FUZZ: "1" }
  console.log(`Fuzzing with seed ${seed}`)
  if (!(await jest("unit", ["src/lib/__tests__/amounts.unit.spec.ts", ...rest], fuzz))) failures.push("unit properties")
  await withPostgres({}, async (env) => {
    const attacks = ["integration-tests/reliability/hostile-storefront.spec.ts", "integration-tests/reliability/webhook-attacks.spec.ts"]
    if (!(await jest("integration:reliability", [...attacks, ...rest], { ...env, ...fuzz }))) failures.push("attack properties")
  })
  const runs = process.env.FC_RUNS ? ` FC_RUNS=${process.env.FC_RUNS}` : ""
  if (failures.length) console.log(`\nReplay this run: FC_SEED=${seed}${runs} npm run test:fuzz`)
}
// Every benchmark, small: it works and its figures are sane (never how fast: that is `npm run bench`). With
// the demo and browser tests after it, it runs beside them: they spend most of their time waiting on the
// demo's paced deposits and a browser, which leaves a core to the benchmarks; once they are done, to the
// flood (BESIDE_DEMO_FILE), which takes about one core for its two minutes, less than the browser tests have left.
let besideDemo = Promise.resolve()
if (what === "bench" || what === "all") {
  const report = reportFile("bench-quick", "json")
  const args = ["bench/run.mjs", "--quick", "--json", `--outputFile=${report}`]
  if (what === "all") {
    besideDemo = runBeside("npm run bench -- --quick", args, report).then(async (passed) => {
      if (!passed) failures.push("bench --quick")
      if (!floodBesideDemo) return
      // Its own data directory should it be embedded: the benchmarks' and the demo's clusters may still be up.
      const flood = await withPostgres({ dataDir: path.join(root, ".tmp", "flood-postgres") }, (env) =>
        jestBeside("integration:reliability", [BESIDE_DEMO_FILE], env)
      )
      if (!flood) failures.push("integration:reliability (flood)")
    })
  } else if (!(await run("npm run bench -- --quick", args, {}, report))) failures.push("bench --quick")
}
if (what === "demo" || what === "all") {
  // Every demo below starts on a fresh database: the first keeps its migrated and seeded one as this
  // template, which the browser tests' demos clone (scripts/demo.mjs); dropped at the end.
  const demoEnv = { DEMO_DB_TEMPLATE: `crypto_swap_demo_template_${process.pid}` }
  // Its own database, dropped first, so a store owner's `npm run demo` data is never touched.
  if (!(await run("npm run demo -- --once", ["scripts/demo.mjs", "--once", "--database", "crypto_swap_demo_test", "--fresh"], demoEnv))) {
    failures.push("demo")
  } else if (!existsSync(CHROMIUM_PATH) && !process.env.CI) {
    // CI installs Chromium (.ci/run); a laptop without it is told how rather than failed.
    console.log(`\nSkipped the browser tests: no Chromium at ${CHROMIUM_PATH} (apt-get install -y chromium, or set CHROMIUM_PATH)`)
    totals.skipped += 1
  } else {
    const tapReport = reportFile("browser", "tap")
    const browserArgs = ["--test", "--test-reporter=spec", "--test-reporter-destination=stdout", "--test-reporter=tap", `--test-reporter-destination=${tapReport}`, "--test-concurrency=1", "integration-tests/browser/"]
    // The demo run just built and installed the plugin into demo/. One file at a time: each starts its
    // own demo, and two demos share demo/'s installed build and the dashboard's Vite cache.
    if (!(await run("browser tests (node --test integration-tests/browser/)", browserArgs, { DEMO_NO_BUILD: "1", ...demoEnv }, tapReport))) failures.push("browser")
  }
  // On the demos' PostgreSQL, found as scripts/demo.mjs finds it: the local one, else its embedded cluster.
  const demoDb = await findOrStartPostgres({ dataDir: path.join(root, "demo", ".data", "postgres"), persistent: true })
  await dropDatabase(demoDb, demoEnv.DEMO_DB_TEMPLATE).finally(() => demoDb.stop())
}
await besideDemo

console.log(failures.length ? `\nFailed: ${failures.join(", ")}` : "\nAll suites passed")
console.log(`${totals.passed} passed, ${totals.failed} failed, ${totals.skipped} skipped`)
process.exit(failures.length ? 1 : 0)
