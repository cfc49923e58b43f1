import { processPaymentWorkflow } from "@medusajs/core-flows"
import type { MedusaContainer } from "@medusajs/framework/types"
import { withSyncObservation } from "../../lib/shift/sync-observation"
import type { LedgerShift } from "./shift-action"
import type { RecordedShift } from "../steps/record-shift-observation"

/**
 * Medusa's processPaymentWorkflow for the sync's payment, handing the provider the shift this sync has
 * just observed under the shift's lock: its authorize and capture take it instead of reading the shift
 * again (a capture cost three reads of one shift). The provider still reads if it got no observation.
 */
export async function processSyncedPayment(container: MedusaContainer, row: LedgerShift, recorded: RecordedShift, action: "authorized" | "captured") {
  const run = () => processPaymentWorkflow(container).run({ input: { action, data: recorded.payment! } })
  if (!recorded.observed) return run()
  return withSyncObservation({ ...recorded.observed, session_id: recorded.payment!.session_id, checkout_id: row.checkout_id }, run)
}
