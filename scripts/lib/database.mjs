// Creates the demo's database, and the template databases the tests clone, on a PostgreSQL found or
// started by ./postgres.mjs.
import pg from "pg"

/** Creates `database` when it does not exist (`fresh`: drops it first); returns true when it was created. */
export async function ensureDatabase(server, database, { fresh = false } = {}) {
  if (fresh) await onServer(server, `drop database if exists ${quoted(database)} with (force)`)
  const { rowCount } = await onServer(server, "select 1 from pg_database where datname = $1", [database])
  if (rowCount) return false
  await onServer(server, `create database ${quoted(database)}`)
  return true
}

/**
 * Creates `database` afresh as a copy of `template` (see `lockAsTemplate`); false, and nothing done, when
 * there is no such template.
 */
export async function cloneDatabase(server, template, database) {
  const { rowCount } = await onServer(server, "select 1 from pg_database where datname = $1", [template])
  if (!rowCount) return false
  await onServer(server, `drop database if exists ${quoted(database)} with (force)`)
  await onServer(server, `create database ${quoted(database)} template ${quoted(template)}`)
  return true
}

/** Copies `database`, which nobody may be connected to, as `copy`. */
export async function copyDatabase(server, database, copy) {
  await onServer(server, `create database ${quoted(copy)} template ${quoted(database)}`)
}

/** From now on nobody may connect to `database`: PostgreSQL copies no database that has a connection. */
export async function lockAsTemplate(server, database) {
  await onServer(server, `alter database ${quoted(database)} with allow_connections false`)
}

export async function dropDatabase(server, database) {
  await onServer(server, `drop database if exists ${quoted(database)}`)
}

/** Runs one statement on the server's `postgres` database. */
async function onServer({ host, port, user, password }, sql, params = []) {
  const client = new pg.Client({ host, port, user, password, database: "postgres", connectionTimeoutMillis: 5000 })
  await client.connect()
  try {
    return await client.query(sql, params)
  } finally {
    await client.end().catch(() => {})
  }
}

const quoted = (name) => `"${name.replace(/"/g, '""')}"`

/** Runs one query against the demo database; `null` when the table does not exist yet. */
export async function queryDemo(url, sql, params = []) {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 5000 })
  await client.connect()
  try {
    return (await client.query(sql, params)).rows
  } catch (error) {
    if (error.code === "42P01") return null // undefined_table
    throw error
  } finally {
    await client.end().catch(() => {})
  }
}

export function databaseUrl({ host, port, user, password }, database) {
  const auth = password ? `${encodeURIComponent(user)}:${encodeURIComponent(password)}` : encodeURIComponent(user)
  return `postgres://${auth}@${host}:${port}/${database}`
}
