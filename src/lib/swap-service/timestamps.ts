// The checkout's timestamps carry nine fractional digits (`2026-11-22T10:00:00.123456789Z`); a JS Date
// keeps three, so two updates within a millisecond would look equal or out of order. The strings
// are kept as the service wrote them and ordered here, never through Date.

const TIMESTAMP = /^(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2})(?:\.(\d+))?(Z|[+-]\d{2}:\d{2})$/i

/** Whole seconds since the epoch, and the fractional digits as written. */
function instantOf(timestamp: string): { epochMs: number; fraction: string } | undefined {
  const match = TIMESTAMP.exec(timestamp.trim())
  if (!match) return undefined
  const epochMs = Date.parse(`${match[1]}${match[3]}`)
  return Number.isNaN(epochMs) ? undefined : { epochMs, fraction: match[2] ?? "" }
}

/** A sort comparator for ISO 8601 timestamps at any precision; unreadable ones fall back to text order. */
export function compareTimestamps(a: string, b: string): number {
  const left = instantOf(a)
  const right = instantOf(b)
  if (!left || !right) return a < b ? -1 : a > b ? 1 : 0
  if (left.epochMs !== right.epochMs) return left.epochMs < right.epochMs ? -1 : 1
  const width = Math.max(left.fraction.length, right.fraction.length)
  const leftFraction = left.fraction.padEnd(width, "0")
  const rightFraction = right.fraction.padEnd(width, "0")
  return leftFraction < rightFraction ? -1 : leftFraction > rightFraction ? 1 : 0
}

/** A Date for display and arithmetic, precise to the millisecond only. */
export function parseTimestamp(timestamp: string): Date {
  return new Date(timestamp)
}
