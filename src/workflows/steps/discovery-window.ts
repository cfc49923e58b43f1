import { MAX_RETRY_WAIT_MS } from "../../lib/swap-service"

/**
 * Which of Medusa's rows a discovery tick reads: those whose id is newer than the last tick's
 * watermark. A Medusa id is `<prefix>_<ULID>`, and a ULID starts with its creation time in ms, so a
 * range of ids is a range of creation times that PostgreSQL reads through the primary key alone;
 * Medusa indexes neither the creation nor the update time of sessions and refunds.
 *
 * The watermark is kept on the tick's run in the ledger, and the next tick takes the latest-started
 * run's: a tick that crashes records none (the next one reads from the one before), and ticks of
 * several workers at once each read from the mark they found. Either way rows are read again, never
 * skipped, and re-reading is harmless: the ledger records a session or refund once (unique ids).
 */

/** The first tick after install or upgrade, with no watermark yet, looks back this far. */
export const FIRST_LOOK_MS = 60 * 60 * 1000
/**
 * How late a row may become visible after the time its id carries: the id is stamped before the
 * session's service calls (each up to the client's timeout, with retries and their waits) and the
 * transaction's commit, by the clock of whichever process made it. So a session can commit after a
 * later one whose tick has moved the watermark past it: each time is read once more this long after
 * it, to find those. At least 5 minutes, and twice the slowest creation the providers' options allow.
 * CRYPTO_SWAP_DISCOVERY_OVERLAP_MS sets another, for a store whose processes' clocks drift further
 * apart, or a test that can't wait minutes.
 */
const MIN_OVERLAP_MS = 5 * 60 * 1000
/** Service calls a payment's creation makes before its session names its shift: catalogue, quote, shift, estimate. */
const CALLS_PER_CREATION = 4
/** Rows per read, and reads per tick at most: a longer backlog is worked through over the next ticks. */
const PAGE_SIZE = 1000
const MAX_PAGES = 20

const ULID_ALPHABET = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"
const ULID_TIME_LENGTH = 10

/** The smallest id Medusa can give a row with this prefix at this time. */
export function firstIdAt(prefix: string, ms: number): string {
  let time = ""
  for (let rest = Math.floor(ms), i = 0; i < ULID_TIME_LENGTH; i++, rest = Math.floor(rest / 32)) {
    time = ULID_ALPHABET[rest % 32] + time
  }
  return `${prefix}_${time}${"0".repeat(16)}`
}

/** The creation time an id carries. */
export function idTime(id: string): number {
  const time = id.slice(id.lastIndexOf("_") + 1, id.lastIndexOf("_") + 1 + ULID_TIME_LENGTH)
  return [...time].reduce((ms, char) => ms * 32 + ULID_ALPHABET.indexOf(char), 0)
}

type ClientLimits = { options: { requestTimeoutMs: number; maxRetries: number } }

/** The overlap for these providers (see MIN_OVERLAP_MS); a setting that is no whole number of ms is passed over. */
export function discoveryOverlapMs(providers: Iterable<ClientLimits>): number {
  const set = Number(process.env.CRYPTO_SWAP_DISCOVERY_OVERLAP_MS || Number.NaN)
  if (Number.isSafeInteger(set) && set >= 0) return set
  let slowest = 0
  for (const { options } of providers) {
    slowest = Math.max(slowest, CALLS_PER_CREATION * (options.maxRetries + 1) * (options.requestTimeoutMs + MAX_RETRY_WAIT_MS))
  }
  return Math.max(MIN_OVERLAP_MS, 2 * slowest)
}

/**
 * Every id time is read twice: fresh, by the first tick after it (found at once in the usual case),
 * and settled, by the first tick at least the overlap after it (whatever committed late by then).
 * A tick at `now` whose predecessor's watermark is `watermark` reads the settled times
 * [watermark - overlap, now - overlap) and the fresh ones [watermark, now): twice what arrived
 * between ticks, whatever the tick interval and the store's size. Only a crash or a gap between
 * ticks makes it read more (the two ranges merge into one), never less.
 */
export function discoveryRanges(watermark: number | null, now: number, overlap: number): Array<[number, number]> {
  const from = watermark ?? now - FIRST_LOOK_MS
  if (from <= now - overlap) return [[from - overlap, now]]
  return [
    [from - overlap, now - overlap],
    [from, now],
  ]
}

/** Medusa's filter types leave out these operators, which its list methods take. */
export type IdRange = { $gte: string; $lt: string } | { $gt: string; $lt: string }

/**
 * Reads the rows of this tick's ranges a page at a time, in id order, and hands each page to
 * `onPage`. Returns how many rows were read and the watermark to keep: `now`, or after a backlog
 * too long for one tick, the point up to which every id time has been read settled.
 */
export async function readSinceWatermark<Row extends { id: string }>(input: {
  watermark: Date | null
  overlapMs: number
  prefix: string
  readPage: (id: IdRange, take: number) => Promise<Row[]>
  onPage: (rows: Row[]) => Promise<void>
}): Promise<{ read: number; through: Date }> {
  const now = Date.now()
  let [read, pages] = [0, 0]
  for (const [from, to] of discoveryRanges(input.watermark?.getTime() ?? null, now, input.overlapMs)) {
    const upTo = firstIdAt(input.prefix, to)
    let after: string | null = null
    for (;;) {
      if (pages === MAX_PAGES) {
        // Up to the last id read, and no further than the settled range's end, every time has been read
        // at least the overlap after it: the next tick's settled range starts there.
        return { read, through: new Date(Math.min(idTime(after ?? firstIdAt(input.prefix, from)), now - input.overlapMs) + input.overlapMs) }
      }
      const rows: Row[] = await input.readPage(after ? { $gt: after, $lt: upTo } : { $gte: firstIdAt(input.prefix, from), $lt: upTo }, PAGE_SIZE)
      pages += 1
      read += rows.length
      if (rows.length) await input.onPage(rows)
      if (rows.length < PAGE_SIZE) break
      after = rows[rows.length - 1].id
    }
  }
  return { read, through: new Date(now) }
}
