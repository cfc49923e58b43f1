import type { AuthenticatedMedusaRequest, MedusaResponse } from "@medusajs/framework/http"
import { parseInput } from "../../../../../parse-input"
import { cancelWaitingShiftWorkflow } from "../../../../../../workflows/cancel-waiting-shift"
import { shiftWithHistory, syncForAdmin } from "../../../admin-shift"
import { emptyBodySchema } from "../../../validators"

/** Cancels a shift still waiting for its deposit (the service allows it from 5 minutes after creation). */
export async function POST(req: AuthenticatedMedusaRequest, res: MedusaResponse) {
  parseInput(emptyBodySchema, req.body)
  await shiftWithHistory(req.scope, req.params.id)
  await cancelWaitingShiftWorkflow(req.scope).run({ input: { ledger_id: req.params.id } })
  res.json(await syncForAdmin(req.scope, req.params.id))
}
