import type { AuthenticatedMedusaRequest, MedusaResponse } from "@medusajs/framework/http"
import { parseInput } from "../../../../../parse-input"
import { acceptUnderpaymentWorkflow } from "../../../../../../workflows/accept-underpayment"
import { shiftWithHistory, syncForAdmin } from "../../../admin-shift"
import { emptyBodySchema } from "../../../validators"

/** A payment that settled short: the merchant accepts it as paid, and its order is placed and captured. */
export async function POST(req: AuthenticatedMedusaRequest, res: MedusaResponse) {
  parseInput(emptyBodySchema, req.body)
  await shiftWithHistory(req.scope, req.params.id)
  await acceptUnderpaymentWorkflow(req.scope).run({ input: { ledger_id: req.params.id, actor_id: req.auth_context.actor_id } })
  res.json(await syncForAdmin(req.scope, req.params.id))
}
