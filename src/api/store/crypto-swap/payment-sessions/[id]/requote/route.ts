import type { MedusaRequest, MedusaResponse } from "@medusajs/framework/http"
import { createPaymentSessionsWorkflow } from "@medusajs/core-flows"
import { ContainerRegistrationKeys, MedusaError, Modules } from "@medusajs/framework/utils"
import type { CryptoSwapSessionData } from "../../../../../../lib/shift/session-data"
import { shopperError, text } from "../../../../../../lib/i18n"
import { syncShiftWorkflow } from "../../../../../../workflows/sync-shift"
import { CRYPTO_SWAP_MODULE, type CryptoSwapModuleService } from "../../../../../../modules/crypto-swap"
import { shopperIp } from "../../../../../middlewares/attach-customer-ip"
import { parseInput } from "../../../../../parse-input"
import { cartBodySchema } from "../../../validators"
import { providerRegistry } from "../../../../../../lib/provider-registry"
import { assertRoomForNewPayment } from "../../../../../../workflows/steps/variable-pool"
import { ledgerRowForSession, shopperSession } from "../../../shopper-session"

/** A fixed-rate shift that can pay nothing any more: it ran out, or the service sends its deposit back (late, wrong amount). */
const REQUOTABLE = new Set(["expired", "refund", "refunding", "refunded"])

/** Such a payment gets a fresh quote and shift in one call (a new payment session). */
export async function POST(req: MedusaRequest, res: MedusaResponse) {
  const { cart_id } = parseInput(cartBodySchema, req.body)
  const { session: asked } = await shopperSession(req.scope, req.params.id, cart_id)
  // One requote per payment collection at a time: a double click must not create two shifts.
  const locking = req.scope.resolve(Modules.LOCKING)
  const result = await locking.execute(`crypto-swap:requote:${asked.payment_collection_id}`, () => requote(req, cart_id), {
    timeout: 30,
  })
  res.status(201).json({ payment_session: { id: result.id, status: result.status, data: result.data } })
}

async function requote(req: MedusaRequest, cartId: string) {
  // Looked up again under the lock: a requote that just finished has replaced this session.
  const { session } = await shopperSession(req.scope, req.params.id, cartId)
  const query = req.scope.resolve(ContainerRegistrationKeys.QUERY)
  const {
    data: [cart],
  } = await query.graph({ entity: "cart", fields: ["id", "completed_at"], filters: { id: cartId } })
  if (cart?.completed_at) {
    throw shopperError(MedusaError.Types.NOT_ALLOWED, text("requote.order_placed"))
  }
  const row = await ledgerRowForSession(req.scope, session)
  await syncShiftWorkflow(req.scope).run({ input: { ledger_id: row.id, source: "storefront" }, throwOnError: false })
  const current = await req.scope.resolve<CryptoSwapModuleService>(CRYPTO_SWAP_MODULE).retrieveSwapShift(row.id)
  if (!REQUOTABLE.has(current.status) || current.type !== "fixed") {
    throw shopperError(MedusaError.Types.NOT_ALLOWED, text("requote.not_requotable"))
  }
  // This page is where the deposit's refund address is given: it must not go away before one is known.
  if (current.status === "refund" && !current.refund_address) {
    throw shopperError(MedusaError.Types.NOT_ALLOWED, text("requote.address_first"))
  }
  const data = session.data as unknown as CryptoSwapSessionData
  const ip = shopperIp(req)
  const choice = {
    deposit_coin: data.deposit_coin,
    deposit_network: data.deposit_network,
    ...(data.refund_address ? { refund_address: data.refund_address } : {}),
    ...(data.refund_memo ? { refund_memo: data.refund_memo } : {}),
  }
  // The coin may be paid at a variable rate only by now: such a shift needs room in the pool, as a new payment's does.
  const {
    data: [collection],
  } = await query.graph({ entity: "payment_collection", fields: ["id", "amount", "currency_code"], filters: { id: session.payment_collection_id } })
  const provider = providerRegistry(req.scope.resolve(ContainerRegistrationKeys.CONFIG_MODULE)).get(session.provider_id)
  const { deposit_coin, deposit_network } = choice
  if (provider && deposit_coin && deposit_network) await assertRoomForNewPayment(req.scope, provider, collection, { ...choice, deposit_coin, deposit_network }, ip)
  const { result } = await createPaymentSessionsWorkflow(req.scope).run({
    input: {
      payment_collection_id: session.payment_collection_id,
      provider_id: session.provider_id,
      data: { ...choice, ...(ip ? { customer_ip: ip } : {}) },
    },
  })
  return result
}
