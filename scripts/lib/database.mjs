// Creates the demo's database on a PostgreSQL found or started by ./postgres.mjs.
import pg from "pg"

/** Creates `database` when it does not exist (`fresh`: drops it first); returns true when it was created. */
export async function ensureDatabase({ host, port, user, password }, database, { fresh = false } = {}) {
  const client = new pg.Client({ host, port, user, password, database: "postgres", connectionTimeoutMillis: 5000 })
  await client.connect()
  try {
    if (fresh) await client.query(`drop database if exists "${database.replace(/"/g, '""')}" with (force)`)
    const { rowCount } = await client.query("select 1 from pg_database where datname = $1", [database])
    if (rowCount) return false
    await client.query(`create database "${database.replace(/"/g, '""')}"`)
    return true
  } finally {
    await client.end().catch(() => {})
  }
}

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
