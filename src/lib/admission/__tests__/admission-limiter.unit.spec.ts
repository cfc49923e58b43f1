import { spawnSync } from "node:child_process"
import { randomUUID } from "node:crypto"
import type { Redis as RedisClient } from "ioredis"
import type { RateLimiterAbstract } from "rate-limiter-flexible"
import { admissionSchema } from "../../options"
import { AdmissionLimiter, memoryLimiters, readBudgets, redisLimiters, refusal, sessionBudgets, type LimiterFactory } from ".."

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

const session = (limiter: AdmissionLimiter, cart: string, ip: string, options = DEFAULTS) =>
  limiter.admit("sessions", sessionBudgets(options, { cart, ip }))

describe("admission budgets", () => {
  it("are taken narrowest first: the shopper's IP, the cart, the store", () => {
    expect(sessionBudgets(DEFAULTS, { cart: "collection:pay_col_1", ip: "203.0.113.7" })).toEqual([
      { scope: "ip", key: "203.0.113.7", perMinute: 2 },
      { scope: "cart", key: "collection:pay_col_1", perMinute: 3 },
      { scope: "store", key: "store", perMinute: 4 },
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
    const broken = (() => ({ consume: () => Promise.reject(new Error("store down")) })) as unknown as LimiterFactory
    const limiter = new AdmissionLimiter(broken, (error) => errors.push(error))
    expect(await session(limiter, "collection:a", "203.0.113.7")).toEqual({ admitted: true })
    expect(errors).toHaveLength(3)
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
