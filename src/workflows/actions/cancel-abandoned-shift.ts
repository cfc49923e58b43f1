import { ContainerRegistrationKeys } from "@medusajs/framework/utils"
import { ActionNotYet, type LedgerShift, type ShiftAction } from "./shift-action"
import { SwapServiceError } from "../../lib/swap-service"
import { clientFor, providerById } from "../../lib/provider-registry"

/** The service refuses a cancel in a shift's first 5 minutes: a refusal within this long may be that one. */
const CANCEL_REFUSED_EARLY_MS = 10 * 60_000

/** When the shift followed was made: the service's word, else when the ledger learnt of it. */
const shiftMadeAt = (row: LedgerShift) => {
  const said = (row.snapshot as { createdAt?: string } | null)?.createdAt
  return new Date(said ?? row.created_at).getTime()
}

/**
 * Cancels at the service a waiting shift whose payment session Medusa deleted or canceled, so nobody
 * can pay into it any more, or a variable one whose page nobody looked at for `variablePool.idleMinutes`
 * (it holds one of the account's few open variable orders), or a refund's shift the merchant paid by other
 * means (funded by mistake, it would pay the shopper twice). The service refuses for the first minutes of a
 * shift (a shopper who switched coins leaves one behind every time): an expected refusal then, waited out
 * without a warning; later, a refusal is a failure like any, counted toward the merchant's attention.
 */
export const cancelAbandonedShift: ShiftAction = async (container, row) => {
  const client = clientFor(providerById(container.resolve(ContainerRegistrationKeys.CONFIG_MODULE), row.provider_id!))
  try {
    await client.cancelOrder(row.shift_id!)
  } catch (error) {
    if (error instanceof SwapServiceError && error.userError && Date.now() - shiftMadeAt(row) < CANCEL_REFUSED_EARLY_MS) throw new ActionNotYet(error.message)
    throw error
  }
  // The next read records the expiry.
  return { reread: true }
}
