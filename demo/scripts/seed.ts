// Seeds the demo store once: a region per settlement currency paying with crypto, a sales channel,
// a publishable key, three products priced in USD and EUR, and an admin user. Run by `npm run demo`
// through `medusa exec`; a second run finds the seed and changes nothing.
import {
  createApiKeysWorkflow,
  createProductsWorkflow,
  createRegionsWorkflow,
  createSalesChannelsWorkflow,
  createUsersWorkflow,
  linkSalesChannelsToApiKeyWorkflow,
  updateStoresWorkflow,
} from "@medusajs/core-flows"
import type { ExecArgs } from "@medusajs/framework/types"
import { ContainerRegistrationKeys, Modules } from "@medusajs/framework/utils"

export const DEMO = {
  salesChannel: "Crypto demo webshop",
  apiKey: "Crypto demo storefront",
  provider: "pp_crypto-swap_crypto-swap",
  adminEmail: process.env.DEMO_ADMIN_EMAIL ?? "admin@example.com",
  adminPassword: process.env.DEMO_ADMIN_PASSWORD ?? "supersecret",
}

const REGIONS = [
  { name: "United States (crypto)", currency_code: "usd", countries: ["us"] },
  { name: "Europe (crypto)", currency_code: "eur", countries: ["de", "fr", "nl", "es", "it"] },
]

const PRODUCTS = [
  { title: "Hardware wallet", handle: "hardware-wallet", usd: 79, eur: 73, description: "Keeps your keys offline." },
  { title: "Satoshi T-shirt", handle: "satoshi-t-shirt", usd: 25, eur: 23, description: "Organic cotton, printed whitepaper." },
  { title: "Node sticker pack", handle: "node-sticker-pack", usd: 4.5, eur: 4.2, description: "Twelve vinyl stickers." },
]

export default async function seedDemo({ container }: ExecArgs) {
  const logger = container.resolve(ContainerRegistrationKeys.LOGGER)
  const query = container.resolve(ContainerRegistrationKeys.QUERY)

  const { data: existing } = await query.graph({ entity: "sales_channel", fields: ["id"], filters: { name: DEMO.salesChannel } })
  if (existing.length) {
    logger.info("Demo store already seeded: nothing to do")
    return
  }

  const {
    result: [salesChannel],
  } = await createSalesChannelsWorkflow(container).run({
    input: { salesChannelsData: [{ name: DEMO.salesChannel, description: "The demo storefront" }] },
  })

  const { data: stores } = await query.graph({ entity: "store", fields: ["id"] })
  if (stores[0]) {
    await updateStoresWorkflow(container).run({
      input: {
        selector: { id: stores[0].id },
        update: {
          name: "Crypto demo store",
          supported_currencies: [
            { currency_code: "usd", is_default: true },
            { currency_code: "eur" },
          ],
          default_sales_channel_id: salesChannel.id,
        },
      },
    })
  }

  const {
    result: [apiKey],
  } = await createApiKeysWorkflow(container).run({
    input: { api_keys: [{ title: DEMO.apiKey, type: "publishable", created_by: "demo" }] },
  })
  await linkSalesChannelsToApiKeyWorkflow(container).run({ input: { id: apiKey.id, add: [salesChannel.id] } })

  await createRegionsWorkflow(container).run({
    input: { regions: REGIONS.map((region) => ({ ...region, payment_providers: [DEMO.provider] })) },
  })

  await createProductsWorkflow(container).run({
    input: {
      products: PRODUCTS.map((product) => ({
        title: product.title,
        handle: product.handle,
        description: product.description,
        status: "published" as const,
        options: [{ title: "Edition", values: ["Standard"] }],
        sales_channels: [{ id: salesChannel.id }],
        variants: [
          {
            title: "Standard",
            sku: `DEMO-${product.handle.toUpperCase()}`,
            manage_inventory: false,
            options: { Edition: "Standard" },
            prices: [
              { amount: product.usd, currency_code: "usd" },
              { amount: product.eur, currency_code: "eur" },
            ],
          },
        ],
      })),
    },
  })

  await createAdminUser(container, logger)
  logger.info(`Demo store seeded: 2 regions, ${PRODUCTS.length} products, publishable key ${apiKey.token}`)
}

async function createAdminUser(container: ExecArgs["container"], logger: { info: (m: string) => void }) {
  const users = await container.resolve(Modules.USER).listUsers({ email: DEMO.adminEmail })
  if (users.length) return
  const {
    result: [user],
  } = await createUsersWorkflow(container).run({ input: { users: [{ email: DEMO.adminEmail }] } })
  const auth = container.resolve(Modules.AUTH)
  const { authIdentity, error } = await auth.register("emailpass", {
    body: { email: DEMO.adminEmail, password: DEMO.adminPassword },
  } as any)
  if (error || !authIdentity) throw new Error(`Creating the admin user failed: ${error}`)
  await auth.updateAuthIdentities({ id: authIdentity.id, app_metadata: { user_id: user.id } })
  logger.info(`Admin user ${DEMO.adminEmail} created`)
}
