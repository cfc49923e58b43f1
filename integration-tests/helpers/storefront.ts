import type { StoreFixture } from "./store-fixtures"

type Api = {
  post: (url: string, body?: unknown, config?: unknown) => Promise<{ status: number; data: any }>
  get: (url: string, config?: unknown) => Promise<{ status: number; data: any }>
}

/** A shopper's calls through the real store routes, as a storefront makes them. */
export function storefront(api: Api, store: StoreFixture) {
  const headers = { headers: { "x-publishable-api-key": store.publishableKey } }
  return {
    headers,
    async createCart(quantity = 1) {
      const { data } = await api.post(
        "/store/carts",
        { region_id: store.regionId, email: "shopper@example.com", items: [{ variant_id: store.variantId, quantity }] },
        headers
      )
      return data.cart
    },
    async createPaymentSession(cartId: string, providerId: string, data: Record<string, unknown>) {
      const {
        data: { payment_collection: collection },
      } = await api.post("/store/payment-collections", { cart_id: cartId }, headers)
      const response = await api.post(
        `/store/payment-collections/${collection.id}/payment-sessions`,
        { provider_id: providerId, data },
        headers
      )
      const session = response.data.payment_collection.payment_sessions.find(
        (s: { provider_id: string }) => s.provider_id === providerId
      )
      return { collection: response.data.payment_collection, session }
    },
    async complete(cartId: string) {
      const { data } = await api.post(`/store/carts/${cartId}/complete`, {}, headers)
      return data
    },
  }
}

/** Runs a request that must fail and returns the response, so tests can assert on the status and message. */
export async function failing(request: Promise<unknown>): Promise<{ status: number; data: any }> {
  try {
    await request
  } catch (error) {
    const response = (error as { response?: { status: number; data: any } }).response
    if (response) return response
    throw error
  }
  throw new Error("The request was expected to fail, but it succeeded")
}
