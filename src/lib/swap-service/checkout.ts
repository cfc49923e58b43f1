import type { Checkout } from "./schemas"

/** A checkout has no status of its own: its latest shift (`orders[0]`) has; none until the payer picks a coin. */
export function latestShiftId(checkout: Pick<Checkout, "orders">): string | undefined {
  return checkout.orders?.[0]?.id
}
