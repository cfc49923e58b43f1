import { spawn, type ChildProcess } from "node:child_process"
import path from "node:path"

// The real `crypto-swap` command in a process of its own, as a store owner runs it (`npm run sandbox` runs
// it the same way): for what only a process shows, such as its working directory, signals and exit code.

const CLI = path.resolve(__dirname, "../index.ts")
const TS_NODE = require.resolve("ts-node/dist/bin.js")

/** A shell's environment: none of this test process's crypto-swap variables, Jest's NODE_ENV or its node options. */
function shellEnv(extra: Record<string, string>): NodeJS.ProcessEnv {
  const inherited = Object.entries(process.env).filter(([name]) => !name.startsWith("CRYPTO_SWAP_") && name !== "NODE_ENV" && name !== "NODE_OPTIONS")
  return { ...Object.fromEntries(inherited), ...extra }
}

export type CliProcess = {
  child: ChildProcess
  /** stdout and stderr so far. */
  output(): string
  /** Resolves with the first match of `pattern` in the output; rejects if the process ends first. */
  waitFor(pattern: RegExp): Promise<RegExpExecArray>
  exited: Promise<number | null>
}

export function startCli(args: string[], options: { cwd: string; env?: Record<string, string> }): CliProcess {
  const child = spawn(process.execPath, [TS_NODE, "--transpile-only", CLI, ...args], {
    cwd: options.cwd,
    env: shellEnv(options.env ?? {}),
    stdio: ["ignore", "pipe", "pipe"],
  })
  let output = ""
  const watchers = new Set<() => void>()
  const collect = (chunk: Buffer) => {
    output += chunk.toString()
    for (const watcher of watchers) watcher()
  }
  child.stdout.on("data", collect)
  child.stderr.on("data", collect)
  const exited = new Promise<number | null>((resolve) => child.once("close", (code) => resolve(code)))
  const waitFor = (pattern: RegExp) =>
    new Promise<RegExpExecArray>((resolve, reject) => {
      const check = () => {
        const match = pattern.exec(output)
        if (match) {
          watchers.delete(check)
          resolve(match)
        }
      }
      watchers.add(check)
      check()
      void exited.then(() => {
        watchers.delete(check)
        reject(new Error(`crypto-swap ${args.join(" ")} ended without printing ${pattern}:\n${output}`))
      })
    })
  return { child, output: () => output, waitFor, exited }
}

/** Runs a command to its end. */
export async function runCli(args: string[], options: { cwd: string; env?: Record<string, string> }): Promise<{ code: number | null; output: string }> {
  const cli = startCli(args, options)
  const code = await cli.exited
  return { code, output: cli.output() }
}
