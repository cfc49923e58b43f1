import { generateEntityId } from "@medusajs/framework/utils"
import { discoveryOverlapMs, discoveryRanges, firstIdAt, FIRST_LOOK_MS, idTime, readSinceWatermark, type IdRange } from "../discovery-window"

const MINUTE = 60 * 1000
const OVERLAP = 5 * MINUTE

describe("discovery window", () => {
  it("reads the time Medusa stamps in its ids, and orders a time's first id before every id made then or later", () => {
    const before = Date.now()
    const id = generateEntityId(undefined, "payses")
    const after = Date.now()
    expect(idTime(id)).toBeGreaterThanOrEqual(before)
    expect(idTime(id)).toBeLessThanOrEqual(after)
    expect(firstIdAt("payses", before) <= id).toBe(true)
    expect(firstIdAt("payses", after + 1) > id).toBe(true)
    expect(idTime(firstIdAt("ref", before))).toBe(before)
  })

  it("reads each time fresh after it and again settled after the overlap; the first tick looks back an hour", () => {
    const now = 10 * FIRST_LOOK_MS
    expect(discoveryRanges(now - 5000, now, OVERLAP)).toEqual([
      [now - 5000 - OVERLAP, now - OVERLAP],
      [now - 5000, now],
    ])
    // After a gap longer than the overlap the two ranges are one.
    expect(discoveryRanges(now - 2 * OVERLAP, now, OVERLAP)).toEqual([[now - 3 * OVERLAP, now]])
    expect(discoveryRanges(null, now, OVERLAP)).toEqual([[now - FIRST_LOOK_MS - OVERLAP, now]])
  })

  it("overlaps at least 5 minutes, twice the slowest creation the providers allow, or as set when the setting is a whole number", () => {
    const saved = process.env.CRYPTO_SWAP_DISCOVERY_OVERLAP_MS
    try {
      delete process.env.CRYPTO_SWAP_DISCOVERY_OVERLAP_MS
      expect(discoveryOverlapMs([])).toBe(OVERLAP)
      // The default client: 4 calls, each 3 attempts of up to 10 s plus a 5 s wait: 3 minutes; twice that.
      expect(discoveryOverlapMs([{ options: { requestTimeoutMs: 10_000, maxRetries: 2 } }])).toBe(2 * 4 * 3 * 15_000)
      // 4 calls, each 6 attempts of up to 60 s plus a 5 s wait: 26 minutes; twice that.
      expect(discoveryOverlapMs([{ options: { requestTimeoutMs: 10_000, maxRetries: 2 } }, { options: { requestTimeoutMs: 60_000, maxRetries: 5 } }])).toBe(2 * 4 * 6 * 65_000)
      for (const unusable of ["", "5m", "-1", "1.5"]) {
        process.env.CRYPTO_SWAP_DISCOVERY_OVERLAP_MS = unusable
        expect(discoveryOverlapMs([])).toBe(OVERLAP)
      }
      process.env.CRYPTO_SWAP_DISCOVERY_OVERLAP_MS = "2000"
      expect(discoveryOverlapMs([{ options: { requestTimeoutMs: 60_000, maxRetries: 5 } }])).toBe(2000)
    } finally {
      if (saved === undefined) delete process.env.CRYPTO_SWAP_DISCOVERY_OVERLAP_MS
      else process.env.CRYPTO_SWAP_DISCOVERY_OVERLAP_MS = saved
    }
  })

  it("stops a long backlog after 20 pages, keeping as watermark where the settled reading stopped, plus the overlap", async () => {
    const now = Date.now()
    const ids = Array.from({ length: 25_000 }, (_, i) => firstIdAt("payses", now - 3 * FIRST_LOOK_MS + i * 100).slice(0, -1) + "1")
    const readPage = async (range: IdRange, take: number) =>
      ids.filter((id) => ("$gt" in range ? id > range.$gt : id >= range.$gte) && id < range.$lt).slice(0, take).map((id) => ({ id }))
    const pages: number[] = []
    const { read, through } = await readSinceWatermark({ watermark: new Date(now - 3 * FIRST_LOOK_MS), overlapMs: OVERLAP, prefix: "payses", readPage, onPage: async (rows) => void pages.push(rows.length) })
    expect(read).toBe(20_000)
    expect(pages).toEqual(Array(20).fill(1000))
    expect(through.getTime()).toBe(idTime(ids[19_999]) + OVERLAP)

    const rest = await readSinceWatermark({ watermark: through, overlapMs: OVERLAP, prefix: "payses", readPage, onPage: async () => {} })
    expect(rest.read).toBe(ids.filter((id) => idTime(id) >= idTime(ids[19_999])).length)
    expect(rest.through.getTime()).toBeGreaterThanOrEqual(now)
  })
})
