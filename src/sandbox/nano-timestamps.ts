import type { SandboxClock } from "./clock"

const NANOS_PER_MILLI = 1_000_000n
const NANOS_PER_SECOND = 1_000_000_000n

/**
 * Checkout timestamps carry nine fractional digits and a trailing Z (spec 2.6), e.g.
 * 2026-11-22T10:00:00.123456789Z. The sub-millisecond digits come from the high-resolution timer,
 * and each stamp is later than the previous one so that ordering by timestamp is reliable.
 */
export class NanoTimestamps {
  private last = 0n

  constructor(private readonly clock: SandboxClock) {}

  next(): string {
    const candidate = BigInt(this.clock.now().getTime()) * NANOS_PER_MILLI + (process.hrtime.bigint() % NANOS_PER_MILLI)
    this.last = candidate > this.last ? candidate : this.last + 1n
    const wholeSeconds = new Date(Number(this.last / NANOS_PER_SECOND) * 1000).toISOString().slice(0, 19)
    const fraction = (this.last % NANOS_PER_SECOND).toString().padStart(9, "0")
    return `${wholeSeconds}.${fraction}Z`
  }
}
