import type { AuthenticatedMedusaRequest, MedusaResponse } from "@medusajs/framework/http"
import { MedusaError } from "@medusajs/framework/utils"
import { parseInput } from "../../../../../parse-input"
import { CRYPTO_SWAP_MODULE, type CryptoSwapModuleService } from "../../../../../../modules/crypto-swap"
import { acceptUnderpaymentWorkflow } from "../../../../../../workflows/accept-underpayment"
import { syncShiftFailure } from "../../../../../../workflows/sync-shift"
import { shiftWithHistory, syncForAdmin } from "../../../admin-shift"
import { emptyBodySchema } from "../../../validators"

/** A payment that settled short: the merchant accepts it as paid, and its order is placed and captured. */
export async function POST(req: AuthenticatedMedusaRequest, res: MedusaResponse) {
  parseInput(emptyBodySchema, req.body)
  await shiftWithHistory(req.scope, req.params.id)
  // Its top-ups as the service knows them now, not as the last tick did: a deposit on its way pays the rest (refused then).
  const topUps = await req.scope.resolve<CryptoSwapModuleService>(CRYPTO_SWAP_MODULE).listSwapShifts({ top_up_of: req.params.id, kind: "top_up", terminal: false }, { select: ["id"] })
  for (const topUp of topUps) {
    const failure = await syncShiftFailure(req.scope, topUp.id, "admin")
    // Not read is not known to be empty: accepting then could refund a deposit already on its way.
    if (failure) throw new MedusaError(MedusaError.Types.UNEXPECTED_STATE, `The payment's top-up ${topUp.id} could not be read at the service (${failure}): try again.`)
  }
  await acceptUnderpaymentWorkflow(req.scope).run({ input: { ledger_id: req.params.id, actor_id: req.auth_context.actor_id } })
  res.json(await syncForAdmin(req.scope, req.params.id))
}
