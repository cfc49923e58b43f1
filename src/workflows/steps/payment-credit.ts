import { ContainerRegistrationKeys, Modules } from "@medusajs/framework/utils"
import type { MedusaContainer } from "@medusajs/framework/types"
import { CRYPTO_SWAP_MODULE, type CryptoSwapModuleService } from "../../modules/crypto-swap"
import { providerById } from "../../lib/provider-registry"
import { addDecimals, compareDecimals } from "../../lib/money"
import { decideLedgerRow } from "../../lib/shift/ledger-fields"

type LedgerRow = Awaited<ReturnType<CryptoSwapModuleService["retrieveSwapShift"]>>

/**
 * Counts toward a payment what its settled top-ups brought (those not being given back) and a shortfall
 * the merchant accepted, from the ledger, so recounting is always safe. Written to the payment's row and
 * mirrored into its session's data, where the provider decides from it; the payment is synced next.
 * Runs under the payment's lock. Throws when the session can't be updated: the caller retries.
 */
export async function applyPaymentCredit(container: MedusaContainer, payment: LedgerRow): Promise<string | null> {
  const ledger = container.resolve<CryptoSwapModuleService>(CRYPTO_SWAP_MODULE)
  const { options } = providerById(container.resolve(ContainerRegistrationKeys.CONFIG_MODULE), payment.provider_id!)
  const topUps = await ledger.listSwapShifts({ top_up_of: payment.id, kind: "top_up", status: "settled" })
  const amounts = topUps
    .filter((topUp) => !topUp.flags?.held_refund)
    .map((topUp) => decideLedgerRow(topUp, options).settledAmount)
    .filter((amount): amount is string => Boolean(amount))
  if (typeof payment.flags?.accepted_short === "string") amounts.push(payment.flags.accepted_short)
  const total = addDecimals("0", ...amounts)
  const credit = compareDecimals(total, "0") > 0 ? total : null

  const query = container.resolve(ContainerRegistrationKeys.QUERY)
  const {
    data: [session],
  } = await query.graph({ entity: "payment_session", fields: ["id", "amount", "currency_code", "data"], filters: { id: payment.payment_session_id! } })
  if (session) {
    await container.resolve(Modules.PAYMENT).updatePaymentSession({
      id: session.id,
      amount: session.amount,
      currency_code: session.currency_code,
      data: { ...(session.data ?? {}), credit: credit ?? undefined },
    })
  }
  await ledger.updateSwapShifts({ id: payment.id, credit, next_sync_at: new Date() })
  return credit
}
