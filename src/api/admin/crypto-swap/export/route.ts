import { Readable } from "node:stream"
import { pipeline } from "node:stream/promises"
import type { AuthenticatedMedusaRequest, MedusaResponse } from "@medusajs/framework/http"
import { ContainerRegistrationKeys } from "@medusajs/framework/utils"
import { parseInput } from "../../../parse-input"
import { movementPages } from "../../../../modules/crypto-swap/payments-query"
import { exportChunks, exportFileName, exportRangeSchema } from "../../../../lib/accounting-export"

const CONTENT_TYPE = { csv: "text/csv; charset=utf-8", json: "application/json; charset=utf-8" }

/**
 * The accounting export of a date range, streamed: each page of the ledger is written as it is read,
 * with backpressure, so the size of the range never shows in memory. A client that goes away stops it.
 */
export async function GET(req: AuthenticatedMedusaRequest, res: MedusaResponse) {
  const { from, to, format } = parseInput(exportRangeSchema, req.query)
  const query = req.query as { from: string; to: string }
  res.setHeader("Content-Type", CONTENT_TYPE[format])
  res.setHeader("Content-Disposition", `attachment; filename="${exportFileName(query.from.slice(0, 10), query.to.slice(0, 10), format)}"`)
  const pages = movementPages(req.scope.resolve(ContainerRegistrationKeys.PG_CONNECTION), { from, to })
  // Headers are gone once the first chunk is: a failure after that can only cut the response short.
  await pipeline(Readable.from(exportChunks(pages, format)), res)
}
