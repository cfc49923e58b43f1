import { createStep, StepResponse } from "@medusajs/framework/workflows-sdk"
import { CRYPTO_SWAP_MODULE, type CryptoSwapModuleService } from "../../modules/crypto-swap"
import type { ReconciliationStats } from "./sync-due-shifts"
import type { Discovery } from "./discover-shifts"
import type { RefundDiscovery } from "./discover-refunds"

/** Runs kept for the health route. */
const KEEP_RUNS = 50

export const recordReconciliationRunStep = createStep(
  "crypto-swap-record-reconciliation-run",
  async (input: { started_at: string; discovery: Discovery; refunds: RefundDiscovery; stats: ReconciliationStats }, { container }) => {
    const ledger = container.resolve<CryptoSwapModuleService>(CRYPTO_SWAP_MODULE)
    const startedAt = new Date(input.started_at)
    const run = await ledger.createSwapReconciliationRuns({
      started_at: startedAt,
      duration_ms: Date.now() - startedAt.getTime(),
      discovered: input.discovery.discovered,
      discovered_through: input.discovery.discovered_through ? new Date(input.discovery.discovered_through) : null,
      refunds_through: input.refunds.refunds_through ? new Date(input.refunds.refunds_through) : null,
      ...input.stats,
    })
    const old = await ledger.listSwapReconciliationRuns({}, { select: ["id"], order: { started_at: "DESC" }, skip: KEEP_RUNS, take: 500 })
    if (old.length) await ledger.deleteSwapReconciliationRuns(old.map((row) => row.id))
    return new StepResponse(run)
  }
)
