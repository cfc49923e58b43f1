import type { MedusaContainer } from "@medusajs/framework/types"
import { ContainerRegistrationKeys } from "@medusajs/framework/utils"
import { CRYPTO_SWAP_MODULE, type CryptoSwapModuleService } from "../../src/modules/crypto-swap"
import { reconcileShiftsWorkflow } from "../../src/workflows/reconcile-shifts"
import { syncShiftWorkflow } from "../../src/workflows/sync-shift"
import { firstIdAt } from "../../src/workflows/steps/discovery-window"

export function ledgerOf(container: MedusaContainer) {
  return container.resolve<CryptoSwapModuleService>(CRYPTO_SWAP_MODULE)
}

/** One reconciliation tick, as the scheduled job runs it. */
export async function reconcile(container: MedusaContainer) {
  const { result } = await reconcileShiftsWorkflow(container).run()
  return result
}

/** A Medusa id (`<prefix>_<ULID>`) with the creation time `madeAt` in place of its own, its random part kept. */
export function idMadeAt(id: string, madeAt: number): string {
  const prefix = id.slice(0, id.lastIndexOf("_"))
  // A ULID's time comes first; its last 16 characters are random.
  return firstIdAt(prefix, madeAt).slice(0, -16) + id.slice(-16)
}

/**
 * Makes a payment session one made at `madeAt`, as discovery sees it: Medusa stamps a session's id with
 * the time it was made, so the id is moved (nothing refers to a session before its payment). Returns the new id.
 */
export async function sessionMadeAt(container: MedusaContainer, sessionId: string, madeAt: number): Promise<string> {
  const moved = idMadeAt(sessionId, madeAt)
  await container.resolve(ContainerRegistrationKeys.PG_CONNECTION)("payment_session").where({ id: sessionId }).update({ id: moved })
  return moved
}

export async function ledgerRow(container: MedusaContainer, filter: Record<string, unknown>) {
  const [row] = await ledgerOf(container).listSwapShifts(filter, { relations: ["events"] })
  if (!row) throw new Error(`No ledger row for ${JSON.stringify(filter)}`)
  row.events = [...row.events].sort((a, b) => new Date(a.occurred_at).getTime() - new Date(b.occurred_at).getTime())
  return row
}

export async function orderWithPayments(container: MedusaContainer, cartId: string) {
  const query = container.resolve(ContainerRegistrationKeys.QUERY)
  const { data: links } = await query.graph({ entity: "order_cart", fields: ["order_id"], filters: { cart_id: cartId } })
  if (!links[0]) return undefined
  const {
    data: [order],
  } = await query.graph({
    entity: "order",
    fields: [
      "id",
      "status",
      "payment_status",
      "payment_collections.status",
      "payment_collections.payments.*",
      "payment_collections.payments.captures.*",
      // What the order says it was paid: Medusa books each capture as one of its transactions.
      "transactions.*",
      "summary",
    ],
    filters: { id: links[0].order_id },
  })
  return {
    ...order,
    payments: order.payment_collections.flatMap((collection: any) => collection.payments),
  }
}

type Shopper = {
  createCart(): Promise<{ id: string }>
  createPaymentSession(cartId: string, providerId: string, data: Record<string, unknown>): Promise<{ session: any }>
}
type Service = { deposit(shiftId: string): Promise<unknown>; walk(shiftId: string, statuses: string[]): Promise<void> }

/** A shopper pays in full in `data`'s coin and the service settles it: one tick places and captures the order. */
export async function paidOrder(container: MedusaContainer, shop: Shopper, service: Service, providerId: string, data: Record<string, unknown>) {
  const cart = await shop.createCart()
  const { session } = await shop.createPaymentSession(cart.id, providerId, data)
  await service.deposit(session.data.shift_id)
  await service.walk(session.data.shift_id, ["processing", "settling", "settled"])
  await reconcile(container)
  const order = await orderWithPayments(container, cart.id)
  if (!order) throw new Error(`No order was placed for cart ${cart.id}`)
  return { cart, session, order, payments: order.payments }
}

/**
 * A shopper pays in full in `data`'s coin and the service confirms the deposit: one tick places the order on
 * an authorized payment, not captured until the shift settles.
 */
export async function placedOnConfirmedDeposit(
  container: MedusaContainer,
  shop: Shopper,
  service: Service & { setStatus(shiftId: string, status: string): Promise<unknown> },
  providerId: string,
  data: Record<string, unknown>
) {
  const cart = await shop.createCart()
  const { session } = await shop.createPaymentSession(cart.id, providerId, data)
  const shiftId = session.data.shift_id as string
  await service.deposit(shiftId)
  await service.setStatus(shiftId, "processing")
  await reconcile(container)
  const order = await orderWithPayments(container, cart.id)
  if (!order) throw new Error(`No order was placed for cart ${cart.id}`)
  return { cart, session, shiftId, order }
}

/** What a sync's lost database answers (see syncLosingActionRecords). */
export const LOST_CONNECTION = "Connection terminated unexpectedly"

/**
 * Syncs a row while a process that takes no shift lock (the order-cancel subscriber, the job looking for unheard
 * cancels) marks its order canceled, after the sync recorded what it read (its first ledger write) and before it
 * ends. `meanwhile` runs first (the cancel itself, say).
 */
export async function syncWhileOrderCancelMarked(container: MedusaContainer, ledgerId: string, meanwhile: () => Promise<unknown> = async () => {}) {
  const ledger = ledgerOf(container)
  const update = ledger.updateSwapShifts.bind(ledger) as (data: Record<string, unknown>) => Promise<unknown>
  const mark = jest.spyOn(ledger, "updateSwapShifts").mockImplementationOnce((async (data: Record<string, unknown>) => {
    const written = await update(data)
    await meanwhile()
    await update({ id: ledgerId, order_canceled_at: new Date(), next_sync_at: new Date() })
    return written
  }) as never)
  try {
    await syncShiftWorkflow(container).run({ input: { ledger_id: ledgerId, source: "poll" } })
  } finally {
    mark.mockRestore()
  }
}

/**
 * Syncs a ledger row once, the write of the actions it planned failing (as a process killed right after
 * recording the shift would stop there); answers the sync's error messages.
 */
export async function syncLosingActionRecords(container: MedusaContainer, ledgerId: string): Promise<Array<string | undefined>> {
  const lost = jest.spyOn(ledgerOf(container), "createSwapShiftActions").mockRejectedValueOnce(new Error(LOST_CONNECTION))
  try {
    const { errors } = await syncShiftWorkflow(container).run({ input: { ledger_id: ledgerId, source: "poll" }, throwOnError: false })
    return errors.map((error) => error.error?.message)
  } finally {
    lost.mockRestore()
  }
}
