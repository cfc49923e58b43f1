import { createStep, StepResponse } from "@medusajs/framework/workflows-sdk"
import { ContainerRegistrationKeys, MedusaError } from "@medusajs/framework/utils"
import { CRYPTO_SWAP_MODULE, type CryptoSwapModuleService } from "../../modules/crypto-swap"
import { providerById } from "../../lib/provider-registry"
import { decideLedgerRow } from "../../lib/shift/ledger-fields"
import { stillMissing } from "../../lib/shift/underpayment"
import { topUpOnItsWay } from "../../lib/shift/shift-actions"
import { applyPaymentCredit } from "./payment-credit"

/**
 * The merchant takes a short payment as paid ("capture as is"): the shortfall is recorded as accepted
 * and counted toward the payment, whose next sync places and captures the order (or captures the one
 * already placed on money that then settled short). Once per payment, and not while a top-up pays the rest.
 */
export const acceptUnderpaymentStep = createStep(
  "crypto-swap-accept-underpayment",
  async (input: { ledger_id: string; actor_id: string }, { container }) => {
    const ledger = container.resolve<CryptoSwapModuleService>(CRYPTO_SWAP_MODULE)
    const row = await ledger.retrieveSwapShift(input.ledger_id)
    const { options } = providerById(container.resolve(ContainerRegistrationKeys.CONFIG_MODULE), row.provider_id!)
    const decision = decideLedgerRow(row, options)
    const flags = row.flags ?? {}
    const shortfall = stillMissing(row, decision.settledAmount)
    if (row.kind !== "payment" || decision.stage !== "underpaid" || !shortfall || row.captured_at || row.refund_owed || flags.held_refund || flags.refund_instead || flags.accepted_short) {
      throw new MedusaError(
        MedusaError.Types.NOT_ALLOWED,
        "Only a payment that settled short of the amount due, and that is not being refunded, can be accepted as paid."
      )
    }
    // Forgiving the rest while a top-up pays it would give that money back (a payment closed refunds its top-ups) at the store's cost.
    if ((await ledger.listSwapShifts({ top_up_of: row.id, kind: "top_up" })).some(topUpOnItsWay)) {
      throw new MedusaError(MedusaError.Types.NOT_ALLOWED, "A top-up paying the rest of this payment is on its way: wait until it settles (or is sent back) before accepting the shortfall.")
    }
    const now = new Date()
    // The acceptance is written with the credit it makes, in one update: a crash between two writes left it
    // accepted (refused again) without the credit (still underpaid, on no list).
    await applyPaymentCredit(container, { ...row, flags: { ...flags, accepted_short: shortfall, underpaid_held: null } })
    await ledger.createSwapShiftEvents({
      swap_shift_id: row.id,
      from_status: row.status,
      to_status: row.status,
      source: "admin",
      action: "accepted_short",
      detail: { by: input.actor_id, shortfall },
      occurred_at: now,
    })
    return new StepResponse(row.id)
  }
)
