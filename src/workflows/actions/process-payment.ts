import { capturePaymentWorkflow, processPaymentWorkflow } from "@medusajs/core-flows"
import type { BigNumberInput, MedusaContainer } from "@medusajs/framework/types"
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
