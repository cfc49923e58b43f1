import type { MedusaRequest, MedusaResponse } from "@medusajs/framework/http"
import { createTopUpShiftWorkflow } from "../../../../../../workflows/create-top-up-shift"
import { shopperIp } from "../../../../../middlewares/attach-customer-ip"
import { mayOnlyReuse, spentNothing } from "../../../../../middlewares/throttle-shift-creation"
import { sayTo } from "../../../../../shopper-language"
import { parseInput } from "../../../../../parse-input"
import { cartBodySchema } from "../../../validators"
import { currentPayment, PAGE_READ_CACHE_MS, sessionView, shopperSession } from "../../../shopper-session"

/**
 * Pays the rest of a payment that arrived short: a top-up shift for what is missing, shown on the
 * payment page with its own address and amount. Judged on the payment as the service says it is now.
 */
export async function POST(req: MedusaRequest, res: MedusaResponse) {
  const { cart_id } = parseInput(cartBodySchema, req.body)
  const { session, provider } = await shopperSession(req.scope, req.params.id, cart_id)
  const { row } = await currentPayment(req.scope, session, provider, cart_id, PAGE_READ_CACHE_MS)
  const { result } = await createTopUpShiftWorkflow(req.scope).run({ input: { ledger_id: row.id, customer_ip: shopperIp(req), reuse_only: mayOnlyReuse(req) } })
  if (!result.made) spentNothing(res)
  res.status(201).json(await sessionView(req.scope, session, provider, cart_id, sayTo(req)))
}
