// Jest maps `@medusajs/test-utils` here (jest.config.js): all of it is Medusa's, except that the app runner's
// database is cloned from the migrated template `npm test` builds (scripts/test.mjs,
// CRYPTO_SWAP_TEST_DB_TEMPLATE) instead of being created empty and migrated, which takes each file ~10 s.
// Without a template every file migrates its own database, as before.
import { randomBytes } from "node:crypto"
import pg from "pg"
import * as testUtils from "@medusajs/test-utils/dist/index.js"

export * from "@medusajs/test-utils/dist/index.js"

type RunnerOptions = Parameters<typeof testUtils.medusaIntegrationTestRunner>[0]

export function medusaIntegrationTestRunner(options: RunnerOptions) {
  // The template has the default test app's tables; the Redis modules (helpers/multi-process.ts) bring
  // migrations of their own (the Redis workflow engine's), so an app with them migrates its own database.
  const template = process.env.CRYPTO_SWAP_TEST_REDIS_URL ? undefined : process.env.CRYPTO_SWAP_TEST_DB_TEMPLATE
  if (!template) return testUtils.medusaIntegrationTestRunner(options)
  // Still one database per file (files run side by side), named as the runner names its own.
  const dbName = options.dbName ?? `medusa-${randomBytes(10).toString("hex")}-integration-${process.env.JEST_WORKER_ID ?? "1"}`
  let cloned = false
  skipMigrationsWhen(() => cloned)
  // Before the runner's own beforeAll, which then finds the database there (it creates it only when missing).
  beforeAll(async () => {
    cloned = await cloneDatabase(template, dbName)
  })
  return testUtils.medusaIntegrationTestRunner({ ...options, dbName })
}

/**
 * The runner has no option to leave out its migrations (the modules', then the links'), and even with
 * nothing to apply they load every module: in this file's module registry, both steps do nothing once
 * `skip()` says the database was cloned.
 */
function skipMigrationsWhen(skip: () => boolean) {
  const steps = require("@medusajs/test-utils/dist/medusa-test-runner-utils/use-db.js")
  // Loudly, should a Medusa upgrade move them: they would otherwise run on, unnoticed and slow.
  if (typeof steps.migrateDatabase !== "function" || typeof steps.syncLinks !== "function") {
    throw new Error("@medusajs/test-utils no longer has migrateDatabase and syncLinks in use-db.js: update integration-tests/helpers/medusa-test-utils.ts")
  }
  for (const name of ["migrateDatabase", "syncLinks"]) {
    const step = steps[name]
    steps[name] = (...args: unknown[]) => (skip() ? Promise.resolve() : step(...args))
  }
}

/** False when `dbName` is already there (a fixed name a killed run left): the runner then migrates it as before. */
async function cloneDatabase(template: string, dbName: string): Promise<boolean> {
  const { DB_HOST, DB_PORT, DB_USERNAME, DB_PASSWORD } = process.env
  const client = new pg.Client({ host: DB_HOST, port: Number(DB_PORT), user: DB_USERNAME, password: DB_PASSWORD, database: "postgres" })
  await client.connect()
  try {
    await client.query(`create database "${dbName}" template "${template}"`)
    return true
  } catch (error) {
    if ((error as { code?: string }).code === "42P04") return false // duplicate_database
    throw error
  } finally {
    await client.end()
  }
}
