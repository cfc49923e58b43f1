// The demo store: a Medusa 2 app that installs the plugin as a store does (the built package in
// node_modules). `npm run demo` at the repository root sets the environment below; the values are a
// local sandbox's, not real money.
import path from "node:path"
import { defineConfig, loadEnv } from "@medusajs/framework/utils"

loadEnv(process.env.NODE_ENV || "development", process.cwd())

const env = (name: string, fallback?: string) => {
  const value = process.env[name] ?? fallback
  if (value === undefined) throw new Error(`${name} is not set: start the demo with \`npm run demo\` at the repository root`)
  return value
}

module.exports = defineConfig({
  projectConfig: {
    databaseUrl: env("DATABASE_URL"),
    http: {
      jwtSecret: env("JWT_SECRET", "demo-jwt-secret"),
      cookieSecret: env("COOKIE_SECRET", "demo-cookie-secret"),
      storeCors: env("STORE_CORS", "http://localhost:8000,http://127.0.0.1:8000"),
      adminCors: env("ADMIN_CORS", "http://localhost:9000,http://127.0.0.1:9000"),
      authCors: env("AUTH_CORS", "http://localhost:9000,http://127.0.0.1:9000"),
    },
  },
  admin: {
    disable: process.env.DEMO_ADMIN === "off",
    backendUrl: process.env.MEDUSA_BACKEND_URL,
    // The Medusa packages resolve from the repository's node_modules, one level up: let Vite serve
    // files from there too (the dashboard's fonts).
    vite: () => ({ server: { fs: { allow: [path.resolve(process.cwd(), "..")] } } }),
  },
  plugins: [{ resolve: "medusa-payment-crypto-swap", options: {} }],
  modules: [
    // The shopper's e-mails (payment received, refund address needed, refunded, expired) go to Medusa's
    // local provider, which writes each one to the demo's log instead of sending it.
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
          {
            resolve: "medusa-payment-crypto-swap/providers/crypto-swap",
            id: "crypto-swap",
            options: {
              baseUrl: env("CRYPTO_SWAP_BASE_URL"),
              graphqlUrl: env("CRYPTO_SWAP_GRAPHQL_URL"),
              payUrl: env("CRYPTO_SWAP_PAY_URL"),
              accountId: env("CRYPTO_SWAP_ACCOUNT_ID"),
              privateKey: env("CRYPTO_SWAP_PRIVATE_KEY"),
              settlement: {
                usd: { coin: "USDC", network: "ethereum", address: "0xdeadbeefdeadbeefdeadbeefdeadbeefdeadbeef" },
                eur: { coin: "EURC", network: "ethereum", address: "0xfeedfacefeedfacefeedfacefeedfacefeedface" },
              },
              backendUrl: env("MEDUSA_BACKEND_URL", "http://localhost:9000"),
              // Every demo shopper (a person trying coins, the scripted shopper, the browser tests) is on this
              // machine, one IP, and the sandbox sets no rate limits: room for many payments a minute. A real
              // store keeps the defaults, sized to the service's budget (README, Options).
              admission: {
                sessionsPerCartPerMinute: 30,
                sessionsPerIpPerMinute: 60,
                sessionsPerStorePerMinute: 60,
                readsPerCartPerMinute: 300,
                readsPerIpPerMinute: 600,
              },
            },
          },
        ],
      },
    },
  ],
})
