import type { AuthenticatedMedusaRequest, MedusaResponse } from "@medusajs/framework/http"
import { ContainerRegistrationKeys, MedusaError } from "@medusajs/framework/utils"
import { CRYPTO_SWAP_MODULE, type CryptoSwapModuleService } from "../../../../../../modules/crypto-swap"
import { providerById } from "../../../../../../lib/provider-registry"
import { assertRefundMemoAllowed } from "../../../../../../lib/refund-destination"
import { parseInput } from "../../../../../parse-input"
import { syncForAdmin } from "../../../admin-shift"
import { giveRefundAddress } from "../../../../../../workflows/give-refund-address"
import { adminRefundAddressSchema } from "../../../validators"

/**
 * Sets where a refund goes. The ledger keeps it and the sync passes it to the service while the shift
 * waits in its refund status (an address the service already has can't be changed).
 */
export async function POST(req: AuthenticatedMedusaRequest, res: MedusaResponse) {
  const { address, memo } = parseInput(adminRefundAddressSchema, req.body)
  const ledger = req.scope.resolve<CryptoSwapModuleService>(CRYPTO_SWAP_MODULE)
  const [row] = await ledger.listSwapShifts({ id: req.params.id })
  if (!row) throw new MedusaError(MedusaError.Types.NOT_FOUND, `Crypto payment ${req.params.id} was not found`)
  if ((row.snapshot as { refundAddress?: string } | null)?.refundAddress) {
    throw new MedusaError(MedusaError.Types.NOT_ALLOWED, "The service already has a refund address for this shift; it can't be changed.")
  }
  if (row.terminal) throw new MedusaError(MedusaError.Types.NOT_ALLOWED, `This shift is over ("${row.status}").`)
  const provider = providerById(req.scope.resolve(ContainerRegistrationKeys.CONFIG_MODULE), row.provider_id!)
  if (row.kind === "refund" && !row.shift_id) {
    await giveRefundAddress(req.scope, provider, row, address, memo)
  } else {
    await assertRefundMemoAllowed(provider, row.deposit_coin ?? "", row.deposit_network ?? "", memo)
    await ledger.updateSwapShifts({ id: row.id, refund_address: address, refund_memo: memo ?? null })
  }
  res.json(await syncForAdmin(req.scope, row.id))
}
