import type { SandboxClock } from "./clock"
import type { NanoTimestamps } from "./nano-timestamps"
import type { SandboxSettings } from "./settings"
import type { ShiftLifecycle } from "./shift-lifecycle"
import type { SandboxState } from "./state"

/** What the service operations (quotes, shifts, checkouts, hooks) work with. */
export type SandboxCore = {
  settings: SandboxSettings
  clock: SandboxClock
  timestamps: NanoTimestamps
  state: SandboxState
  lifecycle: ShiftLifecycle
}
