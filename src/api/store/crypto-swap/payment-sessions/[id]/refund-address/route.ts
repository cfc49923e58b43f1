import type { MedusaRequest, MedusaResponse } from "@medusajs/framework/http"
import { ContainerRegistrationKeys, MedusaError } from "@medusajs/framework/utils"
import { CRYPTO_SWAP_MODULE, type CryptoSwapModuleService } from "../../../../../../modules/crypto-swap"
import { clientFor } from "../../../../../../lib/provider-registry"
import { assertRefundMemoAllowed } from "../../../../../../lib/refund-destination"
import { ledgerFieldsFromShift } from "../../../../../../lib/ledger-fields"
import { latestShiftId } from "../../../../../../lib/swap-service"
import { toMedusaError } from "../../../../../../providers/crypto-swap/errors"
import { syncShiftWorkflow } from "../../../../../../workflows/sync-shift"
import { giveRefundAddress } from "../../../../../../workflows/give-refund-address"
import { parseInput } from "../../../../../parse-input"
import { refundAddressBodySchema } from "../../../validators"
import { ledgerRowForSession, shopperSession } from "../../../shopper-session"

/**
 * The shopper says where their refund goes: while the service holds the deposit in its refund status,
 * or when the store refunds a settled payment and its refund shift waits for a destination.
 */
export async function POST(req: MedusaRequest, res: MedusaResponse) {
  const { cart_id, address, memo } = parseInput(refundAddressBodySchema, req.body)
  const { session, provider } = await shopperSession(req.scope, req.params.id, cart_id)
  const ledger = req.scope.resolve<CryptoSwapModuleService>(CRYPTO_SWAP_MODULE)
  const paymentId = await paymentOf(req, session.id)
  const [waitingRefund] = paymentId
    ? await ledger.listSwapShifts({ kind: "refund", payment_id: paymentId, status: "address_needed" }, { take: 1 })
    : []
  if (waitingRefund) {
    await giveRefundAddress(req.scope, provider, waitingRefund, address, memo)
    res.json({ refund_address: address, refund_memo: memo ?? null })
    return
  }
  const row = await ledgerRowForSession(req.scope, session, cart_id)
  const client = clientFor(provider)
  try {
    // In checkout mode the shift is the checkout's latest, which the ledger may not know yet.
    const shiftId = row.shift_id ?? (row.checkout_id ? latestShiftId(await client.getCheckout(row.checkout_id)) : undefined)
    const shift = shiftId ? await client.getShift(shiftId) : undefined
    // `multiple`: a later deposit of a fixed shift ("max 1 deposit") waits for its refund on its own.
    const awaitingRefund =
      shift?.status === "refund" ||
      (shift?.status === "multiple" && (shift.deposits ?? []).some((deposit) => deposit.status === "refund"))
    if (!shift || !awaitingRefund) {
      throw new MedusaError(MedusaError.Types.NOT_ALLOWED, "A refund address can only be given while the payment waits for a refund.")
    }
    if (shift.refundAddress) {
      throw new MedusaError(MedusaError.Types.NOT_ALLOWED, "This payment already has a refund address; it can't be changed.")
    }
    await assertRefundMemoAllowed(provider, shift.depositCoin, shift.depositNetwork, memo)
    const updated = await client.setRefundAddress(shift.id, { address, memo })
    await ledger.updateSwapShifts({ id: row.id, ...ledgerFieldsFromShift(updated, row) })
  } catch (error) {
    throw toMedusaError(error, "setting the refund address")
  }
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
