import type { AuthenticatedMedusaRequest, MedusaResponse } from "@medusajs/framework/http"
import { ContainerRegistrationKeys } from "@medusajs/framework/utils"
import { CRYPTO_SWAP_MODULE, type CryptoSwapModuleService } from "../../../../../modules/crypto-swap"
import { shiftWithHistory } from "../../admin-shift"

/** Every payment and refund shift of an order, with its history. */
export async function GET(req: AuthenticatedMedusaRequest, res: MedusaResponse) {
  const query = req.scope.resolve(ContainerRegistrationKeys.QUERY)
  const ledger = req.scope.resolve<CryptoSwapModuleService>(CRYPTO_SWAP_MODULE)
  const orderId = req.params.id
  const { data: carts } = await query.graph({ entity: "order_cart", fields: ["cart_id"], filters: { order_id: orderId } })
  const cartIds = carts.map((link) => link.cart_id)
  const payments = await ledger.listSwapShifts(
    { $or: [{ order_id: orderId }, ...(cartIds.length ? [{ cart_id: cartIds }] : [])] },
    { select: ["id", "shift_id"], order: { created_at: "ASC" } }
  )
  const paymentShiftIds = payments.map((row) => row.shift_id).filter((id): id is string => Boolean(id))
  const refunds = paymentShiftIds.length
    ? await ledger.listSwapShifts({ refund_of_shift_id: paymentShiftIds }, { select: ["id"], order: { created_at: "ASC" } })
    : []
  const shifts = await Promise.all([...payments, ...refunds].map((row) => shiftWithHistory(req.scope, row.id)))
  res.json({ order_id: orderId, shifts })
}
