import { ContainerRegistrationKeys } from "@medusajs/framework/utils"
import { clientFor, providerById } from "../../lib/provider-registry"
import { ledgerFieldsFromShift } from "../../lib/shift/ledger-fields"
import type { ShiftAction } from "./shift-action"

/**
 * Makes a refund's shift: variable rate, so the merchant has days to fund it, and anything sent wrongly
 * goes back to the merchant's settlement address.
 */
export const createRefundShift: ShiftAction = async (container, row) => {
  const provider = providerById(container.resolve(ContainerRegistrationKeys.CONFIG_MODULE), row.provider_id!)
  const settlement = provider.options.settlement[row.currency_code ?? ""]
  const shift = await clientFor(provider).createVariableShift(
    {
      depositCoin: row.deposit_coin!,
      depositNetwork: row.deposit_network!,
      settleCoin: row.settle_coin!,
      settleNetwork: row.settle_network!,
      settleAddress: row.refund_address!,
      settleMemo: row.refund_memo ?? undefined,
      refundAddress: settlement?.address,
      refundMemo: settlement?.memo,
      externalId: row.id,
    },
    // The service wants to know whom a server's request is for: the shopper the refund goes to.
    { userIp: row.customer_ip ?? undefined }
  )
  // The ledger's refund_address of a refund shift stays the shopper's: where the refund goes.
  const fields = ledgerFieldsFromShift(shift, { refund_address: row.refund_address, refund_memo: row.refund_memo })
  return {
    ledger: { ...fields, refund_address: row.refund_address, refund_memo: row.refund_memo, flags: { address_needed: null } },
    history: "refund_shift_created",
    reread: false,
  }
}
