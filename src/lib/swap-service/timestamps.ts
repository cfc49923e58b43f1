/**
 * The checkout's timestamps carry nine fractional digits (`2026-01-01T10:00:00.123456789Z`); a JS Date
 * keeps three. Kept as strings, they are ordered by padding the fraction, never by Date.
 */
function sortable(timestamp: string): string {
  const match = /^(.*T\d{2}:\d{2}:\d{2})(?:\.(\d+))?(Z|[+-]\d{2}:?\d{2})?$/.exec(timestamp)
  if (!match) return timestamp
  const [, seconds, fraction = "", zone = "Z"] = match
  const utc = zone === "Z" ? seconds : new Date(`${seconds}${zone}`).toISOString().slice(0, 19)
  return `${utc}.${fraction.padEnd(12, "0")}`
}

export function compareTimestamps(a: string, b: string): number {
  const left = sortable(a)
  const right = sortable(b)
  return left < right ? -1 : left > right ? 1 : 0
}
