import { ContainerRegistrationKeys } from "@medusajs/framework/utils"
import type { ShiftAction } from "./shift-action"
import { clientFor, providerById } from "../../lib/provider-registry"
import { ledgerFieldsFromShift } from "../../lib/shift/ledger-fields"

/** Gives the service the refund address the plugin knows, for a shift waiting in the refund status. */
export const setShiftRefundAddress: ShiftAction = async (container, row) => {
  const client = clientFor(providerById(container.resolve(ContainerRegistrationKeys.CONFIG_MODULE), row.provider_id!))
  const shift = await client.setRefundAddress(row.shift_id!, {
    address: row.refund_address!,
    memo: row.refund_memo ?? undefined,
  })
  return { ledger: ledgerFieldsFromShift(shift, row) }
}
