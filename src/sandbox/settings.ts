export type RateLimits = { quotesPerMinute?: number; shiftsPerMinute?: number }
/**
 * What a rate limit counts per: the calling connection's address (the service's documented "per IP",
 * so a busy store's shoppers share one budget), or the `x-user-ip` the integration forwards.
 */
export const RATE_LIMIT_KEYS = ["connection", "user-ip"] as const
export type RateLimitKey = (typeof RATE_LIMIT_KEYS)[number]
export type AutoMode = boolean | { stepMs: number }

export type SandboxOptions = {
  /** 0 = a random free port. */
  port?: number
  host?: string
  /** The initial account; generated when omitted. */
  account?: { id: string; secret: string }
  /** Deposits walk pending -> processing -> settling -> settled by themselves, one step every stepMs. */
  auto?: AutoMode
  /** Per minute and `rateLimitBy`; undefined = unlimited. */
  rateLimits?: RateLimits
  /** Default "connection", the stricter reading. */
  rateLimitBy?: RateLimitKey
  /** End-user IPs (x-user-ip) the service refuses: 403 "Access denied", permissions createShift false. */
  blockedIps?: string[]
  maxOpenVariableShifts?: number
  /** cancel-order is accepted only this long after the shift was created. */
  cancelAfterSeconds?: number
  /** Header that carries the account secret. */
  secretHeader?: string
  logger?: (line: string) => void
  /** Keep the account and state in this file and continue from it on the next start; in memory only when omitted. */
  stateFile?: string
}

/** What the real service allows per IP and minute (service-behaviour.md, "Limits and clocks"). */
export const REALISTIC_RATE_LIMITS: RateLimits = { quotesPerMinute: 20, shiftsPerMinute: 5 }
export const DEFAULT_AUTO_STEP_MS = 1000
export const DEFAULT_SECRET_HEADER = "x-service-secret"

/** The settings a running sandbox reads on every request; the control interface changes them. */
export type SandboxSettings = {
  secretHeader: string
  blockedIps: Set<string>
  rateLimits: RateLimits
  rateLimitBy: RateLimitKey
  /** undefined = deposits move only when told to. */
  autoStepMs?: number
  maxOpenVariableShifts: number
  cancelAfterSeconds: number
}

export type SettingsUpdate = Pick<SandboxOptions, "blockedIps" | "rateLimits" | "rateLimitBy" | "auto" | "maxOpenVariableShifts" | "cancelAfterSeconds">

function autoStepMs(auto: AutoMode | undefined): number | undefined {
  if (auto === undefined || auto === false) {
    return undefined
  }
  return auto === true ? DEFAULT_AUTO_STEP_MS : auto.stepMs
}

export function initialSettings(options: SandboxOptions): SandboxSettings {
  return {
    secretHeader: (options.secretHeader ?? DEFAULT_SECRET_HEADER).toLowerCase(),
    blockedIps: new Set(options.blockedIps ?? []),
    rateLimits: { ...options.rateLimits },
    rateLimitBy: options.rateLimitBy ?? "connection",
    autoStepMs: autoStepMs(options.auto),
    maxOpenVariableShifts: options.maxOpenVariableShifts ?? 5,
    cancelAfterSeconds: options.cancelAfterSeconds ?? 300,
  }
}

export function applySettingsUpdate(settings: SandboxSettings, update: SettingsUpdate): void {
  if (update.blockedIps !== undefined) {
    settings.blockedIps = new Set(update.blockedIps)
  }
  if (update.rateLimits !== undefined) {
    settings.rateLimits = { ...update.rateLimits }
  }
  if (update.rateLimitBy !== undefined) {
    settings.rateLimitBy = update.rateLimitBy
  }
  if (update.auto !== undefined) {
    settings.autoStepMs = autoStepMs(update.auto)
  }
  if (update.maxOpenVariableShifts !== undefined) {
    settings.maxOpenVariableShifts = update.maxOpenVariableShifts
  }
  if (update.cancelAfterSeconds !== undefined) {
    settings.cancelAfterSeconds = update.cancelAfterSeconds
  }
}

export type SettingsView = {
  secretHeader: string
  blockedIps: string[]
  rateLimits: RateLimits
  rateLimitBy: RateLimitKey
  auto: false | { stepMs: number }
  maxOpenVariableShifts: number
  cancelAfterSeconds: number
}

/** Settings as JSON (the control interface's answer). */
export function settingsView(settings: SandboxSettings): SettingsView {
  return {
    secretHeader: settings.secretHeader,
    blockedIps: [...settings.blockedIps],
    rateLimits: settings.rateLimits,
    rateLimitBy: settings.rateLimitBy,
    auto: settings.autoStepMs === undefined ? false : { stepMs: settings.autoStepMs },
    maxOpenVariableShifts: settings.maxOpenVariableShifts,
    cancelAfterSeconds: settings.cancelAfterSeconds,
  }
}
