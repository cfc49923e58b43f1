import { fork, type ChildProcess } from "node:child_process"
import path from "node:path"
import type { Sandbox, SandboxOptions } from "../../src/sandbox"
import { exportSandboxEnv, sandboxControl } from "./sandbox"

type Helpers = Omit<Sandbox, "baseUrl" | "graphqlUrl" | "payUrl" | "account" | "restored" | "close">
type HelperName = keyof Helpers
export type SandboxCall = { id: number; method: HelperName; args: unknown[] }

/** The sandbox's in-process helpers, called across the process boundary: each answers a promise of what it returns. */
export type RemoteSandbox = Pick<Sandbox, "baseUrl" | "graphqlUrl" | "payUrl" | "account"> & {
  [K in HelperName]: (...args: Parameters<Helpers[K]>) => Promise<Awaited<ReturnType<Helpers[K]>>>
}

/**
 * Like `useSandbox`, with the sandbox in a child process of its own: benchmarks measure the Medusa
 * process alone (its CPU time and memory), not the stand-in's work on the other end of each request.
 */
export function useSandboxProcess(options: SandboxOptions = {}) {
  let child: ChildProcess | undefined
  let remote: RemoteSandbox | undefined
  beforeAll(async () => {
    child = fork(path.join(__dirname, "sandbox-process-entry.ts"), [], {
      execArgv: ["-r", "ts-node/register/transpile-only"],
      env: { ...process.env, CRYPTO_SWAP_SANDBOX_OPTIONS: JSON.stringify(options), NODE_OPTIONS: "" },
      stdio: ["ignore", "inherit", "inherit", "ipc"],
    })
    remote = await connect(child)
    exportSandboxEnv(remote)
  }, 120_000)
  afterAll(async () => {
    if (!child || child.exitCode !== null) return
    const exited = new Promise((resolve) => child!.once("exit", resolve))
    child.disconnect()
    await exited
  })
  return {
    get sandbox(): RemoteSandbox {
      if (!remote) throw new Error("The sandbox process is not started yet")
      return remote
    },
    get control() {
      return sandboxControl(this.sandbox.baseUrl)
    },
  }
}

function connect(child: ChildProcess): Promise<RemoteSandbox> {
  const waiting = new Map<number, { resolve: (value: any) => void; reject: (error: Error) => void }>()
  let nextId = 0
  const call = (method: HelperName, args: unknown[]) =>
    new Promise((resolve, reject) => {
      const id = nextId++
      waiting.set(id, { resolve, reject })
      child.send({ id, method, args } satisfies SandboxCall)
    })
  return new Promise((resolve, reject) => {
    child.once("exit", (code) => reject(new Error(`The sandbox process exited (${code}) before it was ready`)))
    child.on("message", (message: any) => {
      if (message.ready) {
        // Every other name is a helper call; not `then`, or the proxy would pass for a promise.
        const helper = (key: string | symbol) => typeof key === "string" && key !== "then" && !(key in message.ready)
        resolve(new Proxy(message.ready, { get: (target, key) => (helper(key) ? (...args: unknown[]) => call(key as HelperName, args) : target[key]) }))
        return
      }
      const pending = waiting.get(message.id)
      waiting.delete(message.id)
      if (message.error !== undefined) pending?.reject(new Error(`Sandbox ${message.id}: ${message.error}`))
      else pending?.resolve(message.result)
    })
  })
}
