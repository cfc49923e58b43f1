import type { ConfigModule, ILockingModule } from "@medusajs/framework/types"

/** Medusa's default locking provider, which holds a lock in the memory of one process. */
const IN_MEMORY_LOCKING = "in-memory"

/**
 * Whether a shift's lock holds across Medusa's processes. Medusa's default locking holds it in one process: a
 * server and a worker (`workerMode`) each take their own, and two syncs of one shift run at once. The plugin's
 * writes that would cost money twice guard themselves in the database too (one refund shift per refund), but
 * not every action can: the README asks for Redis locking.
 */
export function lockingScope(locking: ILockingModule, config: ConfigModule) {
  // The module keeps its default provider's id on itself; it has no accessor.
  const provider = (locking as unknown as { defaultProviderId?: string }).defaultProviderId ?? null
  const acrossProcesses = provider !== null && provider !== IN_MEMORY_LOCKING
  const workerMode = config.projectConfig.workerMode ?? "shared"
  return {
    provider,
    across_processes: acrossProcesses,
    warning:
      acrossProcesses || workerMode === "shared"
        ? null
        : `Medusa's locking is in memory while this process runs as a ${workerMode}: the server's and the worker's locks of a shift don't see each other. Configure Redis locking (README, "Reconciliation").`,
  }
}
