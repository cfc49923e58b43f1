import type { AuthenticatedMedusaRequest, MedusaResponse } from "@medusajs/framework/http"
import { ContainerRegistrationKeys } from "@medusajs/framework/utils"
import { CRYPTO_SWAP_MODULE, type CryptoSwapModuleService } from "../../../../../modules/crypto-swap"
import { shiftWithHistory } from "../../admin-shift"

/** Every payment, top-up and refund shift of an order, with its history. */
export async function GET(req: AuthenticatedMedusaRequest, res: MedusaResponse) {
  const query = req.scope.resolve(ContainerRegistrationKeys.QUERY)
  const ledger = req.scope.resolve<CryptoSwapModuleService>(CRYPTO_SWAP_MODULE)
  const orderId = req.params.id
  const { data: carts } = await query.graph({ entity: "order_cart", fields: ["cart_id"], filters: { order_id: orderId } })
  const cartIds = carts.map((link) => link.cart_id)
  const payments = await ledger.listSwapShifts(
    // A payment's top-ups pay the same order: the merchant sees every shift of it.
    { kind: ["payment", "top_up"], $or: [{ order_id: orderId }, ...(cartIds.length ? [{ cart_id: cartIds }] : [])] },
    { select: ["id", "shift_id", "payment_id"], order: { created_at: "ASC" } }
  )
  const shiftIds = payments.map((row) => row.shift_id).filter((id): id is string => Boolean(id))
  const paymentIds = payments.map((row) => row.payment_id).filter((id): id is string => Boolean(id))
  const refunds =
    shiftIds.length || paymentIds.length
      ? await ledger.listSwapShifts(
          { kind: "refund", $or: [{ refund_of_shift_id: shiftIds }, { payment_id: paymentIds }] },
          { select: ["id"], order: { created_at: "ASC" } }
        )
      : []
  const shifts = await Promise.all([...payments, ...refunds].map((row) => shiftWithHistory(req.scope, row.id)))
  res.json({ order_id: orderId, shifts })
}
