import type { MedusaRequest, MedusaResponse } from "@medusajs/framework/http"
import { sayTo } from "../../../../shopper-language"
import { parseInput } from "../../../../parse-input"
import { sessionQuerySchema } from "../../validators"
import { sessionView, shopperSession } from "../../shopper-session"

/**
 * The live view a payment page polls. A stale view syncs the shift first, so the order is completed
 * as soon as the page notices the payment, even before the next reconciliation tick.
 */
export async function GET(req: MedusaRequest, res: MedusaResponse) {
  const { cart_id } = parseInput(sessionQuerySchema, req.query)
  const { session, provider } = await shopperSession(req.scope, req.params.id, cart_id, { withGone: true })
  res.json(await sessionView(req.scope, session, provider, cart_id, sayTo(req)))
}
