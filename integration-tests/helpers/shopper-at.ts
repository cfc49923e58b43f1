import type { StoreFixture } from "./store-fixtures"
import { PROVIDERS } from "./store-fixtures"

export type Answer = { status: number; data: any; headers: Record<string, string | undefined> }

type Api = {
  get: (url: string, config?: unknown) => Promise<{ status: number; data: any; headers: any }>
  post: (url: string, body?: unknown, config?: unknown) => Promise<{ status: number; data: any; headers: any }>
}

/**
 * A shopper at `ip` (X-Forwarded-For: Medusa trusts one proxy hop) through the real store routes: every
 * answer returned, never thrown, and passed to `check` (a secret watch) first.
 */
export function shopperAt(api: Api, store: StoreFixture, ip: string, check: (answer: Answer) => Answer) {
  const config = { headers: { "x-publishable-api-key": store.publishableKey, "x-forwarded-for": ip }, validateStatus: () => true }
  const answer = (response: { status: number; data: any; headers: any }) => check({ status: response.status, data: response.data, headers: response.headers })
  const get = async (url: string) => answer(await api.get(url, config))
  const post = async (url: string, body: unknown) => answer(await api.post(url, body, config))
  return {
    get,
    post,
    /** A cart with an item and an empty payment collection. */
    async cart() {
      const created = await post("/store/carts", {
        region_id: store.regionId,
        email: "shopper@example.com",
        items: [{ variant_id: store.variantId, quantity: 1 }],
      })
      if (created.status !== 200) throw new Error(`The cart was not created: ${created.status} ${JSON.stringify(created.data)}`)
      const collection = await post("/store/payment-collections", { cart_id: created.data.cart.id })
      if (collection.status !== 200) throw new Error(`The payment collection was not created: ${collection.status} ${JSON.stringify(collection.data)}`)
      return { cartId: created.data.cart.id as string, collectionId: collection.data.payment_collection.id as string }
    },
    /** Medusa's session route for the default crypto provider. */
    paySession: (collectionId: string, data: Record<string, unknown>) =>
      post(`/store/payment-collections/${collectionId}/payment-sessions`, { provider_id: PROVIDERS.default, data }),
  }
}
