import type { AuthenticatedMedusaRequest, MedusaResponse } from "@medusajs/framework/http"
import { parseInput } from "../../../../../parse-input"
import { refundHeldMoneyWorkflow } from "../../../../../../workflows/refund-held-money"
import { shiftWithHistory, syncForAdmin } from "../../../admin-shift"
import { refundHeldMoneySchema } from "../../../validators"

/** Refunds through a refund shift money the store holds for no captured payment (or no order); answers with the refund. */
export async function POST(req: AuthenticatedMedusaRequest, res: MedusaResponse) {
  const { address, memo } = parseInput(refundHeldMoneySchema, req.body)
  await shiftWithHistory(req.scope, req.params.id)
  const { result: refundId } = await refundHeldMoneyWorkflow(req.scope).run({ input: { ledger_id: req.params.id, actor_id: req.auth_context.actor_id, address, memo } })
  // The payment no longer calls for what it waited on (placing its order, a capture): its sync says so at once.
  await syncForAdmin(req.scope, req.params.id)
  const { shift, sync_error } = await syncForAdmin(req.scope, refundId)
  res.json({ refund: shift, sync_error })
}
