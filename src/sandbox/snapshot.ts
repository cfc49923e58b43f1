import { findAsset, type Asset } from "./catalogue"
import type { SandboxSettings } from "./settings"

// The saved form of a sandbox, as JSON. Records are saved field by field without a schema, so that a
// new field on a quote or shift needs no change here: dates, maps and sets are tagged, and catalogue
// assets are saved by name and looked up again on load (they are catalogue data, not state).

/** Bumped when files saved before can no longer be read as they are. */
const FORMAT = 1

/** What a running sandbox saves of itself. */
export type SavedRuntime = {
  clockOffsetMs: number
  settings: SandboxSettings
  /** SandboxState's fields by name. */
  state: Record<string, unknown>
}

export type Snapshot = SavedRuntime & {
  /** The initial account's id, the one the sandbox prints. */
  account: string
}

type Tagged = { $date: string } | { $map: [unknown, unknown][] } | { $set: unknown[] } | { $asset: [string, string] }

const isObject = (value: unknown): value is object => value !== null && typeof value === "object" && !Array.isArray(value)

function isAsset(value: object): value is Asset {
  return "networkData" in value && "precision" in value && typeof (value as Asset).coin?.coin === "string"
}

function tag(original: unknown): Tagged | undefined {
  if (original instanceof Date) return { $date: original.toISOString() }
  if (original instanceof Map) return { $map: [...original] }
  if (original instanceof Set) return { $set: [...original] }
  if (isObject(original) && isAsset(original)) return { $asset: [original.coin.coin, original.network] }
  return undefined
}

function untag(value: Record<string, unknown>): unknown {
  if ("$date" in value) {
    const date = new Date(value.$date as string)
    if (Number.isNaN(date.getTime())) throw new Error(`invalid date ${JSON.stringify(value.$date)}`)
    return date
  }
  if ("$map" in value) return new Map(value.$map as [unknown, unknown][])
  if ("$set" in value) return new Set(value.$set as unknown[])
  if ("$asset" in value) {
    const [coin, network] = value.$asset as [string, string]
    try {
      return findAsset(coin, network, "settle")
    } catch {
      throw new Error(`${coin} on ${network} is not in the sandbox's catalogue`)
    }
  }
  return value
}

export function encodeSnapshot(snapshot: Snapshot): string {
  // `this[key]` is the value before Date#toJSON turned it into a string.
  return JSON.stringify({ format: FORMAT, ...snapshot }, function (this: Record<string, unknown>, key, value) {
    return tag(this[key]) ?? value
  })
}

/** Throws a plain reason when the text is not a snapshot this sandbox can read. */
export function decodeSnapshot(text: string): Snapshot {
  const snapshot = JSON.parse(text, (_key, value) =>
    isObject(value) ? untag(value as Record<string, unknown>) : value
  ) as (Partial<Snapshot> & { format?: unknown }) | null
  if (
    snapshot?.format !== FORMAT ||
    typeof snapshot.account !== "string" ||
    typeof snapshot.clockOffsetMs !== "number" ||
    !isObject(snapshot.settings) ||
    !isObject(snapshot.state)
  ) {
    throw new Error(`not a sandbox state of format ${FORMAT}`)
  }
  return snapshot as Snapshot
}
