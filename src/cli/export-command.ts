import { createWriteStream } from "node:fs"
import { Readable } from "node:stream"
import { pipeline } from "node:stream/promises"
import { parseArgs } from "node:util"
import { ModulesSdkUtils } from "@medusajs/framework/utils"
import { describeIssues } from "../lib/describe-issues"
import { exportChunks, exportRangeSchema, type LedgerMovement } from "../lib/accounting-export"
import { movementPages } from "../modules/crypto-swap/payments-query"
import { storeEnvironment } from "./connection-options"

const HELP = `Usage: crypto-swap export --from DATE --to DATE [--format csv|json] [--out FILE]

Writes the accounting export of the crypto payments and refunds created in the range (the same file
as the admin's GET /admin/crypto-swap/export): one line per payment, top-up and refund shift, read
page by page from the store's database. DATE is a day (2026-01-31, UTC; --to includes that day) or
an ISO instant with its offset. Without --out the file goes to standard output.

  --database-url URL   The store's database [DATABASE_URL] (also read from the .env of the directory
                       you run the command in, as Medusa reads it)`

/** Counts what passes through, for the closing line. */
async function* counted(pages: AsyncIterable<LedgerMovement[]>, count: { lines: number }) {
  for await (const page of pages) {
    count.lines += page.length
    yield page
  }
}

/** The closing line goes to stderr by default, so standard output carries only the file. */
export async function runExportCommand(argv: string[], out: (line: string) => void = console.error): Promise<number> {
  const { values } = parseArgs({
    args: argv,
    strict: true,
    options: {
      from: { type: "string" },
      to: { type: "string" },
      format: { type: "string" },
      out: { type: "string" },
      "database-url": { type: "string" },
      help: { type: "boolean" },
    },
  })
  if (values.help) {
    out(HELP)
    return 0
  }
  const databaseUrl = values["database-url"] ?? storeEnvironment().DATABASE_URL
  const missing = [!values.from && "--from", !values.to && "--to", !databaseUrl && "--database-url (or DATABASE_URL)"].filter(Boolean)
  if (missing.length) throw new Error(`missing ${missing.join(", ")}`)
  const parsed = exportRangeSchema.safeParse({ from: values.from, to: values.to, ...(values.format ? { format: values.format } : {}) })
  if (!parsed.success) throw new Error(describeIssues(parsed.error))
  const { from, to, format } = parsed.data

  const knex = ModulesSdkUtils.createPgConnection({ clientUrl: databaseUrl })
  const count = { lines: 0 }
  try {
    const chunks = Readable.from(exportChunks(counted(movementPages(knex, { from, to }), count), format))
    await pipeline(chunks, values.out ? createWriteStream(values.out) : process.stdout)
  } finally {
    await knex.destroy()
  }
  out(`Wrote ${count.lines} lines (${format}) of ${from.toISOString()} to ${to.toISOString()}${values.out ? ` to ${values.out}` : ""}`)
  return 0
}
