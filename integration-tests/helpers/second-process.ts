// Run with `medusa exec` as a second Medusa process on the same database and Redis: it reconciles
// the ledger as fast as it can for a while, as a second worker would.
import type { ExecArgs } from "@medusajs/framework/types"
import { reconcileShiftsWorkflow } from "../../src/workflows/reconcile-shifts"

export default async function reconcileAlongside({ container }: ExecArgs) {
  const until = Date.now() + Number(process.env.CRYPTO_SWAP_SECOND_PROCESS_SECONDS ?? 15) * 1000
  console.log("second process: reconciling")
  let rounds = 0
  while (Date.now() < until) {
    await Promise.all([reconcileShiftsWorkflow(container).run(), reconcileShiftsWorkflow(container).run()])
    rounds += 1
  }
  console.log(`second process: ${rounds} rounds done`)
}
