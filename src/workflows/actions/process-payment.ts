import { addOrderTransactionStep, capturePaymentWorkflow, processPaymentWorkflow } from "@medusajs/core-flows"
import type { BigNumberInput, BigNumberRawValue, MedusaContainer } from "@medusajs/framework/types"
import { createWorkflow, WorkflowResponse } from "@medusajs/framework/workflows-sdk"
import { withSyncObservation } from "../../lib/shift/sync-observation"
import type { LedgerShift } from "./shift-action"
import type { RecordedShift } from "../steps/record-shift-observation"

/**
 * Runs a Medusa payment workflow for the sync's payment, handing the provider the shift this sync has just
 * observed under the shift's lock: its authorize and capture take it instead of reading the shift again (a
 * capture cost three reads of one shift). The provider still reads if it got no observation.
 */
function withObservedShift<T>(row: LedgerShift, recorded: RecordedShift, run: () => Promise<T>): Promise<T> {
  if (!recorded.observed) return run()
  return withSyncObservation({ ...recorded.observed, session_id: recorded.payment!.session_id, checkout_id: row.checkout_id }, run)
}

/** Medusa's processPaymentWorkflow for the sync's payment. */
export async function processSyncedPayment(container: MedusaContainer, row: LedgerShift, recorded: RecordedShift, action: "authorized" | "captured") {
  return withObservedShift(row, recorded, () => processPaymentWorkflow(container).run({ input: { action, data: recorded.payment! } }))
}

/** Captures `amount` of the sync's payment (what a capture by hand left), recorded on its order like any capture. */
export async function captureSyncedAmount(container: MedusaContainer, row: LedgerShift, recorded: RecordedShift, paymentId: string, amount: BigNumberInput) {
  return withObservedShift(row, recorded, () => capturePaymentWorkflow(container).run({ input: { payment_id: paymentId, amount } }))
}

type OrderCaptures = { order_id: string; currency_code: string; captures: Array<{ id: string; raw_amount: BigNumberRawValue }> }

/** Medusa's own step, which books each capture once (it skips a reference already on the order). */
const bookOrderCapturesWorkflow = createWorkflow("crypto-swap-book-order-captures", (input: { transactions: Parameters<typeof addOrderTransactionStep>[0] }) => {
  return new WorkflowResponse(addOrderTransactionStep(input.transactions))
})

/**
 * Books the payment's captures on its order as Medusa's capture workflow does. A payment the provider
 * answered captured when Medusa authorized it (an order placed before payment whose shift was first read
 * settled) is captured inside the authorization, which books nothing: the order would say it is unpaid.
 */
export async function bookOrderCaptures(container: MedusaContainer, { order_id, currency_code, captures }: OrderCaptures) {
  if (!captures.length) return
  const transactions = captures.map((capture) => ({ order_id, currency_code, amount: capture.raw_amount, reference: "capture", reference_id: capture.id }))
  await bookOrderCapturesWorkflow(container).run({ input: { transactions } })
}
