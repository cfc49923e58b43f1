import type { AuthenticatedMedusaRequest, MedusaResponse } from "@medusajs/framework/http"
import { parseInput } from "../../../../../parse-input"
import { shiftWithHistory, syncForAdmin } from "../../../admin-shift"
import { passRefundAddressWorkflow } from "../../../../../../workflows/pass-refund-address"
import { adminRefundAddressSchema } from "../../../validators"

/**
 * Sets where a refund goes: for a refund waiting for its destination, its refund shift is made; for a
 * payment, passed to the service now while the shift waits in its refund status, else kept for the sync
 * to pass on (an address the service already has can't be changed).
 */
export async function POST(req: AuthenticatedMedusaRequest, res: MedusaResponse) {
  const { address, memo } = parseInput(adminRefundAddressSchema, req.body)
  await shiftWithHistory(req.scope, req.params.id)
  await passRefundAddressWorkflow(req.scope).run({ input: { ledger_id: req.params.id, address, memo, source: "admin" } })
  res.json(await syncForAdmin(req.scope, req.params.id))
}
