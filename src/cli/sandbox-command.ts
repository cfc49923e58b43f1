// `crypto-swap sandbox`: runs the local stand-in of the swap service until Ctrl+C.
import path from "node:path"
import { parseArgs } from "node:util"
import { REALISTIC_RATE_LIMITS, startSandbox, type Sandbox, type SandboxOptions } from "../sandbox"

/** A fixed default, so that a store's configuration keeps pointing at the sandbox across restarts. */
export const DEFAULT_SANDBOX_PORT = 8788
/** In the working directory, so each project keeps its own sandbox account and shifts. */
export const DEFAULT_STATE_FILE = ".crypto-swap-sandbox.json"

const HELP = `Usage: crypto-swap sandbox [options]

Starts a local sandbox of the crypto swap service: the same API, no real funds.

Options:
  --port N                  Port to listen on (default ${DEFAULT_SANDBOX_PORT}; 0 = any free port)
  --host H                  Address to listen on (default 127.0.0.1)
  --auto                    Deposits settle by themselves: pending -> processing -> settling -> settled
  --step-ms N               With --auto: milliseconds per step (default 1000)
  --blocked-ip IP           An end-user IP the service refuses (repeatable)
  --account-id ID           Use this account id (with --secret) instead of a generated one
  --secret S                The account's secret
  --rate-limits MODE        realistic (20 quotes and 5 shifts per minute per IP, default) or off
  --rate-limit-by KEY       connection (the caller's address, as the service counts; default) or
                            user-ip (the x-user-ip header, which the caller chooses)
  --state-file PATH         Keep the account, shifts, checkouts, hooks, clock and settings here and
                            continue from them on the next start (default ${DEFAULT_STATE_FILE});
                            the flags above still apply at each start
  --memory                  Keep nothing: a new account and empty state at each start
  --help                    Show this help`

function wholeNumber(name: string, text: string, min: number): number {
  const value = Number(text)
  if (!Number.isInteger(value) || value < min) {
    throw new Error(`--${name} must be a whole number of at least ${min}, got "${text}"`)
  }
  return value
}

/** The sandbox options the arguments ask for, or "help". Throws on a bad argument. */
export function parseSandboxArgs(argv: string[]): SandboxOptions | "help" {
  const { values } = parseArgs({
    args: argv,
    strict: true,
    options: {
      port: { type: "string" },
      host: { type: "string" },
      auto: { type: "boolean" },
      "step-ms": { type: "string" },
      "blocked-ip": { type: "string", multiple: true },
      "account-id": { type: "string" },
      secret: { type: "string" },
      "rate-limits": { type: "string" },
      "rate-limit-by": { type: "string" },
      "state-file": { type: "string" },
      memory: { type: "boolean" },
      help: { type: "boolean" },
    },
  })
  if (values.help) {
    return "help"
  }
  if ((values["account-id"] === undefined) !== (values.secret === undefined)) {
    throw new Error("--account-id and --secret go together")
  }
  if (values.memory && values["state-file"] !== undefined) {
    throw new Error("--memory and --state-file exclude each other")
  }
  if (values["step-ms"] !== undefined && !values.auto) {
    throw new Error("--step-ms only applies with --auto")
  }
  const rateLimits = values["rate-limits"] ?? "realistic"
  if (rateLimits !== "realistic" && rateLimits !== "off") {
    throw new Error(`--rate-limits must be realistic or off, got "${rateLimits}"`)
  }
  const rateLimitBy = values["rate-limit-by"] ?? "connection"
  if (rateLimitBy !== "connection" && rateLimitBy !== "user-ip") {
    throw new Error(`--rate-limit-by must be connection or user-ip, got "${rateLimitBy}"`)
  }
  return {
    port: values.port === undefined ? DEFAULT_SANDBOX_PORT : wholeNumber("port", values.port, 0),
    host: values.host,
    auto: values.auto === true && (values["step-ms"] === undefined || { stepMs: wholeNumber("step-ms", values["step-ms"], 1) }),
    // The settings flags are always given, defaults included, so that they replace saved settings.
    blockedIps: values["blocked-ip"] ?? [],
    account: values["account-id"] === undefined ? undefined : { id: values["account-id"], secret: values.secret as string },
    rateLimits: rateLimits === "realistic" ? REALISTIC_RATE_LIMITS : {},
    rateLimitBy,
    stateFile: values.memory ? undefined : path.resolve(values["state-file"] ?? DEFAULT_STATE_FILE),
  }
}

function untilStopSignal(): Promise<NodeJS.Signals> {
  return new Promise((resolve) => {
    const stop = (signal: NodeJS.Signals) => {
      process.off("SIGINT", stop)
      process.off("SIGTERM", stop)
      resolve(signal)
    }
    process.on("SIGINT", stop)
    process.on("SIGTERM", stop)
  })
}

function stateLine(stateFile: string | undefined, sandbox: Sandbox): string {
  if (stateFile === undefined) {
    return "in memory only: gone when the sandbox stops"
  }
  return `${stateFile} (${sandbox.restored ? `continued: ${sandbox.shifts().length} shift(s)` : "new"})`
}

export async function runSandboxCommand(argv: string[]): Promise<void> {
  const options = parseSandboxArgs(argv)
  if (options === "help") {
    console.log(HELP)
    return
  }
  // Listening before anything is printed: a signal sent as soon as the banner shows must still close (and save).
  const stopped = untilStopSignal()
  const sandbox = await startSandbox({ ...options, logger: (line) => console.log(line) })
  const { auto, rateLimits, rateLimitBy, secretHeader } = sandbox.settings()
  console.log(
    [
      "Crypto swap sandbox running. No real funds move.",
      `  Base URL:     ${sandbox.baseUrl}   (API under /v2, POST /create-account)`,
      `  GraphQL URL:  ${sandbox.graphqlUrl}`,
      `  Pay URL:      ${sandbox.payUrl}   (pay pages at /checkout/{id})`,
      `  Account id:   ${sandbox.account.id}`,
      `  Secret:       ${sandbox.account.secret}   (header ${secretHeader})`,
      `  Deposits:     ${auto ? `automatic, one status step every ${auto.stepMs} ms` : "manual: POST /sandbox/shifts/{id}/deposit"}`,
      `  Rate limits:  ${rateLimits.quotesPerMinute ? `${rateLimits.quotesPerMinute} quotes and ${rateLimits.shiftsPerMinute} shifts per minute per ${rateLimitBy === "connection" ? "calling address" : "x-user-ip"}` : "off"}`,
      `  State:        ${stateLine(options.stateFile, sandbox)}`,
      `  Control:      ${sandbox.baseUrl}/sandbox/...`,
      "Press Ctrl+C to stop.",
    ].join("\n")
  )
  const signal = await stopped
  await sandbox.close()
  console.log(`Sandbox stopped (${signal}).`)
}
