// Test-only app config: integration tests load the plugin's src/ as the app, with the provider
// registered several times (default options, authorize on settled, order before payment, hosted
// checkout) so one app covers every flow. The sandbox's URL and credentials come from the environment the tests set.
import { defineConfig, loadEnv } from "@medusajs/framework/utils"

loadEnv(process.env.NODE_ENV || "test", process.cwd())

const client = {
  baseUrl: process.env.CRYPTO_SWAP_BASE_URL ?? "http://127.0.0.1:1",
  graphqlUrl: process.env.CRYPTO_SWAP_GRAPHQL_URL ?? "http://127.0.0.1:1/graphql",
  payUrl: process.env.CRYPTO_SWAP_PAY_URL ?? "http://127.0.0.1:1",
  accountId: process.env.CRYPTO_SWAP_ACCOUNT_ID ?? "test-account",
  privateKey: process.env.CRYPTO_SWAP_PRIVATE_KEY ?? "test-secret",
  settlement: {
    usd: { coin: "USDC", network: "ethereum", address: "0x1111111111111111111111111111111111111111" },
    eur: { coin: "EURC", network: "ethereum", address: "0x2222222222222222222222222222222222222222" },
  },
  // Every tick syncs every open shift, so a test's explicit reconciliation run sees the latest state.
  reconcile: {
    inFlightSeconds: 0,
    waitingSeconds: 0,
    reviewSeconds: 0,
    refundSeconds: 0,
    maxBackoffSeconds: 0,
    // The upstream-fault tests tick the job far more often than a store would, over many open shifts.
    ...(process.env.CRYPTO_SWAP_TEST_MAX_READS_PER_MINUTE ? { maxReadsPerMinute: Number(process.env.CRYPTO_SWAP_TEST_MAX_READS_PER_MINUTE) } : {}),
  },
  // The upstream-fault tests wait less for an answer that never comes, and let the coin list go stale within seconds.
  ...(process.env.CRYPTO_SWAP_TEST_TIMEOUT_MS ? { requestTimeoutMs: Number(process.env.CRYPTO_SWAP_TEST_TIMEOUT_MS) } : {}),
  ...(process.env.CRYPTO_SWAP_TEST_CATALOGUE_TTL_SECONDS ? { catalogueTtlSeconds: Number(process.env.CRYPTO_SWAP_TEST_CATALOGUE_TTL_SECONDS) } : {}),
  // Most specs start many payments a minute from one IP and expect every read to reach the sandbox: roomy
  // throttles (still counted) and no read cache. admission-control.spec.ts sets real ones (JSON, over the defaults).
  admission: process.env.CRYPTO_SWAP_TEST_ADMISSION
    ? JSON.parse(process.env.CRYPTO_SWAP_TEST_ADMISSION)
    : {
        sessionsPerCartPerMinute: 100_000,
        sessionsPerIpPerMinute: 100_000,
        sessionsPerStorePerMinute: 100_000,
        readsPerCartPerMinute: 100_000,
        readsPerIpPerMinute: 100_000,
        readsPerStorePerMinute: 100_000,
        estimateCacheSeconds: 0,
        permissionsCacheSeconds: 0,
      },
  // The sandbox's own limit on open variable shifts (5) is the only one most specs meet, which open many carts
  // from one IP; variable-pool.spec.ts sets the plugin's (JSON, over the defaults).
  variablePool: process.env.CRYPTO_SWAP_TEST_POOL ? JSON.parse(process.env.CRYPTO_SWAP_TEST_POOL) : { limit: 1000, reservedForRefunds: 0, perShopper: 1000 },
  // translations.spec.ts sets the store's own shopper texts (JSON).
  ...(process.env.CRYPTO_SWAP_TEST_MESSAGES ? { messages: JSON.parse(process.env.CRYPTO_SWAP_TEST_MESSAGES) } : {}),
}

const provider = (id: string, options: Record<string, unknown> = {}) => ({
  resolve: "./src/providers/crypto-swap",
  id,
  options: { ...client, ...options },
})

// The multi-process test shares Redis between processes, as production does.
const redisUrl = process.env.CRYPTO_SWAP_TEST_REDIS_URL
const redisModules = redisUrl
  ? [
      { resolve: "@medusajs/medusa/event-bus-redis", options: { redisUrl } },
      { resolve: "@medusajs/medusa/workflow-engine-redis", options: { redis: { redisUrl } } },
      {
        resolve: "@medusajs/medusa/locking",
        options: {
          providers: [{ resolve: "@medusajs/medusa/locking-redis", id: "locking-redis", is_default: true, options: { redisUrl } }],
        },
      },
    ]
  : []

module.exports = defineConfig({
  // `medusa start` serves a built dashboard; the restart test runs this app as a real server without one.
  admin: { disable: process.env.CRYPTO_SWAP_TEST_ADMIN === "off" },
  projectConfig: {
    databaseUrl: process.env.DATABASE_URL,
    redisUrl,
    http: {
      jwtSecret: "test-jwt-secret",
      cookieSecret: "test-cookie-secret",
      storeCors: "*",
      adminCors: "*",
      authCors: "*",
    },
  },
  modules: [
    ...redisModules,
    // A store gets the plugin's module with the plugin; the test app is the plugin itself, so it is listed here.
    { resolve: "./src/modules/crypto-swap" },
    // The shopper's emails go to Medusa's local provider, which logs them and records them as notifications.
    {
      resolve: "@medusajs/medusa/notification",
      options: {
        providers: [{ resolve: "@medusajs/medusa/notification-local", id: "local", options: { name: "Local", channels: ["email", "feed"] } }],
      },
    },
    {
      resolve: "@medusajs/medusa/payment",
      options: {
        providers: [
          provider("crypto-swap"),
          // Its refund-address message links to the storefront's payment page.
          provider("crypto-swap-settled", { authorizeOn: "settled", notifications: { paymentPageUrl: "http://shop.test/checkout?cart_id={cart_id}&step=payment" } }),
          provider("crypto-swap-before", { placeOrder: "before_payment" }),
          provider("crypto-swap-checkout", {
            mode: "checkout",
            checkout: { successUrl: "http://shop.test/order/confirmed", cancelUrl: "http://shop.test/cart" },
          }),
          provider("crypto-swap-refunding", { refundFees: "shopper", overpayment: "refund", underpayment: { waitMinutes: 30, then: "refund" } }),
        ],
      },
    },
  ],
})
