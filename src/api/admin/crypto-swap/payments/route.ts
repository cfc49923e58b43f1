import type { AuthenticatedMedusaRequest, MedusaResponse } from "@medusajs/framework/http"
import { ContainerRegistrationKeys } from "@medusajs/framework/utils"
import { parseInput } from "../../../parse-input"
import { listMovements } from "../../../../modules/crypto-swap/payments-query"
import { exportLine } from "../../../../lib/accounting-export"
import { paymentsQuerySchema } from "../validators"

/** Every payment, top-up and refund shift, newest first, filtered and paged in SQL; each as an export line. */
export async function GET(req: AuthenticatedMedusaRequest, res: MedusaResponse) {
  const { limit, offset, ...filters } = parseInput(paymentsQuerySchema, req.query)
  const { movements, count } = await listMovements(req.scope.resolve(ContainerRegistrationKeys.PG_CONNECTION), filters, { limit, offset })
  res.json({ payments: movements.map(exportLine), count, limit, offset })
}
