import { AutoWalker } from "./auto-walker"
import { SandboxClock } from "./clock"
import type { SandboxCore } from "./core"
import { FaultInjector } from "./http/faults"
import { RequestLog } from "./http/request-log"
import { NanoTimestamps } from "./nano-timestamps"
import { CheckoutNotifier } from "./notifications"
import { RateLimiter } from "./rate-limiter"
import { applySettingsUpdate, initialSettings, settingsView, type SandboxOptions, type SandboxSettings, type SettingsUpdate, type SettingsView } from "./settings"
import { ShiftLifecycle, type IncomingDeposit, type StatusChange } from "./shift-lifecycle"
import { shiftView, type ShiftView } from "./shift-view"
import { findShift } from "./shifts"
import type { SavedRuntime } from "./snapshot"
import { SandboxState } from "./state"

/**
 * One running sandbox: its state, clock and settings, the services around them, and the control
 * operations the control interface and the programmatic API share.
 */
export class SandboxRuntime implements SandboxCore {
  readonly clock = new SandboxClock()
  readonly timestamps = new NanoTimestamps(this.clock)
  readonly state = new SandboxState()
  readonly lifecycle = new ShiftLifecycle(this.clock)
  readonly rateLimiter = new RateLimiter(this.clock)
  readonly faults = new FaultInjector()
  readonly settings: SandboxSettings
  readonly log: (line: string) => void
  readonly requestLog: RequestLog
  readonly notifier: CheckoutNotifier
  readonly autoWalker: AutoWalker
  private readonly changeListeners: (() => void)[] = []

  constructor(private readonly options: SandboxOptions) {
    this.settings = initialSettings(options)
    this.log = options.logger ?? (() => undefined)
    this.requestLog = new RequestLog(this.clock, this.log)
    this.notifier = new CheckoutNotifier(this, this.log)
    this.autoWalker = new AutoWalker(this, this.log)
    this.lifecycle.onDepositChange(this.autoWalker.onDepositChange)
    this.lifecycle.onDepositChange(this.notifier.onDepositChange)
    this.lifecycle.onDepositChange(this.changed)
  }

  /** `listener` hears that the state, clock or settings may have changed (to save them). */
  onChange(listener: () => void): void {
    this.changeListeners.push(listener)
  }

  readonly changed = (): void => {
    for (const listener of this.changeListeners) listener()
  }

  snapshot(): SavedRuntime {
    return { clockOffsetMs: this.clock.offsetMs, settings: this.settings, state: { ...this.state } }
  }

  /** Continues from a snapshot: auto mode picks up its deposits; settings the options name win over saved ones. */
  restore(saved: SavedRuntime): void {
    this.state.restore(saved.state)
    this.clock.offsetMs = saved.clockOffsetMs
    Object.assign(this.settings, saved.settings)
    this.configure(this.options)
  }

  shiftView(id: string): ShiftView {
    return shiftView(findShift(this, id), this.clock.now())
  }

  simulateDeposit(shiftId: string, incoming: IncomingDeposit): ShiftView {
    this.lifecycle.receiveDeposit(findShift(this, shiftId), incoming)
    return this.shiftView(shiftId)
  }

  changeStatus(shiftId: string, change: StatusChange): ShiftView {
    this.lifecycle.changeStatus(findShift(this, shiftId), change)
    return this.shiftView(shiftId)
  }

  advanceClock(seconds: number): Date {
    const now = this.clock.advance(seconds)
    this.changed()
    return now
  }

  configure(update: SettingsUpdate): SettingsView {
    applySettingsUpdate(this.settings, update)
    this.autoWalker.restart(this.state.shifts.values())
    this.changed()
    return settingsView(this.settings)
  }

  /** All state and settings back to how the sandbox started; accounts are kept. */
  reset(): void {
    this.autoWalker.stop()
    this.state.clearActivity()
    this.clock.reset()
    this.rateLimiter.reset()
    this.faults.clear()
    this.requestLog.clear()
    Object.assign(this.settings, initialSettings(this.options))
    this.changed()
  }

  stop(): void {
    this.autoWalker.stop()
    this.notifier.stop()
  }
}
