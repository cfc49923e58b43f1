import type { MedusaContainer } from "@medusajs/framework/types"
import { ContainerRegistrationKeys } from "@medusajs/framework/utils"
import { providerRegistry } from "../../src/lib/provider-registry"
import { parseOptions, type CryptoSwapOptions } from "../../src/lib/options"

/**
 * Reconciliation options for one provider of the test app, before its first tick in this process
 * (the read budget is made at first use). Tests and benchmarks compare configurations side by side on
 * the test app's providers rather than booting one app per configuration.
 */
export function configureReconciliation(container: MedusaContainer, providerId: string, reconcile: Partial<CryptoSwapOptions["reconcile"]>) {
  const provider = providerRegistry(container.resolve(ContainerRegistrationKeys.CONFIG_MODULE)).get(providerId)!
  provider.options = { ...provider.options, reconcile: { ...provider.options.reconcile, ...reconcile } }
  return provider.options.reconcile
}

/** The reconciliation options a store gets when it sets none (the test app sets a cadence of 0 s). */
export function shippedReconcileDefaults(): CryptoSwapOptions["reconcile"] {
  return parseOptions({
    baseUrl: "https://service.example",
    graphqlUrl: "https://service.example/graphql",
    payUrl: "https://pay.example",
    accountId: "account",
    privateKey: "key",
    settlement: { usd: { coin: "USDC", network: "ethereum", address: "0x1111111111111111111111111111111111111111" } },
  }).reconcile
}
