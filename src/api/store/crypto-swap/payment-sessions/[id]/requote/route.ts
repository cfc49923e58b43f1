import type { MedusaRequest, MedusaResponse } from "@medusajs/framework/http"
import { createPaymentSessionsWorkflow } from "@medusajs/core-flows"
import { MedusaError } from "@medusajs/framework/utils"
import type { CryptoSwapSessionData } from "../../../../../../providers/crypto-swap/session-data"
import { syncShiftWorkflow } from "../../../../../../workflows/sync-shift"
import { CRYPTO_SWAP_MODULE, type CryptoSwapModuleService } from "../../../../../../modules/crypto-swap"
import { shopperIp } from "../../../../../middlewares/attach-customer-ip"
import { parseInput } from "../../../../../parse-input"
import { requoteBodySchema } from "../../../validators"
import { ledgerRowForSession, shopperSession } from "../../../shopper-session"

/** An expired fixed-rate payment gets a fresh quote and shift in one call (a new payment session). */
export async function POST(req: MedusaRequest, res: MedusaResponse) {
  const { cart_id } = parseInput(requoteBodySchema, req.body)
  const { session } = await shopperSession(req.scope, req.params.id, cart_id)
  const row = await ledgerRowForSession(req.scope, session, cart_id)
  await syncShiftWorkflow(req.scope).run({ input: { ledger_id: row.id, source: "storefront" }, throwOnError: false })
  const current = await req.scope.resolve<CryptoSwapModuleService>(CRYPTO_SWAP_MODULE).retrieveSwapShift(row.id)
  if (current.status !== "expired" || current.type !== "fixed") {
    throw new MedusaError(MedusaError.Types.NOT_ALLOWED, "Only an expired fixed-rate payment can be requoted.")
  }
  const data = session.data as unknown as CryptoSwapSessionData
  const ip = shopperIp(req)
  const { result } = await createPaymentSessionsWorkflow(req.scope).run({
    input: {
      payment_collection_id: session.payment_collection_id,
      provider_id: session.provider_id,
      data: {
        deposit_coin: data.deposit_coin,
        deposit_network: data.deposit_network,
        ...(data.refund_address ? { refund_address: data.refund_address } : {}),
        ...(data.refund_memo ? { refund_memo: data.refund_memo } : {}),
        ...(ip ? { customer_ip: ip } : {}),
      },
    },
  })
  res.status(201).json({ payment_session: { id: result.id, status: result.status, data: result.data } })
}
