import type { ConfigModule } from "@medusajs/framework/types"
import { RateLimiterMemory, RateLimiterRedis } from "rate-limiter-flexible"
import type { Redis as RedisClient, RedisOptions } from "ioredis"
import { AdmissionLimiter, type LimiterFactory } from "./admission-limiter"

/** Budgets are per minute. */
const WINDOW_SECONDS = 60

/** Where the counters of this plugin live in Redis, after the store's own `redisPrefix`. */
export const ADMISSION_KEY_PREFIX = "crypto-swap:admission:"

/** Counters in this process only: right for a store that runs one server process. */
export function memoryLimiters(): LimiterFactory {
  return (name, points, duration = WINDOW_SECONDS) => new RateLimiterMemory({ keyPrefix: name, points, duration })
}

/**
 * Counters in Redis, shared by every server process of the store (atomic increments, so concurrent
 * requests in several processes never overshoot a budget). While Redis can't be reached each process
 * counts on its own in memory (rate-limiter-flexible's insurance limiter) instead of stopping checkouts.
 */
export function redisLimiters(redis: RedisClient, keyPrefix = ADMISSION_KEY_PREFIX): LimiterFactory {
  return (name, points, duration = WINDOW_SECONDS) => {
    const options = { keyPrefix: `${keyPrefix}${name}`, points, duration }
    return new RateLimiterRedis({
      ...options,
      storeClient: redis,
      rejectIfRedisNotReady: true,
      insuranceLimiter: new RateLimiterMemory(options),
    })
  }
}

type Logger = { warn(message: string): void }

let shared: { redisUrl: string | undefined; limiter: AdmissionLimiter } | undefined

/**
 * The process's admission limiter: in Redis when the store has one (`projectConfig.redisUrl`, as Medusa's
 * own sessions use it), else in memory. Created once per process and Redis URL.
 */
export function admissionLimiter(configModule: ConfigModule, logger: Logger): AdmissionLimiter {
  const { redisUrl, redisOptions, redisPrefix } = configModule.projectConfig as {
    redisUrl?: string
    redisOptions?: RedisOptions
    redisPrefix?: string
  }
  if (shared && shared.redisUrl === redisUrl) return shared.limiter
  let warned = false
  const onStoreError = (error: unknown) => {
    if (warned) return
    warned = true
    logger.warn(`crypto-swap: admission counters unavailable, requests admitted uncounted (${(error as Error)?.message ?? String(error)})`)
  }
  let limiter: AdmissionLimiter
  if (redisUrl) {
    const redis = connect(redisUrl, redisOptions, logger)
    limiter = new AdmissionLimiter(redisLimiters(redis, `${redisPrefix ?? ""}${ADMISSION_KEY_PREFIX}`), onStoreError, connected(redis))
  } else {
    limiter = new AdmissionLimiter(memoryLimiters(), onStoreError)
  }
  shared = { redisUrl, limiter }
  return limiter
}

/** How long the first requests of a process wait for its Redis connection before counting in memory. */
const CONNECT_WAIT_MS = 2000

/** Settles when the client is ready, fails to connect, or after CONNECT_WAIT_MS. */
function connected(redis: RedisClient): Promise<void> {
  if (redis.status === "ready") return Promise.resolve()
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer)
      redis.off("ready", done)
      redis.off("error", done)
      resolve()
    }
    const timer = setTimeout(done, CONNECT_WAIT_MS)
    timer.unref()
    redis.once("ready", done)
    redis.once("error", done)
  })
}

function connect(redisUrl: string, redisOptions: RedisOptions | undefined, logger: Logger): RedisClient {
  // ioredis comes with Medusa (its HTTP server loads it); required here only when the store has Redis.
  const { Redis } = require("ioredis") as typeof import("ioredis")
  const redis = new Redis(redisUrl, {
    ...redisOptions,
    // Fail fast while disconnected: the in-memory insurance counts meanwhile.
    enableOfflineQueue: false,
    maxRetriesPerRequest: 1,
    connectTimeout: CONNECT_WAIT_MS,
  })
  let reported = false
  redis.on("error", (error: Error) => {
    if (reported) return
    reported = true
    logger.warn(`crypto-swap: admission counters fall back to this process while Redis is unreachable (${error.message})`)
  })
  redis.on("ready", () => {
    reported = false
  })
  return redis
}
