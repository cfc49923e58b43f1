import { ContainerRegistrationKeys } from "@medusajs/framework/utils"
import { CRYPTO_SWAP_MODULE, type CryptoSwapModuleService } from "../../modules/crypto-swap"
import { clientFor, providerById } from "../../lib/provider-registry"
import { decideLedgerRow } from "../../lib/shift/ledger-fields"
import { refundHeldMoney } from "../steps/refund-held-money"
import { creditedTopUps } from "../../lib/shift/underpayment"
import { isTerminal } from "../../lib/shift/shift-actions"
import { ActionNotYet, type ShiftAction } from "./shift-action"

/** A top-up's deposit is on its way: the payment may still be paid. */
const IN_FLIGHT = new Set(["pending", "processing", "settling", "review"])

const TOP_UP_ON_ITS_WAY = "A top-up's deposit is on its way: waiting for it before the payment is settled"

/** Some deposit of the top-up still moves: one of a `multiple` one whose deposits all went back brings nothing. */
const moving = (topUp: { status: string; deposits: unknown }) =>
  topUp.status === "multiple"
    ? !isTerminal({ status: topUp.status, deposits: Array.isArray(topUp.deposits) ? (topUp.deposits as Array<{ status: string }>) : [] })
    : IN_FLIGHT.has(topUp.status)

/**
 * A short payment's wait for the rest ran out (`underpayment.waitMinutes`): everything it received goes
 * back to the shopper through refund shifts (`then: "refund"`, asking for an address when none is
 * known), or it is held for the merchant to accept as paid or refund (`then: "hold"`). Not while a
 * top-up's deposit is on its way: that one may pay the order, and is waited for.
 */
export const settleUnderpayment: ShiftAction = async (container, row) => {
  const provider = providerById(container.resolve(ContainerRegistrationKeys.CONFIG_MODULE), row.provider_id!)
  const { options } = provider
  const ledger = container.resolve<CryptoSwapModuleService>(CRYPTO_SWAP_MODULE)
  const counted = creditedTopUps(row)
  const topUps = await ledger.listSwapShifts({ top_up_of: row.id, kind: "top_up" })
  // One counted (credited or given back) pays nothing more, whatever it received since.
  const coming = topUps.find(
    (topUp) =>
      !topUp.captured_at &&
      (moving(topUp) || (decideLedgerRow(topUp, options).settledAmount && !counted.includes(topUp.id) && !topUp.flags?.held_refund))
  )
  if (coming) throw new ActionNotYet(TOP_UP_ON_ITS_WAY)
  // One the ledger last read waiting (up to a waiting shift's cadence ago) may have been paid since: asked of the service.
  for (const topUp of topUps.filter((candidate) => candidate.status === "waiting" && candidate.shift_id && !candidate.captured_at)) {
    const shift = await clientFor(provider)
      .getShift(topUp.shift_id!)
      .catch((error: Error) => {
        throw new ActionNotYet(`A top-up could not be read at the service (${error.message}): whether it was paid is not known`)
      })
    if (!["waiting", "expired"].includes(shift.status)) throw new ActionNotYet(TOP_UP_ON_ITS_WAY)
  }
  if (options.underpayment.then === "refund") {
    await refundHeldMoney(container, row)
    return { ledger: { flags: { underpayment_settled: "refund" } }, history: "underpayment_refunded", outcome: "refund", event: "crypto-swap.shift.underpayment_refunded" }
  }
  return {
    ledger: { flags: { underpayment_settled: "hold", underpaid_held: true } },
    history: "underpayment_held",
    outcome: "hold",
    event: "crypto-swap.shift.underpayment_held",
  }
}
