import type { ConfigModule, ILockingModule } from "@medusajs/framework/types"
import { lockingScope } from "../locking-scope"

const locking = (defaultProviderId?: string) => ({ defaultProviderId }) as unknown as ILockingModule
const config = (workerMode?: "shared" | "worker" | "server") => ({ projectConfig: { workerMode } }) as unknown as ConfigModule

describe("lockingScope", () => {
  it("warns a server or a worker whose shift locks are held in its own memory", () => {
    for (const mode of ["worker", "server"] as const) {
      expect(lockingScope(locking("in-memory"), config(mode))).toEqual({
        provider: "in-memory",
        across_processes: false,
        warning: expect.stringContaining(`in memory while this process runs as a ${mode}`),
      })
    }
  })

  it("says nothing to a single shared process, and nothing when the locks hold across processes", () => {
    expect(lockingScope(locking("in-memory"), config())).toEqual({ provider: "in-memory", across_processes: false, warning: null })
    expect(lockingScope(locking("locking-redis"), config("worker"))).toEqual({ provider: "locking-redis", across_processes: true, warning: null })
  })

  it("takes an unknown provider for one that may not hold across processes", () => {
    expect(lockingScope(locking(undefined), config("server"))).toMatchObject({ provider: null, across_processes: false, warning: expect.any(String) })
  })
})
