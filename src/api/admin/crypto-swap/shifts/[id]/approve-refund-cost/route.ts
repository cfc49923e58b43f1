import type { AuthenticatedMedusaRequest, MedusaResponse } from "@medusajs/framework/http"
import { parseInput } from "../../../../../parse-input"
import { approveRefundCostWorkflow } from "../../../../../../workflows/approve-refund-cost"
import { shiftWithHistory, syncForAdmin } from "../../../admin-shift"
import { approveRefundCostSchema } from "../../../validators"

/** A refund whose shift would cost more than its value allows: the merchant approves the cost, and the shift is made now. */
export async function POST(req: AuthenticatedMedusaRequest, res: MedusaResponse) {
  const { cost } = parseInput(approveRefundCostSchema, req.body)
  await shiftWithHistory(req.scope, req.params.id)
  await approveRefundCostWorkflow(req.scope).run({ input: { ledger_id: req.params.id, actor_id: req.auth_context.actor_id, cost } })
  const answer = await syncForAdmin(req.scope, req.params.id, true)
  // Not made (a dearer quote asked again, or the service refused): the action's record says why.
  const made = answer.shift.actions.find((action) => action.kind === "create_refund_shift")
  res.json(answer.shift.shift_id ? answer : { ...answer, sync_error: answer.sync_error ?? made?.last_error ?? "The refund shift is not made yet" })
}
