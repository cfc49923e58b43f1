import type { AuthenticatedMedusaRequest, MedusaResponse } from "@medusajs/framework/http"
import { parseInput } from "../../../../../parse-input"
import { resolvePaidTwiceWorkflow } from "../../../../../../workflows/resolve-paid-twice"
import { shiftWithHistory } from "../../../admin-shift"
import { adminNoteSchema } from "../../../validators"

/** A refund paid twice (marked paid by other means, and funded too): the merchant has dealt with it. */
export async function POST(req: AuthenticatedMedusaRequest, res: MedusaResponse) {
  const { note } = parseInput(adminNoteSchema, req.body)
  await shiftWithHistory(req.scope, req.params.id)
  await resolvePaidTwiceWorkflow(req.scope).run({ input: { ledger_id: req.params.id, actor_id: req.auth_context.actor_id, note } })
  res.json({ shift: await shiftWithHistory(req.scope, req.params.id), sync_error: null })
}
