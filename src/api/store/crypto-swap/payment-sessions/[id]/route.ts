import type { MedusaRequest, MedusaResponse } from "@medusajs/framework/http"
import { paymentView } from "../../../../../lib/shift/payment-view"
import { catalogueFor } from "../../../../../lib/provider-registry"
import { parseInput } from "../../../../parse-input"
import { sessionQuerySchema } from "../../validators"
import { currentPayment, PAGE_READ_CACHE_MS, shopperSession } from "../../shopper-session"

/**
 * The live view a payment page polls. A stale view syncs the shift first, so the order is completed
 * as soon as the page notices the payment, even before the next reconciliation tick.
 */
export async function GET(req: MedusaRequest, res: MedusaResponse) {
  const { cart_id } = parseInput(sessionQuerySchema, req.query)
  const { session, provider } = await shopperSession(req.scope, req.params.id, cart_id)
  const { row, decision } = await currentPayment(req.scope, session, provider, cart_id, PAGE_READ_CACHE_MS)
  res.json({
    payment_session: {
      id: session.id,
      status: session.status,
      amount: row.amount_due,
      currency_code: row.currency_code,
      pay_url: (session.data?.pay_url as string | undefined) ?? null,
    },
    payment: await paymentView(row, decision.stage, catalogueFor(provider)),
  })
}
