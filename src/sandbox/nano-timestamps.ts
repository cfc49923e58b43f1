import type { SandboxClock } from "./clock"

const NANOS_PER_MILLI = 1_000_000n
const NANOS_PER_SECOND = 1_000_000_000n

/**
 * Checkout timestamps carry nine fractional digits and a trailing Z (spec 2.6), e.g.
 * 2026-11-22T10:00:00.123456789Z. The millisecond is the sandbox clock's; the digits below it come
 * from the high-resolution timer and only order the stamps of one millisecond. A stamp from an
 * earlier millisecond than the last (the clock was reset) is taken as it is, never pushed forward.
 */
export class NanoTimestamps {
  private last = 0n

  constructor(private readonly clock: SandboxClock) {}

  next(): string {
    const millis = BigInt(this.clock.now().getTime()) * NANOS_PER_MILLI
    const candidate = millis + (process.hrtime.bigint() % NANOS_PER_MILLI)
    const sameMillisecond = this.last >= millis && this.last < millis + NANOS_PER_MILLI
    this.last = sameMillisecond && candidate <= this.last ? this.last + 1n : candidate
    const wholeSeconds = new Date(Number(this.last / NANOS_PER_SECOND) * 1000).toISOString().slice(0, 19)
    const fraction = (this.last % NANOS_PER_SECOND).toString().padStart(9, "0")
    return `${wholeSeconds}.${fraction}Z`
  }
}
