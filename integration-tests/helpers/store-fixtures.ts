import {
  createApiKeysWorkflow,
  createInventoryLevelsWorkflow,
  createStockLocationsWorkflow,
  linkSalesChannelsToStockLocationWorkflow,
  createProductsWorkflow,
  createRegionsWorkflow,
  createSalesChannelsWorkflow,
  linkSalesChannelsToApiKeyWorkflow,
} from "@medusajs/core-flows"
import type { MedusaContainer } from "@medusajs/framework/types"
import { ContainerRegistrationKeys, Modules } from "@medusajs/framework/utils"

export const PROVIDERS = {
  default: "pp_crypto-swap_crypto-swap",
  settled: "pp_crypto-swap_crypto-swap-settled",
  beforePayment: "pp_crypto-swap_crypto-swap-before",
  checkout: "pp_crypto-swap_crypto-swap-checkout",
  // The shopper bears refund fees, and money paid too much is refunded.
  refunding: "pp_crypto-swap_crypto-swap-refunding",
  system: "pp_system_default",
}

export type StoreFixture = {
  regionId: string
  variantId: string
  /** Set when the variant's stock is managed. */
  inventoryItemId?: string
  publishableKey: string
  currency: string
}

/**
 * A region paying with every registered crypto provider, one product, and a publishable key; with
 * `stock`, the variant's inventory is managed at one stock location holding that many.
 */
export async function createStoreFixture(
  container: MedusaContainer,
  { currency = "usd", price = 49.99, stock }: { currency?: string; price?: number; stock?: number } = {}
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
              manage_inventory: stock !== undefined,
              options: { Colour: "Black" },
              prices: [{ amount: price, currency_code: currency }],
            },
          ],
        },
      ],
    },
  })
  const variantId = product.variants[0].id
  if (stock === undefined) return { regionId: region.id, variantId, publishableKey: apiKey.token, currency }

  const {
    result: [location],
  } = await createStockLocationsWorkflow(container).run({ input: { locations: [{ name: "Warehouse" }] } })
  await linkSalesChannelsToStockLocationWorkflow(container).run({ input: { id: location.id, add: [salesChannel.id] } })
  const query = container.resolve(ContainerRegistrationKeys.QUERY)
  const {
    data: [variant],
  } = await query.graph({ entity: "product_variant", fields: ["inventory_items.inventory_item_id"], filters: { id: variantId } })
  const inventoryItemId = variant.inventory_items[0].inventory_item_id
  // A digital good: stock is reserved and released, but no shipping method is needed.
  await container.resolve(Modules.INVENTORY).updateInventoryItems({ id: inventoryItemId, requires_shipping: false })
  await createInventoryLevelsWorkflow(container).run({
    input: { inventory_levels: [{ inventory_item_id: inventoryItemId, location_id: location.id, stocked_quantity: stock }] },
  })
  return { regionId: region.id, variantId, publishableKey: apiKey.token, currency, inventoryItemId }
}

/** Sets the stocked quantity of the one stock level the fixture made (another shopper bought the last item, or it is back). */
export async function setStock(container: MedusaContainer, inventoryItemId: string, stocked: number) {
  const inventory = container.resolve(Modules.INVENTORY)
  const [level] = await inventory.listInventoryLevels({ inventory_item_id: inventoryItemId })
  await inventory.updateInventoryLevels([{ inventory_item_id: inventoryItemId, location_id: level.location_id, stocked_quantity: stocked }])
}
