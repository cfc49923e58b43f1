import {
  createApiKeysWorkflow,
  createProductsWorkflow,
  createRegionsWorkflow,
  createSalesChannelsWorkflow,
  linkSalesChannelsToApiKeyWorkflow,
} from "@medusajs/core-flows"
import type { MedusaContainer } from "@medusajs/framework/types"

export const PROVIDERS = {
  default: "pp_crypto-swap_crypto-swap",
  settled: "pp_crypto-swap_crypto-swap-settled",
  checkout: "pp_crypto-swap_crypto-swap-checkout",
  system: "pp_system_default",
}

export type StoreFixture = {
  regionId: string
  variantId: string
  publishableKey: string
  currency: string
}

/** A region paying with every registered crypto provider, one product, and a publishable key. */
export async function createStoreFixture(
  container: MedusaContainer,
  { currency = "usd", price = 49.99 }: { currency?: string; price?: number } = {}
): Promise<StoreFixture> {
  const {
    result: [salesChannel],
  } = await createSalesChannelsWorkflow(container).run({ input: { salesChannelsData: [{ name: "Webshop" }] } })
  const {
    result: [apiKey],
  } = await createApiKeysWorkflow(container).run({
    input: { api_keys: [{ title: "Storefront", type: "publishable", created_by: "test" }] },
  })
  await linkSalesChannelsToApiKeyWorkflow(container).run({ input: { id: apiKey.id, add: [salesChannel.id] } })
  const {
    result: [region],
  } = await createRegionsWorkflow(container).run({
    input: {
      regions: [
        {
          name: `Crypto ${currency}`,
          currency_code: currency,
          countries: [currency === "eur" ? "de" : "us"],
          payment_providers: Object.values(PROVIDERS),
        },
      ],
    },
  })
  const {
    result: [product],
  } = await createProductsWorkflow(container).run({
    input: {
      products: [
        {
          title: "Hardware wallet",
          status: "published",
          options: [{ title: "Colour", values: ["Black"] }],
          sales_channels: [{ id: salesChannel.id }],
          variants: [
            {
              title: "Black",
              manage_inventory: false,
              options: { Colour: "Black" },
              prices: [{ amount: price, currency_code: currency }],
            },
          ],
        },
      ],
    },
  })
  return { regionId: region.id, variantId: product.variants[0].id, publishableKey: apiKey.token, currency }
}
