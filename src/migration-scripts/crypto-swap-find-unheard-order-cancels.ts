import type { ExecArgs } from "@medusajs/framework/types"
import { findUnheardOrderCancelsWorkflow } from "../workflows/find-unheard-order-cancels"

/**
 * Once, at the upgrade (`medusa db:migrate`): orders canceled before this release may have left money on a
 * captured crypto payment, and the hourly job looks only at recent captures. Every captured payment is looked
 * at; the job's ticks refund what was kept. Medusa records a script as done by its file name alone, in one list for
 * every plugin: hence the prefix.
 */
export default async function findUnheardOrderCancelsAtUpgrade({ container }: Pick<ExecArgs, "container">) {
  await findUnheardOrderCancelsWorkflow(container).run({ input: { captured_since: null } })
}
