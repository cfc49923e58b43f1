import type { AuthenticatedMedusaRequest, MedusaResponse } from "@medusajs/framework/http"
import { parseInput } from "../../../../../parse-input"
import { shiftWithHistory, syncForAdmin } from "../../../admin-shift"
import { emptyBodySchema } from "../../../validators"

/** Once the cause is fixed: syncs the shift and tries its pending actions now (those waiting for attention from a fresh count). */
export async function POST(req: AuthenticatedMedusaRequest, res: MedusaResponse) {
  parseInput(emptyBodySchema, req.body)
  await shiftWithHistory(req.scope, req.params.id)
  res.json(await syncForAdmin(req.scope, req.params.id, true))
}
