import { ContainerRegistrationKeys } from "@medusajs/framework/utils"
import { providerById } from "../../lib/provider-registry"
import { refundHeldMoney } from "../steps/refund-held-money"
import type { ShiftAction } from "./shift-action"

/**
 * A short payment's wait for the rest ran out (`underpayment.waitMinutes`): everything it received goes
 * back to the shopper through refund shifts (`then: "refund"`, asking for an address when none is
 * known), or it is held for the merchant to accept as paid or refund (`then: "hold"`).
 */
export const settleUnderpayment: ShiftAction = async (container, row) => {
  const { options } = providerById(container.resolve(ContainerRegistrationKeys.CONFIG_MODULE), row.provider_id!)
  if (options.underpayment.then === "refund") {
    await refundHeldMoney(container, row)
    return { history: "underpayment_refunded", outcome: "refund", event: "crypto-swap.shift.underpayment_refunded" }
  }
  return { ledger: { flags: { ...(row.flags ?? {}), underpaid_held: true } }, history: "underpayment_held", outcome: "hold", event: "crypto-swap.shift.underpayment_held" }
}
