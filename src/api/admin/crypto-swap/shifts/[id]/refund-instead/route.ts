import type { AuthenticatedMedusaRequest, MedusaResponse } from "@medusajs/framework/http"
import { parseInput } from "../../../../../parse-input"
import { refundInsteadOfOrderWorkflow } from "../../../../../../workflows/refund-instead-of-order"
import { shiftWithHistory, syncForAdmin } from "../../../admin-shift"
import { emptyBodySchema } from "../../../validators"

/** A paid shift whose order could not be placed: the admin refunds the shopper instead of placing it. */
export async function POST(req: AuthenticatedMedusaRequest, res: MedusaResponse) {
  parseInput(emptyBodySchema, req.body)
  await shiftWithHistory(req.scope, req.params.id)
  await refundInsteadOfOrderWorkflow(req.scope).run({ input: { ledger_id: req.params.id, actor_id: req.auth_context.actor_id } })
  res.json(await syncForAdmin(req.scope, req.params.id))
}
