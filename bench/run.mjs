#!/usr/bin/env node
// The benchmarks (`npm run bench`): jest files in bench/ run one after another on a real Medusa app,
// real PostgreSQL and the sandbox over HTTP, each writing its `## Benchmarks: ...` section to
// bench/RESULTS.md.
//   node bench/run.mjs [--quick] [bench file filter ...]
// `--quick` (for CI) runs every benchmark small and checks only that its figures are sane; it prints
// them but leaves RESULTS.md alone, so a smoke run never replaces the full run's figures.
import { spawnSync } from "node:child_process"
import path from "node:path"
import { fileURLToPath } from "node:url"
import { findOrStartPostgres } from "../scripts/lib/postgres.mjs"

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..")
const args = process.argv.slice(2).filter((arg) => arg !== "--")
const quick = args.includes("--quick")
const filters = args.filter((arg) => arg !== "--quick")
// RESULTS.md names the command that produced its figures, as the reader would type it.
const command = process.env.npm_lifecycle_event === "bench" ? `npm run bench${args.length ? ` -- ${args.join(" ")}` : ""}` : `node bench/run.mjs ${args.join(" ")}`.trim()

const db = await findOrStartPostgres({ dataDir: path.join(root, ".tmp", "bench-postgres") })
console.log(db.embedded ? `Using embedded PostgreSQL on port ${db.port}` : `Using PostgreSQL at ${db.host}:${db.port}`)
let status = 1
try {
  const result = spawnSync(
    process.execPath,
    // Timed runs one file at a time; a quick run's figures are counts, checked two files at a time.
    [path.join(root, "node_modules/jest/bin/jest.js"), quick ? "--maxWorkers=2" : "--runInBand", "--forceExit", ...filters],
    {
      cwd: root,
      stdio: "inherit",
      env: {
        ...process.env,
        TEST_TYPE: "bench",
        // --expose-gc: the memory benchmark compares heaps after full collections, not whatever garbage is left.
        NODE_OPTIONS: "--experimental-vm-modules --expose-gc",
        LOG_LEVEL: process.env.LOG_LEVEL ?? "error",
        DB_HOST: db.host,
        DB_PORT: String(db.port),
        DB_USERNAME: db.user,
        DB_PASSWORD: db.password,
        BENCH_QUICK: quick ? "1" : "",
        BENCH_COMMAND: command,
      },
    }
  )
  status = result.status ?? 1
} finally {
  await db.stop()
}
process.exit(status)
