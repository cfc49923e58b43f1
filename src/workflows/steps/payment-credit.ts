import { ContainerRegistrationKeys, Modules, PaymentSessionStatus } from "@medusajs/framework/utils"
import type { MedusaContainer, UpdatePaymentDTO } from "@medusajs/framework/types"
import { CRYPTO_SWAP_MODULE, type CryptoSwapModuleService } from "../../modules/crypto-swap"
import { providerById } from "../../lib/provider-registry"
import { addDecimals, compareDecimals } from "../../lib/money"
import { topUpAmount } from "../../lib/shift/ledger-fields"
import { creditedAmount, creditedTopUps } from "../../lib/shift/underpayment"

type LedgerRow = Awaited<ReturnType<CryptoSwapModuleService["retrieveSwapShift"]>>


/**
 * The payment's credit (what its credited top-ups settled, whatever their status says, and a shortfall the
 * merchant accepted) copied into its session's data, where the provider decides from it, and into the data
 * of a payment already authorized (an order placed before it settled short), which Medusa hands its
 * capture. Idempotent: the authorize action calls it again before placing the order, so a lost copy never
 * blocks the payment.
 */
export async function mirrorCredit(container: MedusaContainer, payment: { payment_session_id: string | null; credit: string | null }) {
  if (!payment.payment_session_id) return
  const credit = payment.credit ?? undefined
  await patchSessionData(container, payment.payment_session_id, { credit })
  const paymentModule = container.resolve(Modules.PAYMENT)
  const [placed] = await paymentModule.listPayments({ payment_session_id: payment.payment_session_id }, { select: ["id", "data", "captured_at", "canceled_at"] })
  if (placed && !placed.captured_at && !placed.canceled_at && (placed.data?.credit ?? undefined) !== credit) {
    // UpdatePaymentDTO names only the id; the module writes the payment's other columns too.
    await paymentModule.updatePayment({ id: placed.id, data: { ...(placed.data ?? {}), credit } } as UpdatePaymentDTO)
  }
}

/**
 * Marks the payment's session as money going back to the shopper, before the ledger records it so:
 * Medusa's own routes (its payment webhook route completes a cart by itself) then can't authorize it.
 */
export async function markSessionGivenBack(container: MedusaContainer, payment: { payment_session_id: string | null }) {
  if (payment.payment_session_id) await patchSessionData(container, payment.payment_session_id, { given_back: true })
}

/**
 * Merges `patch` into a session's data unless it holds it already (the provider takes the plugin's updates as
 * given); with `unlessCanceled`, never into a canceled session's.
 */
export async function patchSessionData(container: MedusaContainer, sessionId: string, patch: Record<string, unknown>, { unlessCanceled = false } = {}) {
  const query = container.resolve(ContainerRegistrationKeys.QUERY)
  const {
    data: [session],
  } = await query.graph({ entity: "payment_session", fields: ["id", "amount", "currency_code", "data", "status"], filters: { id: sessionId } })
  if (!session || (unlessCanceled && session.status === PaymentSessionStatus.CANCELED)) return
  if (Object.entries(patch).every(([key, value]) => (session.data?.[key] ?? undefined) === value)) return
  await container.resolve(Modules.PAYMENT).updatePaymentSession({
    id: session.id,
    amount: session.amount,
    currency_code: session.currency_code,
    data: { ...(session.data ?? {}), ...patch },
  })
}

/**
 * Counts `topUpId` (when given) toward the payment, with those already counted and an accepted shortfall:
 * the list and the sum are written in one update of the payment's row, so a top-up is counted exactly
 * when the credit includes it. Then mirrored into the session, and the payment is synced next. Runs under
 * the payment's lock; throws when the session can't be updated (the caller retries, which recounts).
 */
export async function applyPaymentCredit(container: MedusaContainer, payment: LedgerRow, topUpId?: string): Promise<string | null> {
  const ledger = container.resolve<CryptoSwapModuleService>(CRYPTO_SWAP_MODULE)
  const { options } = providerById(container.resolve(ContainerRegistrationKeys.CONFIG_MODULE), payment.provider_id!)
  const counted = [...new Set([...creditedTopUps(payment), ...(topUpId ? [topUpId] : [])])]
  const topUps = counted.length ? await ledger.listSwapShifts({ id: counted }) : []
  // Each top-up counts what it had settled when first counted, kept on its row before the payment's credit
  // is written (a retry after a crash keeps it): a deposit sent to its address later is no order's money,
  // refunded by the top-up's own sync.
  const amounts: string[] = []
  for (const topUp of topUps) {
    const amount = topUpAmount(topUp, options)
    // One given back (its payment's deposit was sent back) counts toward nothing.
    if (!amount || topUp.flags?.held_refund) continue
    if (topUp.id === topUpId && !creditedAmount(topUp)) {
      await ledger.updateSwapShifts({ id: topUp.id, flags: { ...(topUp.flags ?? {}), credited_amount: amount } })
    }
    amounts.push(amount)
  }
  if (typeof payment.flags?.accepted_short === "string") amounts.push(payment.flags.accepted_short)
  const total = addDecimals("0", ...amounts)
  const credit = compareDecimals(total, "0") > 0 ? total : null
  await ledger.updateSwapShifts({ id: payment.id, credit, flags: { ...(payment.flags ?? {}), credited_top_ups: counted }, next_sync_at: new Date() })
  await mirrorCredit(container, { payment_session_id: payment.payment_session_id, credit })
  return credit
}
