import type { ConfigModule } from "@medusajs/framework/types"
import { Modules } from "@medusajs/framework/utils"
import { parseOptions, type CryptoSwapOptions } from "./options"
import type { MessageOverrides } from "./i18n"
import { CachingSwapClient, CoinCatalogue, RequestMetricsRecorder, SwapServiceClient, type SwapServiceClientOptions } from "./swap-service"

/** A crypto-swap provider as the store registered it under the payment module. */
export type RegisteredProvider = {
  /** Medusa's id for it: `pp_crypto-swap_{id}`. */
  providerId: string
  options: CryptoSwapOptions
}

const PROVIDER_RESOLVE = /(^|\/)providers\/crypto-swap\/?$/

/**
 * Routes, jobs and subscribers run outside the payment module's container, so they read the
 * provider's options from the store's config: one place for credentials and settlement.
 */
export function registeredProviders(configModule: ConfigModule): RegisteredProvider[] {
  const payment = configModule.modules?.[Modules.PAYMENT]
  const providers =
    payment && typeof payment === "object" && "options" in payment
      ? ((payment.options as { providers?: unknown[] })?.providers ?? [])
      : []
  return providers.flatMap((entry) => {
    const provider = entry as { resolve?: unknown; id?: unknown; options?: unknown }
    if (typeof provider.resolve !== "string" || !PROVIDER_RESOLVE.test(provider.resolve)) return []
    return [{ providerId: `pp_crypto-swap_${String(provider.id)}`, options: parseOptions(provider.options) }]
  })
}

/** Every upstream call of this process, for the health route (response times and failures). */
export const upstreamMetrics = new RequestMetricsRecorder()

function clientOptions(options: CryptoSwapOptions): SwapServiceClientOptions {
  return {
    baseUrl: options.baseUrl,
    graphqlUrl: options.graphqlUrl,
    payUrl: options.payUrl,
    accountId: options.accountId,
    privateKey: options.privateKey,
    secretHeader: options.secretHeader,
    timeoutMs: options.requestTimeoutMs,
    maxRetries: options.maxRetries,
    onMetric: upstreamMetrics.record,
  }
}

export function createSwapClient(options: CryptoSwapOptions): SwapServiceClient {
  return new SwapServiceClient(clientOptions(options))
}

const clients = new Map<string, SwapServiceClient>()

/** One keep-alive client per provider per process. */
export function clientFor(provider: RegisteredProvider): SwapServiceClient {
  let client = clients.get(provider.providerId)
  if (!client) {
    client = createSwapClient(provider.options)
    clients.set(provider.providerId, client)
  }
  return client
}

const catalogues = new Map<string, CoinCatalogue>()

/** One cached coin catalogue per provider per process: a cold cache costs one upstream call. */
export function catalogueFor(provider: RegisteredProvider): CoinCatalogue {
  let catalogue = catalogues.get(provider.providerId)
  if (!catalogue) {
    catalogue = new CoinCatalogue(clientFor(provider), { ttlMs: provider.options.catalogueTtlSeconds * 1000 })
    catalogues.set(provider.providerId, catalogue)
  }
  return catalogue
}

const cachingClients = new Map<string, CachingSwapClient>()

/**
 * One client per provider per process for the reads storefronts cause (estimates, permissions): cached
 * for `admission.estimateCacheSeconds` / `permissionsCacheSeconds` and single-flighted.
 */
export function readsFor(provider: RegisteredProvider): CachingSwapClient {
  let client = cachingClients.get(provider.providerId)
  if (!client) {
    const { estimateCacheSeconds, permissionsCacheSeconds } = provider.options.admission
    client = new CachingSwapClient(clientOptions(provider.options), {
      pairTtlMs: estimateCacheSeconds * 1000,
      permissionsTtlMs: permissionsCacheSeconds * 1000,
    })
    cachingClients.set(provider.providerId, client)
  }
  return client
}

const registries = new WeakMap<ConfigModule, Map<string, RegisteredProvider>>()

/** The store's crypto-swap providers by id, parsed once per config. */
export function providerRegistry(configModule: ConfigModule): Map<string, RegisteredProvider> {
  let registry = registries.get(configModule)
  if (!registry) {
    registry = new Map(registeredProviders(configModule).map((provider) => [provider.providerId, provider]))
    registries.set(configModule, registry)
  }
  return registry
}

/**
 * The store's own shopper texts (the `messages` option) of every registered provider, merged per language
 * in registration order: the store routes answer one storefront, whichever provider a request names.
 */
export function storeMessages(configModule: ConfigModule): MessageOverrides {
  const merged: MessageOverrides = {}
  for (const { options } of providerRegistry(configModule).values()) {
    for (const [language, texts] of Object.entries(options.messages ?? {})) merged[language] = { ...merged[language], ...texts }
  }
  return merged
}

export function providerById(configModule: ConfigModule, providerId: string): RegisteredProvider {
  const provider = providerRegistry(configModule).get(providerId)
  if (!provider) throw new Error(`No crypto-swap payment provider is registered as ${providerId}`)
  return provider
}
