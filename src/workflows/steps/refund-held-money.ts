import { createStep, StepResponse } from "@medusajs/framework/workflows-sdk"
import { ContainerRegistrationKeys, MedusaError } from "@medusajs/framework/utils"
import type { MedusaContainer } from "@medusajs/framework/types"
import { CRYPTO_SWAP_MODULE, type CryptoSwapModuleService } from "../../modules/crypto-swap"
import { providerById } from "../../lib/provider-registry"
import { assertRefundMemoAllowed } from "../../lib/refund-destination"
import { heldRefundId } from "../../lib/shift/refund-ids"
import { recordRefund } from "./record-refund"

type LedgerRow = Awaited<ReturnType<CryptoSwapModuleService["retrieveSwapShift"]>>

/**
 * Gives back one shift's settled money through a refund shift, once (its refund id is the row's), and
 * marks it: being given back, this money pays no order, whatever arrives later. False when it already is.
 */
export async function refundHeldShift(
  ledger: CryptoSwapModuleService,
  row: LedgerRow,
  amount: string,
  destination: { address?: string; memo?: string } = {}
): Promise<string | null> {
  const refundId = heldRefundId(row.id)
  const recorded = await recordRefund(ledger, { refund_id: refundId, amount, payment_id: row.payment_id, of: row, ...destination })
  if (!recorded) return null
  const [refund] = await ledger.listSwapShifts({ refund_id: refundId }, { select: ["id"], take: 1 })
  await ledger.updateSwapShifts({ id: row.id, flags: { ...(row.flags ?? {}), held_refund: refund.id } })
  return refund.id
}

/**
 * Money the store received that no Medusa payment captured (paid after the shopper switched coins,
 * settled short of the amount due with its top-ups, settled after the order was canceled, or refunded
 * instead of placing its order) has no Medusa refund to follow: refunded through refund shifts, once per
 * shift. Answers with the payment's own refund.
 */
export async function refundHeldMoney(
  container: MedusaContainer,
  row: LedgerRow,
  destination: { address?: string; memo?: string } = {}
): Promise<string> {
  const ledger = container.resolve<CryptoSwapModuleService>(CRYPTO_SWAP_MODULE)
  // Paid into a replaced session's shift, or settled short of the amount due: no order holds it.
  const held = row.status === "settled" && !row.authorized_at && Boolean(row.flags?.paid_without_session || row.flags?.underpaid)
  const amount = row.refund_owed ?? (held ? row.settle_amount : null)
  if (row.kind !== "payment" || row.captured_at || !amount) {
    throw new MedusaError(
      MedusaError.Types.NOT_ALLOWED,
      "Only settled money no order captured can be refunded here; refund a captured payment from its order."
    )
  }
  if (destination.address) {
    const provider = providerById(container.resolve(ContainerRegistrationKeys.CONFIG_MODULE), row.provider_id!)
    await assertRefundMemoAllowed(provider, row.deposit_coin ?? "", row.deposit_network ?? "", destination.memo)
  }
  const refund = await refundHeldShift(ledger, row, amount, destination)
  if (!refund) throw new MedusaError(MedusaError.Types.NOT_ALLOWED, "This money is already being refunded.")
  // The rest the shopper paid through top-ups goes back with it, each from its own shift.
  const topUps = await ledger.listSwapShifts({ top_up_of: row.id, status: "settled" })
  for (const topUp of topUps) {
    if (!topUp.flags?.held_refund && topUp.settle_amount) await refundHeldShift(ledger, topUp, topUp.settle_amount, destination)
  }
  return refund
}

/** An admin's "Refund via shift" of held money. */
export const refundHeldMoneyStep = createStep(
  "crypto-swap-refund-held-money",
  async (input: { ledger_id: string; address?: string; memo?: string }, { container }) => {
    const row = await container.resolve<CryptoSwapModuleService>(CRYPTO_SWAP_MODULE).retrieveSwapShift(input.ledger_id)
    return new StepResponse(await refundHeldMoney(container, row, { address: input.address, memo: input.memo }))
  }
)
