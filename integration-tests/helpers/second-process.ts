// Run with `medusa exec` as a second Medusa process on the same database and Redis: it reconciles
// the ledger as fast as it can, as a second worker would, until the test closes its stdin: it runs
// for as long as the test's own work does, however long that takes.
import type { ExecArgs } from "@medusajs/framework/types"
import { reconcileShiftsWorkflow } from "../../src/workflows/reconcile-shifts"

export default async function reconcileAlongside({ container }: ExecArgs) {
  let stopped = false
  process.stdin.on("end", () => (stopped = true)).resume()
  console.log("second process: reconciling")
  let rounds = 0
  while (!stopped) {
    await Promise.all([reconcileShiftsWorkflow(container).run(), reconcileShiftsWorkflow(container).run()])
    rounds += 1
  }
  console.log(`second process: ${rounds} rounds done`)
}
