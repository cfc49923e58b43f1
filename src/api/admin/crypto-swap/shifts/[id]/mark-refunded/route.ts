import type { AuthenticatedMedusaRequest, MedusaResponse } from "@medusajs/framework/http"
import { parseInput } from "../../../../../parse-input"
import { markRefundPaidManuallyWorkflow } from "../../../../../../workflows/mark-refund-paid-manually"
import { shiftWithHistory } from "../../../admin-shift"
import { adminNoteSchema } from "../../../validators"

/** The merchant refunded by other means (manual mode). */
export async function POST(req: AuthenticatedMedusaRequest, res: MedusaResponse) {
  const { note } = parseInput(adminNoteSchema, req.body)
  await shiftWithHistory(req.scope, req.params.id)
  await markRefundPaidManuallyWorkflow(req.scope).run({ input: { ledger_id: req.params.id, actor_id: req.auth_context.actor_id, note } })
  res.json({ shift: await shiftWithHistory(req.scope, req.params.id), sync_error: null })
}
