import { spawn, spawnSync } from "node:child_process"
import path from "node:path"

// Tests that run a second Medusa process beside the test app, sharing its database and Redis (the
// Redis event bus, workflow engine and locking of medusa-config.ts), as a second server or worker would.

const root = path.resolve(__dirname, "../..")

/** Whether a Redis answers, asked synchronously because Jest collects tests synchronously. */
export function redisAnswers(): boolean {
  const probe = spawnSync(process.execPath, [
    "-e",
    `const s=require("net").connect(6379,"127.0.0.1");s.on("connect",()=>process.exit(0));s.on("error",()=>process.exit(1));setTimeout(()=>process.exit(1),2000)`,
  ])
  return probe.status === 0
}

/** Points the test app at a Redis database of its own (before it boots) and empties it first. */
export function useRedis(database: number): string {
  const url = `redis://127.0.0.1:6379/${database}`
  process.env.CRYPTO_SWAP_TEST_REDIS_URL = url
  beforeAll(async () => {
    const { Redis } = await import("ioredis")
    const redis = new Redis(url)
    await redis.flushdb()
    await redis.quit()
  })
  return url
}

/**
 * A second Medusa process (`medusa exec` of helpers/second-process.ts) on the test app's database
 * `dbName` and the same Redis, reconciling as fast as it can from `ready` until the test calls `stop`.
 */
export function startSecondProcess(dbName: string) {
  const { DB_HOST = "localhost", DB_PORT = "5432", DB_USERNAME = "postgres", DB_PASSWORD = "" } = process.env
  const auth = DB_PASSWORD ? `${encodeURIComponent(DB_USERNAME)}:${encodeURIComponent(DB_PASSWORD)}` : encodeURIComponent(DB_USERNAME)
  const child = spawn(process.execPath, [require.resolve("@medusajs/cli/cli.js"), "exec", "./integration-tests/helpers/second-process.ts"], {
    cwd: root,
    env: {
      ...process.env,
      NODE_OPTIONS: "",
      DATABASE_URL: `postgres://${auth}@${DB_HOST}:${DB_PORT}/${dbName}`,
    },
    // Closing its stdin stops it; so does this process ending, so it never outlives the test.
    stdio: ["pipe", "pipe", "pipe"],
  })
  let output = ""
  child.stdout.on("data", (chunk) => (output += chunk))
  child.stderr.on("data", (chunk) => (output += chunk))
  const ready = new Promise<void>((resolve, reject) => {
    child.stdout.on("data", () => output.includes("second process: reconciling") && resolve())
    child.on("exit", (code) => reject(new Error(`second process exited early (${code}):\n${output.slice(-3000)}`)))
  })
  const done = new Promise<number | null>((resolve) => child.on("exit", resolve))
  return {
    ready,
    /** Lets it finish the round it is in and resolves with its exit code. */
    stop: () => {
      child.stdin.end()
      return done
    },
    output: () => output,
    /** Rounds of reconciliation it reported when it finished. */
    rounds: () => Number(/second process: (\d+) rounds done/.exec(output)?.[1] ?? NaN),
  }
}
