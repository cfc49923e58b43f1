import { createStep, StepResponse } from "@medusajs/framework/workflows-sdk"
import { ContainerRegistrationKeys, MedusaError } from "@medusajs/framework/utils"
import { CRYPTO_SWAP_MODULE, type CryptoSwapModuleService } from "../../modules/crypto-swap"
import { providerById } from "../../lib/provider-registry"
import { assertRefundMemoAllowed } from "../../lib/refund-destination"
import { heldRefundId } from "../../lib/shift/refund-ids"
import { recordRefund } from "./record-refund"

/**
 * Money the store received that no Medusa payment captured (paid after the shopper switched coins,
 * settled short of the amount due, settled after the order was canceled, or refunded instead of
 * placing its order) has no Medusa refund
 * to follow: an admin refunds it here, through the same refund shift, once per payment shift.
 */
export const refundHeldMoneyStep = createStep(
  "crypto-swap-refund-held-money",
  async (input: { ledger_id: string; address?: string; memo?: string }, { container }) => {
    const ledger = container.resolve<CryptoSwapModuleService>(CRYPTO_SWAP_MODULE)
    const row = await ledger.retrieveSwapShift(input.ledger_id)
    // Paid into a replaced session's shift, or settled short of the amount due: no order holds it.
    const held = row.status === "settled" && !row.authorized_at && Boolean(row.flags?.paid_without_session || row.flags?.underpaid)
    const amount = row.refund_owed ?? (held ? row.settle_amount : null)
    if (row.kind !== "payment" || row.captured_at || !amount) {
      throw new MedusaError(
        MedusaError.Types.NOT_ALLOWED,
        "Only settled money no order captured can be refunded here; refund a captured payment from its order."
      )
    }
    if (input.address) {
      const provider = providerById(container.resolve(ContainerRegistrationKeys.CONFIG_MODULE), row.provider_id!)
      await assertRefundMemoAllowed(provider, row.deposit_coin ?? "", row.deposit_network ?? "", input.memo)
    }
    const refundId = heldRefundId(row.id)
    const recorded = await recordRefund(ledger, { refund_id: refundId, amount, payment_id: row.payment_id, of: row, address: input.address, memo: input.memo })
    if (!recorded) throw new MedusaError(MedusaError.Types.NOT_ALLOWED, "This money is already being refunded.")
    const [refund] = await ledger.listSwapShifts({ refund_id: refundId }, { select: ["id"], take: 1 })
    // Being given back, this money pays no order, whatever arrives later.
    await ledger.updateSwapShifts({ id: row.id, flags: { ...(row.flags ?? {}), held_refund: refund.id } })
    return new StepResponse(refund.id)
  }
)
