import { createStep, StepResponse } from "@medusajs/framework/workflows-sdk"
import { MedusaError } from "@medusajs/framework/utils"
import { CRYPTO_SWAP_MODULE, type CryptoSwapModuleService } from "../../modules/crypto-swap"
import { depositsSettled } from "../../lib/shift/shift-actions"

/**
 * The merchant dealt with a refund paid twice (marked paid by other means, and its shift funded too): got
 * the money back from the shopper, or wrote it off. It leaves the attention list; a deposit that settles
 * on the shift after this one (`deposits_settled`) paid the shopper once more, and is flagged and told anew.
 */
export const resolvePaidTwiceStep = createStep(
  "crypto-swap-resolve-paid-twice",
  async (input: { ledger_id: string; actor_id: string; note?: string }, { container }) => {
    const ledger = container.resolve<CryptoSwapModuleService>(CRYPTO_SWAP_MODULE)
    const row = await ledger.retrieveSwapShift(input.ledger_id)
    if (row.kind !== "refund" || row.status !== "paid_manually" || !row.flags?.paid_twice || row.flags?.paid_twice_resolved) {
      throw new MedusaError(MedusaError.Types.NOT_ALLOWED, "Only a refund paid twice, not yet resolved, can be resolved.")
    }
    const now = new Date()
    const resolution = { by: input.actor_id, note: input.note ?? null, at: now.toISOString(), deposits_settled: depositsSettled((row.snapshot ?? { status: "" }) as never) }
    // History first: a crash before the flag leaves it unresolved, to be asked again, never resolved unrecorded.
    await ledger.createSwapShiftEvents({
      swap_shift_id: row.id,
      from_status: row.status,
      to_status: row.status,
      source: "admin",
      action: "paid_twice_resolved",
      detail: { by: resolution.by, note: resolution.note },
      occurred_at: now,
    })
    await ledger.updateSwapShifts({ id: row.id, flags: { ...row.flags, paid_twice_resolved: resolution } })
    return new StepResponse(row.id)
  }
)
