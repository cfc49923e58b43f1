import { createStep, StepResponse } from "@medusajs/framework/workflows-sdk"
import { MedusaError } from "@medusajs/framework/utils"
import BigNumber from "bignumber.js"
import { CRYPTO_SWAP_MODULE, type CryptoSwapModuleService } from "../../modules/crypto-swap"

/** Left on a recorded quote for the shift made from it to give the merchant time to send; less, a new quote is asked. */
const FRESH_QUOTE_MS = 10 * 60_000

/**
 * The merchant approves what a refund's shift would ask them to send beyond the refund's value
 * (`refundCostLimitPercent`), the amount they were shown: up to it its shift is made, by the retry that
 * follows; a dearer quote later (the approved one expired) asks again.
 */
export const approveRefundCostStep = createStep(
  "crypto-swap-approve-refund-cost",
  async (input: { ledger_id: string; actor_id: string; cost: string }, { container }) => {
    const ledger = container.resolve<CryptoSwapModuleService>(CRYPTO_SWAP_MODULE)
    const row = await ledger.retrieveSwapShift(input.ledger_id)
    const asked = row.flags?.refund_cost_asked
    if (row.kind !== "refund" || row.status !== "creating" || row.shift_id || typeof asked !== "string") {
      throw new MedusaError(MedusaError.Types.NOT_ALLOWED, "Only a refund whose shift waits for the merchant to approve what it costs can be approved.")
    }
    if (new BigNumber(input.cost).comparedTo(asked) !== 0) {
      throw new MedusaError(MedusaError.Types.NOT_ALLOWED, `The refund's shift now asks ${asked} ${row.deposit_coin}, not ${input.cost}: approve that cost if you agree.`)
    }
    const now = new Date()
    const quoteEnds = (row.refund_quote as { expiresAt?: string } | null)?.expiresAt
    // A shift takes its quote's deadline: one made from a quote nearly over would leave the merchant minutes to send.
    const quoteEnding = Boolean(quoteEnds && Date.parse(quoteEnds) - now.getTime() < FRESH_QUOTE_MS)
    // With its make-the-shift action reopened, in one transaction: the shift is made by whatever sync comes next.
    await ledger.restartRefundShift(
      {
        id: row.id,
        flags: { ...(row.flags ?? {}), refund_cost_approved: asked, refund_cost_asked: null },
        next_sync_at: now,
        ...(quoteEnding ? { refund_quote: null } : {}),
      },
      { swap_shift_id: row.id, from_status: row.status, to_status: row.status, source: "admin", action: "refund_cost_approved", detail: { by: input.actor_id, cost: asked }, occurred_at: now }
    )
    return new StepResponse(row.id)
  }
)
