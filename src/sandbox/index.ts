import { createServer, type Server } from "node:http"
import type { AddressInfo } from "node:net"
import { createAccount } from "./accounts"
import { createApp } from "./http/app"
import type { Fault } from "./http/faults"
import type { LoggedRequest } from "./http/request-log"
import type { FaultSpec } from "./request-schemas"
import { SandboxRuntime } from "./runtime"
import { settingsView, type SandboxOptions, type SettingsUpdate, type SettingsView } from "./settings"
import type { IncomingDeposit, StatusChange } from "./shift-lifecycle"
import type { ShiftView } from "./shift-view"
import type { Account, NotificationDelivery } from "./state"

export type { SandboxOptions, SettingsUpdate, SettingsView } from "./settings"
export { REALISTIC_RATE_LIMITS } from "./settings"
export type { ShiftView } from "./shift-view"
export type { Fault } from "./http/faults"
export type { LoggedRequest } from "./http/request-log"
export type { FaultSpec } from "./request-schemas"
export type { IncomingDeposit, StatusChange } from "./shift-lifecycle"
export type { NotificationDelivery } from "./state"

export type Sandbox = {
  /** e.g. http://127.0.0.1:PORT; the API lives at /v2/... and /create-account below it. */
  baseUrl: string
  graphqlUrl: string
  /** Base of the pay page: `${payUrl}/checkout/{id}`. */
  payUrl: string
  /** The initial account. */
  account: Account
  close(): Promise<void>

  // Helpers mirroring the control interface (src/sandbox/README.md), for tests in the same process.
  now(): Date
  advanceClock(seconds: number): Date
  createAccount(): Account
  getShift(id: string): ShiftView
  /** Every shift made so far, oldest first: what tests count to prove nothing was made twice. */
  shifts(): ShiftView[]
  deposit(shiftId: string, deposit?: IncomingDeposit): ShiftView
  setStatus(shiftId: string, change: StatusChange): ShiftView
  settings(): SettingsView
  configure(update: SettingsUpdate): SettingsView
  addFault(spec: FaultSpec): Fault
  clearFaults(): void
  /** Removes one fault by its id; false if it is gone (used up or cleared). */
  removeFault(id: string): boolean
  /** Every notification delivery attempt so far. */
  notifications(): NotificationDelivery[]
  /** Resolves once every notification delivery started so far has completed. */
  notificationsSettled(): Promise<void>
  requests(): LoggedRequest[]
  clearRequests(): void
  reset(): void
}

/** A URL host for the address the server listens on (wildcards mean "this machine"). */
function urlHost(host: string): string {
  if (host === "0.0.0.0") {
    return "127.0.0.1"
  }
  if (host === "::") {
    return "[::1]"
  }
  return host.includes(":") ? `[${host}]` : host
}

function listen(server: Server, port: number, host: string): Promise<void> {
  return new Promise((resolve, reject) => {
    server.once("error", reject)
    server.listen(port, host, () => {
      server.off("error", reject)
      resolve()
    })
  })
}

function closeServer(server: Server): Promise<void> {
  return new Promise((resolve, reject) => {
    server.close((error) => (error ? reject(error) : resolve()))
    server.closeAllConnections()
  })
}

/** Starts a local stand-in of the swap service: a real HTTP server with in-memory state. */
export async function startSandbox(options: SandboxOptions = {}): Promise<Sandbox> {
  const runtime = new SandboxRuntime(options)
  const account = createAccount(runtime.state, options.account)
  const server = createServer(createApp(runtime))
  const host = options.host ?? "127.0.0.1"
  await listen(server, options.port ?? 0, host)
  const baseUrl = `http://${urlHost(host)}:${(server.address() as AddressInfo).port}`

  return {
    baseUrl,
    graphqlUrl: `${baseUrl}/graphql`,
    payUrl: baseUrl,
    account,
    close: async () => {
      runtime.stop()
      await closeServer(server)
    },
    now: () => runtime.clock.now(),
    advanceClock: (seconds) => runtime.advanceClock(seconds),
    createAccount: () => createAccount(runtime.state),
    getShift: (id) => runtime.shiftView(id),
    shifts: () => [...runtime.state.shifts.keys()].map((id) => runtime.shiftView(id)),
    deposit: (shiftId, deposit = {}) => runtime.simulateDeposit(shiftId, deposit),
    setStatus: (shiftId, change) => runtime.changeStatus(shiftId, change),
    settings: () => settingsView(runtime.settings),
    configure: (update) => runtime.configure(update),
    addFault: (spec) => runtime.faults.add(spec),
    clearFaults: () => runtime.faults.clear(),
    removeFault: (id) => runtime.faults.remove(id),
    notifications: () => runtime.state.deliveries,
    notificationsSettled: () => runtime.notifier.idle(),
    requests: () => runtime.requestLog.entries,
    clearRequests: () => runtime.requestLog.clear(),
    reset: () => runtime.reset(),
  }
}
