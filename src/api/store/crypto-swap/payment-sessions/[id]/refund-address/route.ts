import type { MedusaRequest, MedusaResponse } from "@medusajs/framework/http"
import { ContainerRegistrationKeys } from "@medusajs/framework/utils"
import { CRYPTO_SWAP_MODULE, type CryptoSwapModuleService } from "../../../../../../modules/crypto-swap"
import { syncShiftWorkflow } from "../../../../../../workflows/sync-shift"
import { passRefundAddressWorkflow } from "../../../../../../workflows/pass-refund-address"
import { parseInput } from "../../../../../parse-input"
import { refundAddressBodySchema } from "../../../validators"
import { ledgerRowForSession, refundsWaitingForAddress, shopperSession } from "../../../shopper-session"

/**
 * The shopper says where their refund goes: while the service holds the deposit in its refund status,
 * or when the store refunds a settled payment and its refund shift waits for a destination.
 */
export async function POST(req: MedusaRequest, res: MedusaResponse) {
  const { cart_id, address, memo } = parseInput(refundAddressBodySchema, req.body)
  const { session } = await shopperSession(req.scope, req.params.id, cart_id, { withGone: true })
  const ledger = req.scope.resolve<CryptoSwapModuleService>(CRYPTO_SWAP_MODULE)
  const paymentId = await paymentOf(req, session.id)
  const payment = await ledgerRowForSession(req.scope, session)
  // Refunds of the payment (Medusa's, or of money no order holds: its own and its top-ups') waiting for
  // a destination, and top-ups whose deposit the service holds in its refund status.
  const topUps = await ledger.listSwapShifts({ top_up_of: payment.id, kind: "top_up" })
  const shiftIds = [payment.shift_id, ...topUps.map((topUp) => topUp.shift_id)].filter((id): id is string => Boolean(id))
  const waitingRefunds = await refundsWaitingForAddress(ledger, { paymentId, shiftIds })
  const waitingTopUps = topUps.filter((topUp) => topUp.flags?.address_needed)
  const rows = waitingRefunds.length || waitingTopUps.length ? [...waitingRefunds, ...waitingTopUps] : [payment]
  for (const row of rows) {
    // A hosted checkout's shift exists once the payer picked a coin: a sync learns which it is.
    if (!row.shift_id) await syncShiftWorkflow(req.scope).run({ input: { ledger_id: row.id, source: "storefront" }, throwOnError: false })
    await passRefundAddressWorkflow(req.scope).run({ input: { ledger_id: row.id, address, memo, source: "storefront" } })
    await syncShiftWorkflow(req.scope).run({ input: { ledger_id: row.id, source: "storefront" }, throwOnError: false })
  }
  res.json({ refund_address: address, refund_memo: memo ?? null })
}

/** The payment a session became, if it did. */
async function paymentOf(req: MedusaRequest, sessionId: string): Promise<string | undefined> {
  const {
    data: [session],
  } = await req.scope.resolve(ContainerRegistrationKeys.QUERY).graph({
    entity: "payment_session",
    fields: ["payment.id"],
    filters: { id: sessionId },
  })
  return session?.payment?.id
}
