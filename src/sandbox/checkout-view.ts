import type { Checkout, SandboxState } from "./state"

/** The checkout object of spec 2.6; `orders` (latest shift first) only when fetched. */
export function checkoutView(checkout: Checkout, state: SandboxState, withOrders: boolean) {
  const view = {
    id: checkout.id,
    settleCoin: checkout.settle.coin.coin,
    settleNetwork: checkout.settle.network,
    settleAmount: checkout.settleAmount,
    settleAddress: checkout.settleAddress,
    settleMemo: checkout.settleMemo,
    affiliateId: checkout.affiliateId,
    successUrl: checkout.successUrl,
    cancelUrl: checkout.cancelUrl,
    createdAt: checkout.createdAt,
    updatedAt: checkout.updatedAt,
  }
  if (!withOrders) {
    return view
  }
  const orders = checkout.shiftIds.flatMap((id) => {
    const shift = state.shifts.get(id)
    return shift ? [{ id, deposits: shift.deposits.map(({ depositHash, settleHash }) => ({ depositHash, settleHash })) }] : []
  })
  return { ...view, orders }
}
