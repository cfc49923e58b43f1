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
import { decodeSnapshot, encodeSnapshot } from "./snapshot"
import type { Account, NotificationDelivery, SandboxState } from "./state"
import { StateFile } from "./state-file"

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
  /** It continued from its state file (options.stateFile) rather than starting afresh. */
  restored: boolean
  /** Stops the server and, with a state file, saves what is not saved yet. */
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

/** The saved initial account, after restoring everything else from the file's text. */
function restoreFrom(runtime: SandboxRuntime, text: string): Account {
  const snapshot = decodeSnapshot(text)
  const account = (snapshot.state.accounts as SandboxState["accounts"] | undefined)?.get(snapshot.account)
  if (!account) throw new Error(`its account ${snapshot.account} is missing`)
  runtime.restore(snapshot)
  return account
}

/** Starts a local stand-in of the swap service: a real HTTP server, its state in memory or in `stateFile`. */
export async function startSandbox(options: SandboxOptions = {}): Promise<Sandbox> {
  const runtime = new SandboxRuntime(options)
  const stateFile = options.stateFile === undefined ? undefined : new StateFile(options.stateFile, runtime.log)
  stateFile?.claim()
  let saved: Account | undefined
  try {
    saved = stateFile?.read((text) => restoreFrom(runtime, text))
  } catch (error) {
    stateFile?.release()
    throw error
  }
  const account = saved && !options.account ? saved : createAccount(runtime.state, options.account)
  const app = createApp(runtime)
  // Any request may change the state: counted once its answer is done, or dropped.
  const server = createServer((request, response) => {
    response.once("close", runtime.changed)
    app(request, response)
  })
  const host = options.host ?? "127.0.0.1"
  await listen(server, options.port ?? 0, host).catch((error) => {
    // Nothing was served: the file keeps what it had.
    runtime.stop()
    stateFile?.release()
    throw error
  })
  if (stateFile) {
    runtime.onChange(stateFile.changed)
    await stateFile.start(() => encodeSnapshot({ ...runtime.snapshot(), account: account.id }))
  }
  const baseUrl = `http://${urlHost(host)}:${(server.address() as AddressInfo).port}`

  return {
    baseUrl,
    graphqlUrl: `${baseUrl}/graphql`,
    payUrl: baseUrl,
    account,
    restored: saved !== undefined,
    close: async () => {
      runtime.stop()
      await closeServer(server)
      await runtime.notifier.idle()
      await stateFile?.close()
    },
    now: () => runtime.clock.now(),
    advanceClock: (seconds) => runtime.advanceClock(seconds),
    createAccount: () => {
      const created = createAccount(runtime.state)
      runtime.changed()
      return created
    },
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
