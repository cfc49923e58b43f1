import { parseArgs } from "node:util"
import { loadEnv } from "@medusajs/framework/utils"
import type { SwapServiceClientOptions } from "../lib/swap-service"

/** Flags every service command takes; each falls back to the environment variable a store sets anyway (or its .env). */
export const CONNECTION_FLAGS = {
  "base-url": { type: "string", env: "CRYPTO_SWAP_BASE_URL" },
  "graphql-url": { type: "string", env: "CRYPTO_SWAP_GRAPHQL_URL" },
  "pay-url": { type: "string", env: "CRYPTO_SWAP_PAY_URL" },
  "account-id": { type: "string", env: "CRYPTO_SWAP_ACCOUNT_ID" },
  secret: { type: "string", env: "CRYPTO_SWAP_PRIVATE_KEY" },
  "secret-header": { type: "string", env: "CRYPTO_SWAP_SECRET_HEADER" },
} as const

export const CONNECTION_HELP = `Connection (flag, or the environment variable in brackets, also read from the .env
of the directory you run the command in, as Medusa reads it; real variables win over .env):
  --base-url URL        The service's API base [CRYPTO_SWAP_BASE_URL]
  --graphql-url URL     Its GraphQL endpoint [CRYPTO_SWAP_GRAPHQL_URL] (default: {base-url}/graphql)
  --pay-url URL         Its pay page base [CRYPTO_SWAP_PAY_URL] (default: {base-url})
  --account-id ID       Your account id [CRYPTO_SWAP_ACCOUNT_ID]
  --secret KEY          Your private key [CRYPTO_SWAP_PRIVATE_KEY] (prefer the variable: flags show in shell history)
  --secret-header NAME  Header carrying it [CRYPTO_SWAP_SECRET_HEADER] (default: x-service-secret)`

type Flag = keyof typeof CONNECTION_FLAGS

/**
 * The store's environment as Medusa sees it: the working directory's .env (and .env.staging, .env.production
 * or .env.test under those NODE_ENVs) beneath the real environment variables, which win.
 */
export function storeEnvironment(): NodeJS.ProcessEnv {
  loadEnv(process.env.NODE_ENV || "development", process.cwd())
  return process.env
}

/** Parses the connection flags plus a command's own; throws a clear message for anything missing. */
export function parseCommand<T extends Record<string, { type: "string" | "boolean"; multiple?: boolean }>>(
  argv: string[],
  own: T,
  required: Flag[],
  env: NodeJS.ProcessEnv = storeEnvironment()
) {
  const { values: parsed } = parseArgs({
    args: argv,
    strict: true,
    options: {
      ...Object.fromEntries(Object.keys(CONNECTION_FLAGS).map((flag) => [flag, { type: "string" as const }])),
      ...own,
      help: { type: "boolean" },
    },
  })
  const values = parsed as Record<string, string | boolean | string[] | undefined>
  const value = (flag: Flag) => (values[flag] as string | undefined) ?? env[CONNECTION_FLAGS[flag].env]
  const missing = required.filter((flag) => !value(flag))
  if (!values.help && missing.length) {
    throw new Error(`missing ${missing.map((flag) => `--${flag} (or ${CONNECTION_FLAGS[flag].env})`).join(", ")}`)
  }
  const baseUrl = value("base-url") ?? ""
  const client: SwapServiceClientOptions = {
    baseUrl,
    graphqlUrl: value("graphql-url") ?? `${baseUrl.replace(/\/+$/, "")}/graphql`,
    payUrl: value("pay-url") ?? baseUrl,
    accountId: value("account-id") ?? "",
    privateKey: value("secret") ?? "",
    secretHeader: value("secret-header"),
    maxRetries: 1,
  }
  return { client, values, help: Boolean(values.help) }
}
