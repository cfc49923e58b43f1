import type { MedusaRequest, MedusaResponse } from "@medusajs/framework/http"
import { ContainerRegistrationKeys } from "@medusajs/framework/utils"
import { CRYPTO_SWAP_MODULE, type CryptoSwapModuleService } from "../../../../../../modules/crypto-swap"
import { syncShiftWorkflow } from "../../../../../../workflows/sync-shift"
import { passRefundAddressWorkflow } from "../../../../../../workflows/pass-refund-address"
import { parseInput } from "../../../../../parse-input"
import { refundAddressBodySchema } from "../../../validators"
import { ledgerRowForSession, shopperSession } from "../../../shopper-session"

/**
 * The shopper says where their refund goes: while the service holds the deposit in its refund status,
 * or when the store refunds a settled payment and its refund shift waits for a destination.
 */
export async function POST(req: MedusaRequest, res: MedusaResponse) {
  const { cart_id, address, memo } = parseInput(refundAddressBodySchema, req.body)
  const { session } = await shopperSession(req.scope, req.params.id, cart_id)
  const ledger = req.scope.resolve<CryptoSwapModuleService>(CRYPTO_SWAP_MODULE)
  const paymentId = await paymentOf(req, session.id)
  const [waitingRefund] = paymentId
    ? await ledger.listSwapShifts({ kind: "refund", payment_id: paymentId, status: "address_needed" }, { take: 1 })
    : []
  const row = waitingRefund ?? (await ledgerRowForSession(req.scope, session))
  // A hosted checkout's shift exists once the payer picked a coin: a sync learns which it is.
  if (!row.shift_id) await syncShiftWorkflow(req.scope).run({ input: { ledger_id: row.id, source: "storefront" }, throwOnError: false })
  await passRefundAddressWorkflow(req.scope).run({ input: { ledger_id: row.id, address, memo, source: "storefront" } })
  await syncShiftWorkflow(req.scope).run({ input: { ledger_id: row.id, source: "storefront" }, throwOnError: false })
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
