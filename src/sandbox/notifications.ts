import type { SandboxCore } from "./core"
import { hookView } from "./hooks"
import { newUuid } from "./ids"
import type { Deposit, DepositStatus, Hook, NotificationDelivery, Shift } from "./state"

/** Payment results a checkout's hooks hear about (spec 6): settled is a success, refunded a failure. */
const OUTCOME_OF_STATUS: Partial<Record<DepositStatus, "success" | "fail">> = { settled: "success", refunded: "fail" }

const DELIVERY_TIMEOUT_MS = 10_000

/**
 * Posts checkout payment results to the account's enabled hooks. Best effort like the real service:
 * one attempt, no retry, a failing target never disturbs the sandbox; every attempt is recorded.
 */
export class CheckoutNotifier {
  private readonly inFlight = new Set<Promise<void>>()
  private readonly stopped = new AbortController()

  constructor(
    private readonly core: SandboxCore,
    private readonly log: (line: string) => void
  ) {}

  readonly onDepositChange = (shift: Shift, deposit: Deposit): void => {
    const outcome = OUTCOME_OF_STATUS[deposit.status]
    const checkout = shift.checkoutId ? this.core.state.checkouts.get(shift.checkoutId) : undefined
    if (!outcome || !checkout) {
      return
    }
    for (const hook of this.core.state.hooks.values()) {
      if (hook.enabled && hook.accountId === checkout.accountId) {
        const payload = { shiftId: shift.id, checkoutId: checkout.id, status: outcome, txid: deposit.settleHash }
        this.deliver(hook, { meta: { hook: hookView(hook) }, payload })
      }
    }
  }

  /** Resolves once every delivery started so far has completed. */
  async idle(): Promise<void> {
    while (this.inFlight.size > 0) {
      await Promise.all([...this.inFlight])
    }
  }

  stop(): void {
    this.stopped.abort()
  }

  private deliver(hook: Hook, body: unknown): void {
    const delivery: NotificationDelivery = {
      id: newUuid(),
      hookId: hook.id,
      targetUrl: hook.targetUrl,
      body,
      attemptedAt: this.core.clock.now().toISOString(),
      completed: false,
    }
    this.core.state.deliveries.push(delivery)
    const attempt = this.post(delivery).finally(() => {
      delivery.completed = true
      this.inFlight.delete(attempt)
    })
    this.inFlight.add(attempt)
  }

  private async post(delivery: NotificationDelivery): Promise<void> {
    try {
      const response = await fetch(delivery.targetUrl, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify(delivery.body),
        signal: AbortSignal.any([this.stopped.signal, AbortSignal.timeout(DELIVERY_TIMEOUT_MS)]),
      })
      delivery.responseStatus = response.status
      await response.arrayBuffer()
    } catch (error) {
      delivery.error = error instanceof Error ? error.message : String(error)
      this.log(`notification to ${delivery.targetUrl} failed: ${delivery.error}`)
    }
  }
}
