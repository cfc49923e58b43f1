import type { SandboxCore } from "./core"
import type { Deposit, DepositStatus, Shift } from "./state"

/** The steps the service takes by itself; review waits for a human, refund waits for an address. */
const NEXT_STEP: Partial<Record<DepositStatus, DepositStatus>> = {
  pending: "processing",
  processing: "settling",
  settling: "settled",
  refund: "refunding",
  refunding: "refunded",
}

/** Auto mode: every deposit takes its next step after `autoStepMs`, on real timers. */
export class AutoWalker {
  private readonly timers = new Set<NodeJS.Timeout>()

  constructor(
    private readonly core: SandboxCore,
    private readonly log: (line: string) => void
  ) {}

  readonly onDepositChange = (shift: Shift, deposit: Deposit): void => {
    const stepMs = this.core.settings.autoStepMs
    const next = NEXT_STEP[deposit.status]
    if (stepMs === undefined || !next || (next === "refunding" && !shift.refundAddress)) {
      return
    }
    const from = deposit.status
    const timer = setTimeout(() => {
      this.timers.delete(timer)
      // Someone may have moved the deposit meanwhile, or switched auto mode off.
      if (deposit.status !== from || this.core.settings.autoStepMs === undefined) {
        return
      }
      try {
        this.core.lifecycle.moveDeposit(shift, deposit, next)
      } catch (error) {
        this.log(`auto mode could not move shift ${shift.id}: ${error instanceof Error ? error.message : String(error)}`)
      }
    }, stepMs)
    this.timers.add(timer)
  }

  /** After auto mode is switched on or changed: picks up deposits already due for a step. */
  restart(shifts: Iterable<Shift>): void {
    this.stop()
    for (const shift of shifts) {
      for (const deposit of shift.deposits) {
        this.onDepositChange(shift, deposit)
      }
    }
  }

  stop(): void {
    for (const timer of this.timers) {
      clearTimeout(timer)
    }
    this.timers.clear()
  }
}
