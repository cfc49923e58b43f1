/**
 * The sandbox's own time: real time plus an offset that tests and merchants move forward, so that
 * quote expiry, 15-minute fixed shifts, 7-day variable shifts and the cancel delay can be tried at once.
 * Every time-dependent rule reads this clock, never `Date.now()` directly.
 */
export class SandboxClock {
  /** How far the sandbox is ahead of real time; saved with its state. */
  offsetMs = 0

  now(): Date {
    return new Date(Date.now() + this.offsetMs)
  }

  advance(seconds: number): Date {
    this.offsetMs += seconds * 1000
    return this.now()
  }

  reset(): void {
    this.offsetMs = 0
  }
}

export const addSeconds = (date: Date, seconds: number): Date => new Date(date.getTime() + seconds * 1000)
