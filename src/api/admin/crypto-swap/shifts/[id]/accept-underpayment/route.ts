import type { AuthenticatedMedusaRequest, MedusaResponse } from "@medusajs/framework/http"
import { parseInput } from "../../../../../parse-input"
import { CRYPTO_SWAP_MODULE, type CryptoSwapModuleService } from "../../../../../../modules/crypto-swap"
import { acceptUnderpaymentWorkflow } from "../../../../../../workflows/accept-underpayment"
import { syncShiftWorkflow } from "../../../../../../workflows/sync-shift"
import { shiftWithHistory, syncForAdmin } from "../../../admin-shift"
import { emptyBodySchema } from "../../../validators"

/** A payment that settled short: the merchant accepts it as paid, and its order is placed and captured. */
export async function POST(req: AuthenticatedMedusaRequest, res: MedusaResponse) {
  parseInput(emptyBodySchema, req.body)
  await shiftWithHistory(req.scope, req.params.id)
  // Its top-ups as the service knows them now, not as the last tick did: a deposit on its way pays the rest (refused then).
  const topUps = await req.scope.resolve<CryptoSwapModuleService>(CRYPTO_SWAP_MODULE).listSwapShifts({ top_up_of: req.params.id, kind: "top_up", terminal: false }, { select: ["id"] })
  for (const topUp of topUps) await syncShiftWorkflow(req.scope).run({ input: { ledger_id: topUp.id, source: "admin" }, throwOnError: false })
  await acceptUnderpaymentWorkflow(req.scope).run({ input: { ledger_id: req.params.id, actor_id: req.auth_context.actor_id } })
  res.json(await syncForAdmin(req.scope, req.params.id))
}
