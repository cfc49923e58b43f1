import type { AuthenticatedMedusaRequest, MedusaResponse } from "@medusajs/framework/http"
import { ContainerRegistrationKeys, MedusaError } from "@medusajs/framework/utils"
import { clientFor, providerById } from "../../../../../../lib/provider-registry"
import { toMedusaError } from "../../../../../../providers/crypto-swap/errors"
import { parseInput } from "../../../../../parse-input"
import { shiftWithHistory, syncForAdmin } from "../../../admin-shift"
import { emptyBodySchema } from "../../../validators"

/** Cancels a shift still waiting for its deposit (the service allows it from 5 minutes after creation). */
export async function POST(req: AuthenticatedMedusaRequest, res: MedusaResponse) {
  parseInput(emptyBodySchema, req.body)
  const row = await shiftWithHistory(req.scope, req.params.id)
  if (!row.shift_id || row.status !== "waiting") {
    throw new MedusaError(MedusaError.Types.NOT_ALLOWED, `Only a shift waiting for its deposit can be canceled; this one is "${row.status}".`)
  }
  const provider = providerById(req.scope.resolve(ContainerRegistrationKeys.CONFIG_MODULE), row.provider_id!)
  try {
    await clientFor(provider).cancelOrder(row.shift_id)
  } catch (error) {
    throw toMedusaError(error, "canceling the shift")
  }
  res.json(await syncForAdmin(req.scope, row.id))
}
