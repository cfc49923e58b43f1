import type { AuthenticatedMedusaRequest, MedusaResponse } from "@medusajs/framework/http"
import { parseInput } from "../../../../../parse-input"
import { shiftWithHistory, syncForAdmin } from "../../../admin-shift"
import { emptyBodySchema } from "../../../validators"
import { renewRefundShiftWorkflow } from "../../../../../../workflows/renew-refund-shift"

/** A refund shift expired before the merchant funded it: a new one for the same refund, made now. */
export async function POST(req: AuthenticatedMedusaRequest, res: MedusaResponse) {
  parseInput(emptyBodySchema, req.body)
  await shiftWithHistory(req.scope, req.params.id)
  await renewRefundShiftWorkflow(req.scope).run({ input: { ledger_id: req.params.id } })
  res.json(await syncForAdmin(req.scope, req.params.id))
}
