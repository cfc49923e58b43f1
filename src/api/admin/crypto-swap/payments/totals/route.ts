import type { AuthenticatedMedusaRequest, MedusaResponse } from "@medusajs/framework/http"
import { ContainerRegistrationKeys } from "@medusajs/framework/utils"
import { parseInput } from "../../../../parse-input"
import { movementTotals } from "../../../../../modules/crypto-swap/payments-query"
import { paymentTotalsQuerySchema } from "../../validators"

/** Received, refunded and outstanding per store currency and per settlement coin, for the list's filters. */
export async function GET(req: AuthenticatedMedusaRequest, res: MedusaResponse) {
  const filters = parseInput(paymentTotalsQuerySchema, req.query)
  res.json(await movementTotals(req.scope.resolve(ContainerRegistrationKeys.PG_CONNECTION), filters))
}
