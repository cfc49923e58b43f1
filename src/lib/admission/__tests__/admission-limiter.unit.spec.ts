import { spawnSync } from "node:child_process"
import { randomUUID } from "node:crypto"
import type { Redis as RedisClient } from "ioredis"
import type { RateLimiterAbstract } from "rate-limiter-flexible"
import { admissionSchema } from "../../options"
import { admitSession, AdmissionLimiter, memoryLimiters, readBudgets, redisLimiters, refusal, sessionBudgets, sessionNotMade, shopperKey, type LimiterFactory } from ".."

const DEFAULTS = admissionSchema.parse({})

/** The limiters a factory made, by budget name, to read their counters. */
function recording(factory: LimiterFactory) {
  const made = new Map<string, RateLimiterAbstract>()
  const record: LimiterFactory = (name, points) => {
    const limiter = factory(name, points)
    made.set(name, limiter)
    return limiter
  }
  return { factory: record, consumed: async (name: string, key: string) => (await made.get(name)?.get(key))?.consumedPoints ?? 0 }
}

const session = (limiter: AdmissionLimiter, cart: string, ip: string, options = DEFAULTS) => admitSession(limiter, options, { cart, ip })

describe("admission budgets", () => {
  it("are taken narrowest first: the shopper's IP, the cart, the store", () => {
    expect(sessionBudgets(DEFAULTS, { cart: "collection:pay_col_1", ip: "203.0.113.7", repeatShopper: false })).toEqual([
      { scope: "ip", key: "203.0.113.7", perMinute: 2 },
      { scope: "cart", key: "collection:pay_col_1", perMinute: 3 },
      { scope: "store", key: "store", perMinute: 4, admitUpTo: 4 },
    ])
    expect(readBudgets(DEFAULTS, { ip: undefined }).map((budget) => [budget.scope, budget.key, budget.perMinute])).toEqual([
      ["ip", "unknown", 30],
      ["store", "store", 600],
    ])
    expect(readBudgets(DEFAULTS, { cart: "cart_1", ip: "::1" }).map((budget) => budget.scope)).toEqual(["ip", "cart", "store"])
  })

  it("keep the store under the service's 5 shifts a minute, and any one shopper well under the store", () => {
    expect(DEFAULTS.sessionsPerStorePerMinute).toBeLessThan(5)
    expect(DEFAULTS.sessionsPerIpPerMinute * 2).toBeLessThanOrEqual(DEFAULTS.sessionsPerStorePerMinute)
    // A fixed-rate session is a quote too: the service allows about 20 a minute.
    expect(DEFAULTS.sessionsPerStorePerMinute).toBeLessThan(20)
  })

  it("give a shopper who started sessions lately only the repeat share of the store's budget", () => {
    const share = (repeatShopper: boolean, options = DEFAULTS) =>
      sessionBudgets(options, { cart: "collection:a", ip: "203.0.113.7", repeatShopper }).find((budget) => budget.scope === "store")?.admitUpTo
    expect([share(false), share(true)]).toEqual([4, 2])
    // Unset, half of the store's budget, whatever it is.
    expect(share(true, { ...DEFAULTS, sessionsPerStorePerMinute: 1000 })).toBe(500)
    expect(share(true, { ...DEFAULTS, sessionsPerStorePerMinute: 3 })).toBe(2)
    expect(share(true, { ...DEFAULTS, repeatShopperStoreShare: 1 })).toBe(1)
    // A repeat share above the store's budget is the store's budget.
    expect(share(true, { ...DEFAULTS, repeatShopperStoreShare: 9 })).toBe(4)
  })

  it("count an IPv6 shopper by the /64 a subscriber gets, an IPv4 shopper by the address", () => {
    expect(shopperKey("2001:db8:1:2:aaaa::1")).toBe(shopperKey("2001:0db8:0001:0002:ffff:1:2:3"))
    expect(shopperKey("2001:db8:1:2::1")).not.toBe(shopperKey("2001:db8:1:3::1"))
    expect(shopperKey("198.51.100.1")).toBe("198.51.100.1")
    expect(shopperKey("198.51.100.1")).not.toBe(shopperKey("198.51.100.2"))
    expect(shopperKey("::ffff:198.51.100.1")).toBe("198.51.100.1")
    expect(shopperKey(undefined)).toBe("unknown")
    expect(shopperKey("not an address")).toBe("not an address")
    expect(sessionBudgets(DEFAULTS, { cart: "c", ip: "2001:db8:1:2::9", repeatShopper: false })[0].key).toBe(shopperKey("2001:db8:1:2::1"))
  })

  it("tell the shopper why and how long to wait, in whole seconds", () => {
    expect(refusal("sessions", { admitted: false, scope: "ip", retryAfterMs: 41_200 })).toEqual({
      message: "Too many crypto payments were started from your connection; please try again in 42 seconds.",
      retryAfterSeconds: 42,
    })
    expect(refusal("sessions", { admitted: false, scope: "store", retryAfterMs: 10 }).message).toBe(
      "Crypto checkout is very busy right now; please try again in 1 second."
    )
    expect(refusal("reads", { admitted: false, scope: "cart", retryAfterMs: 59_000 }).message).toBe(
      "Too many requests for this cart; please try again in 59 seconds."
    )
  })
})

describe("AdmissionLimiter in memory", () => {
  it("admits a shopper's IP its budget a minute, then refuses with the wait until the minute ends", async () => {
    const limiter = new AdmissionLimiter(memoryLimiters())
    expect(await session(limiter, "collection:a", "203.0.113.7")).toEqual({ admitted: true })
    expect(await session(limiter, "collection:b", "203.0.113.7")).toEqual({ admitted: true })
    const refused = await session(limiter, "collection:c", "203.0.113.7")
    expect(refused).toMatchObject({ admitted: false, scope: "ip" })
    if (refused.admitted) throw new Error("unreachable")
    expect(refused.retryAfterMs).toBeGreaterThan(0)
    expect(refused.retryAfterMs).toBeLessThanOrEqual(60_000)
  })

  it("refuses a cart its fourth session a minute, from whatever IPs", async () => {
    const limiter = new AdmissionLimiter(memoryLimiters())
    const options = { ...DEFAULTS, sessionsPerStorePerMinute: 100 }
    for (const ip of ["198.51.100.1", "198.51.100.2", "198.51.100.3"]) expect((await session(limiter, "collection:shared", ip, options)).admitted).toBe(true)
    expect(await session(limiter, "collection:shared", "198.51.100.4", options)).toMatchObject({ admitted: false, scope: "cart" })
  })

  it("lets a flood spend only its own IP's budget: other shoppers' carts and the store's budget are untouched", async () => {
    const { factory, consumed } = recording(memoryLimiters())
    const limiter = new AdmissionLimiter(factory)
    const flood = await Promise.all(Array.from({ length: 30 }, () => session(limiter, "collection:victim", "203.0.113.66")))
    expect(flood.filter((answer) => answer.admitted)).toHaveLength(2)
    expect(flood.filter((answer) => !answer.admitted).every((answer) => !answer.admitted && answer.scope === "ip")).toBe(true)
    // Only the two admitted requests reached the cart's and the store's counters.
    expect(await consumed("sessions:cart", "collection:victim")).toBe(2)
    expect(await consumed("sessions:store", "store")).toBe(2)
    // An honest shopper elsewhere still gets a session.
    expect(await session(limiter, "collection:honest", "198.51.100.9")).toEqual({ admitted: true })
  })

  it("gives back what a request took from the narrower budgets when the store refuses it", async () => {
    const { factory, consumed } = recording(memoryLimiters())
    const limiter = new AdmissionLimiter(factory)
    for (const ip of ["198.51.100.1", "198.51.100.2", "198.51.100.3", "198.51.100.4"]) {
      expect((await session(limiter, `collection:${ip}`, ip)).admitted).toBe(true)
    }
    expect(await session(limiter, "collection:late", "198.51.100.5")).toMatchObject({ admitted: false, scope: "store" })
    expect(await consumed("sessions:ip", "198.51.100.5")).toBe(0)
    expect(await consumed("sessions:cart", "collection:late")).toBe(0)
  })

  it("keeps part of the store's budget for new shoppers while a few IPs flood it", async () => {
    const limiter = new AdmissionLimiter(memoryLimiters())
    // Four flooders, each at its IP's budget, start sessions from fresh carts in a first minute...
    const flooders = ["203.0.113.1", "203.0.113.2", "203.0.113.3", "203.0.113.4"]
    let admitted = 0
    for (const [i, ip] of flooders.entries()) if ((await session(limiter, `collection:flood-${i}-a`, ip)).admitted) admitted += 1
    for (const [i, ip] of flooders.entries()) if ((await session(limiter, `collection:flood-${i}-b`, ip)).admitted) admitted += 1
    expect(admitted).toBe(4)
    // The next minute (fresh counters), every flooder has started a session lately.
    const next = new AdmissionLimiter(memoryLimiters())
    for (const ip of flooders) await next.remember("sessions", shopperKey(ip), 15 * 60)
    let flooded = 0
    for (const round of [1, 2, 3]) {
      for (const [i, ip] of flooders.entries()) if ((await session(next, `collection:flood-${i}-${round}`, ip)).admitted) flooded += 1
    }
    // In a minute of their flooding the store gives them its repeat share only...
    expect(flooded).toBe(DEFAULTS.sessionsPerStorePerMinute / 2)
    // ...and the rest to shoppers starting their first payment.
    expect(await session(next, "collection:honest-1", "198.51.100.1")).toEqual({ admitted: true })
    expect(await session(next, "collection:honest-2", "198.51.100.2")).toEqual({ admitted: true })
    expect(await session(next, "collection:honest-3", "198.51.100.3")).toMatchObject({ admitted: false, scope: "store" })
  })

  it("refuses repeat shoppers over their share without counting them, so their flood never fills the store's minute even for a moment", async () => {
    const counted: string[] = []
    const base = memoryLimiters()
    const limiter = new AdmissionLimiter((name, points, duration) => {
      const made = base(name, points, duration)
      const consume = made.consume.bind(made)
      made.consume = (key, ...rest) => {
        counted.push(name)
        return consume(key, ...rest)
      }
      return made
    })
    const repeat = ["203.0.113.1", "203.0.113.2", "203.0.113.3", "203.0.113.4"]
    for (const ip of repeat) await limiter.remember("sessions", ip, 15 * 60)
    expect((await session(limiter, "collection:r1", repeat[0])).admitted).toBe(true)
    expect((await session(limiter, "collection:r2", repeat[1])).admitted).toBe(true)
    const storeCounts = counted.filter((name) => name === "sessions:store").length
    const refused = await Promise.all(repeat.flatMap((ip, i) => [1, 2, 3].map((n) => session(limiter, `collection:f${i}${n}`, ip))))
    expect(refused.every((answer) => !answer.admitted)).toBe(true)
    expect(counted.filter((name) => name === "sessions:store").length).toBe(storeCounts)
    expect(await session(limiter, "collection:new", "198.51.100.1")).toEqual({ admitted: true })
  })

  it("remembers the sessions a shopper started and how often they asked before their wait ran out", async () => {
    const limiter = new AdmissionLimiter(memoryLimiters())
    const window = DEFAULTS.repeatShopperMinutes * 60
    expect((await session(limiter, "collection:a", "203.0.113.7")).admitted).toBe(true)
    expect((await session(limiter, "collection:b", "203.0.113.7")).admitted).toBe(true)
    // Refused (its IP's budget), then asking again at once: early.
    expect((await session(limiter, "collection:c", "203.0.113.7")).admitted).toBe(false)
    expect(await limiter.asksEarly("sessions", "203.0.113.7")).toBe(true)
    expect((await session(limiter, "collection:c", "203.0.113.7")).admitted).toBe(false)
    expect(await limiter.recent("sessions", "203.0.113.7", window)).toBe(2)
    expect(await limiter.recent("sessions-early", "203.0.113.7", window)).toBe(1)
    expect(await limiter.recent("sessions", "198.51.100.1", window)).toBe(0)
    expect(await limiter.asksEarly("sessions", "198.51.100.1")).toBe(false)
  })

  it("keeps a shopper new, and gives back their place in the store's minute, when the service refused the session they were admitted for", async () => {
    const limiter = new AdmissionLimiter(memoryLimiters())
    const window = DEFAULTS.repeatShopperMinutes * 60
    for (const ip of ["198.51.100.1", "198.51.100.2", "198.51.100.3", "198.51.100.9"]) expect((await session(limiter, `collection:${ip}`, ip)).admitted).toBe(true)
    await sessionNotMade(limiter, DEFAULTS, "198.51.100.9", { refused: true, held: false })
    expect(await limiter.recent("sessions", "198.51.100.9", window)).toBe(0)
    // Nothing was spent upstream: its place in the store's minute is free again, for it or another new shopper.
    expect(await session(limiter, "collection:again", "198.51.100.9")).toEqual({ admitted: true })
    expect(await session(limiter, "collection:late", "198.51.100.20")).toMatchObject({ admitted: false, scope: "store" })
  })

  it("lets a shopper the service refused after the store admitted them try once more on the place they spent, even in a full minute", async () => {
    const limiter = new AdmissionLimiter(memoryLimiters())
    for (const ip of ["198.51.100.1", "198.51.100.2", "198.51.100.3", "198.51.100.9"]) expect((await session(limiter, `collection:${ip}`, ip)).admitted).toBe(true)
    // The service's own 429: its quote was spent, the store's minute stays full, the shopper keeps the place.
    await sessionNotMade(limiter, DEFAULTS, "198.51.100.9", { refused: false, held: false })
    expect(await session(limiter, "collection:late", "198.51.100.20")).toMatchObject({ admitted: false, scope: "store" })
    expect(await session(limiter, "collection:198.51.100.9", "198.51.100.9")).toEqual({ admitted: true, held: true })
    // Refused again on that place: no second one.
    await sessionNotMade(limiter, DEFAULTS, "198.51.100.9", { refused: false, held: true })
    expect(await session(limiter, "collection:198.51.100.9", "198.51.100.9")).toMatchObject({ admitted: false })
  })

  it("gives back nothing of the store's minute for a try on a held place the store refuses further on: it took nothing", async () => {
    const limiter = new AdmissionLimiter(memoryLimiters())
    for (const ip of ["198.51.100.1", "198.51.100.2", "198.51.100.3", "198.51.100.9"]) expect((await session(limiter, `collection:${ip}`, ip)).admitted).toBe(true)
    await sessionNotMade(limiter, DEFAULTS, "198.51.100.9", { refused: false, held: false })
    expect(await session(limiter, "collection:junk", "198.51.100.9")).toEqual({ admitted: true, held: true })
    // Junk input on the held place (a 4xx): a place given back here would be one the flood minted.
    await sessionNotMade(limiter, DEFAULTS, "198.51.100.9", { refused: true, held: true })
    expect(await session(limiter, "collection:late", "198.51.100.20")).toMatchObject({ admitted: false, scope: "store" })
  })

  describe("over several minutes (fake clock)", () => {
    beforeEach(() => jest.useFakeTimers({ now: new Date("2026-11-25T12:00:00Z") }))
    afterEach(() => jest.useRealTimers())

    it("keeps a storefront that waits as Retry-After says a new shopper however long the store is busy, and demotes one that asks early", async () => {
      const limiter = new AdmissionLimiter(memoryLimiters())
      const busyMinute = async (minute: number) => {
        for (let i = 0; i < 4; i++) expect((await session(limiter, `collection:m${minute}-${i}`, `192.0.2.${minute * 4 + i}`)).admitted).toBe(true)
      }
      let waits = 0
      // Four minutes the store's budget is taken by other new shoppers; one shopper waits each time as told,
      // another asks again at once, over and over.
      for (let minute = 0; minute < 4; minute++) {
        await busyMinute(minute)
        const refused = await session(limiter, "collection:waits", "198.51.100.9")
        expect(refused).toMatchObject({ admitted: false, scope: "store" })
        if (refused.admitted) throw new Error("unreachable")
        waits = refused.retryAfterMs
        for (let attempt = 0; attempt < 3; attempt++) expect((await session(limiter, "collection:hammer", "203.0.113.5")).admitted).toBe(false)
        jest.advanceTimersByTime(Math.ceil(waits / 1000) * 1000 + 1)
      }
      expect(waits).toBeGreaterThan(0)
      // A fresh minute: two others take half of it first; the one who waited is still new and gets a place, the other is not.
      expect((await session(limiter, "collection:other-1", "192.0.2.100")).admitted).toBe(true)
      expect((await session(limiter, "collection:other-2", "192.0.2.101")).admitted).toBe(true)
      expect(await session(limiter, "collection:hammer", "203.0.113.5")).toMatchObject({ admitted: false, scope: "store" })
      expect(await session(limiter, "collection:waits", "198.51.100.9")).toEqual({ admitted: true })
    })
  })

  it("refuses a repeat shopper over their share with the wait until the store's minute ends, and gives back what it took", async () => {
    const { factory, consumed } = recording(memoryLimiters())
    const limiter = new AdmissionLimiter(factory)
    for (const ip of ["198.51.100.1", "198.51.100.2"]) expect((await session(limiter, `collection:${ip}`, ip)).admitted).toBe(true)
    await limiter.remember("sessions", "203.0.113.9", 15 * 60)
    const refused = await session(limiter, "collection:repeat", "203.0.113.9")
    expect(refused).toMatchObject({ admitted: false, scope: "store" })
    if (refused.admitted) throw new Error("unreachable")
    expect(refused.retryAfterMs).toBeGreaterThan(0)
    expect(refused.retryAfterMs).toBeLessThanOrEqual(60_000)
    expect(await consumed("sessions:store", "store")).toBe(2)
    expect(await consumed("sessions:ip", "203.0.113.9")).toBe(0)
    expect(await consumed("sessions:cart", "collection:repeat")).toBe(0)
  })

  it("counts sessions and reads apart", async () => {
    const limiter = new AdmissionLimiter(memoryLimiters())
    for (let i = 0; i < 2; i++) expect((await session(limiter, "collection:a", "203.0.113.7")).admitted).toBe(true)
    expect((await limiter.admit("reads", readBudgets(DEFAULTS, { cart: "cart_a", ip: "203.0.113.7" }))).admitted).toBe(true)
  })

  it("keeps hostile keys apart without storing them as they are", async () => {
    const { factory, consumed } = recording(memoryLimiters())
    const limiter = new AdmissionLimiter(factory)
    const options = { ...DEFAULTS, sessionsPerCartPerMinute: 1, sessionsPerIpPerMinute: 100, sessionsPerStorePerMinute: 100 }
    const long = `collection:${"x".repeat(5000)}`
    expect((await session(limiter, long, "203.0.113.7", options)).admitted).toBe(true)
    expect((await session(limiter, `${long}y`, "203.0.113.7", options)).admitted).toBe(true)
    expect(await session(limiter, long, "203.0.113.7", options)).toMatchObject({ admitted: false, scope: "cart" })
    expect(await consumed("sessions:cart", long)).toBe(0)
  })

  it("admits and reports when its counters fail, rather than stopping checkouts", async () => {
    const errors: unknown[] = []
    const down = () => Promise.reject(new Error("store down"))
    const broken = (() => ({ consume: down, get: down })) as unknown as LimiterFactory
    const limiter = new AdmissionLimiter(broken, (error) => errors.push(error))
    expect(await session(limiter, "collection:a", "203.0.113.7")).toEqual({ admitted: true })
    // A place held for the shopper, their recent sessions and early asks, whether this one is early, the three budgets, and remembering it.
    expect(errors).toHaveLength(8)
  })
})

/** Whether a Redis answers at 127.0.0.1:6379 (CI starts one; see .ci/run). */
function redisAnswers(): boolean {
  const probe = spawnSync(process.execPath, [
    "-e",
    `const s=require("net").connect(6379,"127.0.0.1");s.on("connect",()=>process.exit(0));s.on("error",()=>process.exit(1));setTimeout(()=>process.exit(1),2000)`,
  ])
  return probe.status === 0
}

const describeWithRedis = redisAnswers() ? describe : describe.skip

describeWithRedis("AdmissionLimiter in Redis (skipped when no Redis answers at 127.0.0.1:6379)", () => {
  const clients: RedisClient[] = []
  const connect = async (url = "redis://127.0.0.1:6379/11", options = {}) => {
    const { Redis } = await import("ioredis")
    const redis = new Redis(url, { enableOfflineQueue: false, maxRetriesPerRequest: 1, ...options })
    clients.push(redis)
    return redis
  }
  const ready = (redis: RedisClient) => new Promise<void>((resolve) => (redis.status === "ready" ? resolve() : redis.once("ready", () => resolve())))
  afterAll(async () => {
    await Promise.all(clients.map((redis) => redis.quit().catch(() => redis.disconnect())))
  })

  it("holds the budgets across processes: two limiters on one Redis share every counter", async () => {
    const prefix = `test:${randomUUID()}:`
    const [first, second] = [await connect(), await connect()]
    await Promise.all([ready(first), ready(second)])
    const processA = new AdmissionLimiter(redisLimiters(first, prefix))
    const processB = new AdmissionLimiter(redisLimiters(second, prefix))
    const ips = ["198.51.100.1", "198.51.100.2", "198.51.100.3", "198.51.100.4"]
    const answers = await Promise.all(ips.map((ip, i) => session(i % 2 ? processB : processA, `collection:${ip}`, ip)))
    expect(answers.every((answer) => answer.admitted)).toBe(true)
    // The store's budget of 4 is spent, whichever process asks.
    expect(await session(processA, "collection:x", "198.51.100.5")).toMatchObject({ admitted: false, scope: "store" })
    expect(await session(processB, "collection:y", "198.51.100.6")).toMatchObject({ admitted: false, scope: "store" })
    const keys = await first.keys(`${prefix}*`)
    expect(keys).toEqual(expect.arrayContaining([`${prefix}sessions:store:store`, `${prefix}sessions:ip:198.51.100.1`]))
    const ttl = await first.pttl(`${prefix}sessions:store:store`)
    expect(ttl).toBeGreaterThan(0)
    expect(ttl).toBeLessThanOrEqual(60_000)
    await first.del(...keys)
  })

  it("holds one shopper's IP budget across processes", async () => {
    const prefix = `test:${randomUUID()}:`
    const [first, second] = [await connect(), await connect()]
    await Promise.all([ready(first), ready(second)])
    const processA = new AdmissionLimiter(redisLimiters(first, prefix))
    const processB = new AdmissionLimiter(redisLimiters(second, prefix))
    expect((await session(processA, "collection:a", "203.0.113.7")).admitted).toBe(true)
    expect((await session(processB, "collection:b", "203.0.113.7")).admitted).toBe(true)
    expect(await session(processA, "collection:c", "203.0.113.7")).toMatchObject({ admitted: false, scope: "ip" })
    expect(await session(processB, "collection:d", "198.51.100.1")).toEqual({ admitted: true })
    await first.del(...(await first.keys(`${prefix}*`)))
  })

  it("counts in memory while Redis can't be reached, instead of admitting everything", async () => {
    const unreachable = await connect("redis://127.0.0.1:1/0", { retryStrategy: () => null, lazyConnect: true })
    unreachable.on("error", () => undefined)
    const errors: unknown[] = []
    const limiter = new AdmissionLimiter(redisLimiters(unreachable, "test:"), (error) => errors.push(error))
    expect((await session(limiter, "collection:a", "203.0.113.7")).admitted).toBe(true)
    expect((await session(limiter, "collection:b", "203.0.113.7")).admitted).toBe(true)
    expect(await session(limiter, "collection:c", "203.0.113.7")).toMatchObject({ admitted: false, scope: "ip" })
    expect(errors).toHaveLength(0)
  })
})
