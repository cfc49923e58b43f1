import type { MedusaRequest, MedusaResponse } from "@medusajs/framework/http"
import { CRYPTO_SWAP_MODULE, type CryptoSwapModuleService } from "../../../../../modules/crypto-swap"
import { paymentView } from "../../../../../lib/payment-view"
import { decideStatus, statusPolicy } from "../../../../../providers/crypto-swap/status-map"
import { syncShiftWorkflow } from "../../../../../workflows/sync-shift"
import { parseInput } from "../../../../parse-input"
import { sessionQuerySchema } from "../../validators"
import { ledgerRowForSession, shopperSession } from "../../shopper-session"

/** However many pages poll, the service is read at most once per this long per session. */
const READ_CACHE_MS = 3000

/**
 * The live view a payment page polls. A stale view syncs the shift first, so the order is completed
 * as soon as the page notices the payment, even before the next reconciliation tick.
 */
export async function GET(req: MedusaRequest, res: MedusaResponse) {
  const { cart_id } = parseInput(sessionQuerySchema, req.query)
  const { session, provider } = await shopperSession(req.scope, req.params.id, cart_id)
  const ledger = req.scope.resolve<CryptoSwapModuleService>(CRYPTO_SWAP_MODULE)
  let row = await ledgerRowForSession(req.scope, session, cart_id)
  if (!row.terminal || !row.last_synced_at) {
    await syncShiftWorkflow(req.scope).run({
      input: {
        ledger_id: row.id,
        source: "storefront",
        lock_timeout: 0,
        fresh_since: new Date(Date.now() - READ_CACHE_MS).toISOString(),
      },
      throwOnError: false,
    })
    row = await ledger.retrieveSwapShift(row.id)
  }
  const decision = decideStatus(
    { status: row.status, type: row.type, settleAmount: row.settle_amount, deposits: row.deposits as any },
    statusPolicy(provider.options, row.amount_due ?? "0")
  )
  res.json({
    payment_session: {
      id: session.id,
      status: session.status,
      amount: row.amount_due,
      currency_code: row.currency_code,
      pay_url: (session.data?.pay_url as string | undefined) ?? null,
    },
    payment: await paymentView(row, decision.stage),
  })
}
