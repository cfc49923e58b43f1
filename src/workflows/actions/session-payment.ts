import type { BigNumberRawValue, MedusaContainer } from "@medusajs/framework/types"
import { BigNumber, ContainerRegistrationKeys, MathBN, MedusaError } from "@medusajs/framework/utils"
import type { LedgerShift } from "./shift-action"
import { rawTotal } from "../../lib/money"
import { shortOfCartTotal } from "../../lib/shift/cart-total"
import { orderOfCollection } from "../steps/collection-payer"

/** `captured_at` is set once a payment is captured in full; `captures` says whether any of it was. */
type MedusaPayment = {
  id: string
  raw_amount: BigNumberRawValue
  currency_code: string
  captured_at: Date | string | null
  canceled_at: Date | string | null
  captures?: Array<{ id: string; raw_amount: BigNumberRawValue }> | null
}

/** Medusa holds some of the payment's money: captured in full, or in part (an admin's capture of an amount). */
export const capturedAny = (payment: MedusaPayment | null) => Boolean(payment?.captured_at || payment?.captures?.length)

/** What is left to capture of a payment captured in part (by an admin, with an amount). */
export const uncapturedRest = (payment: MedusaPayment) => MathBN.sub(new BigNumber(payment.raw_amount), rawTotal(payment.captures))

/**
 * Medusa holds all of the payment: `captured_at`, or captures that add up to it (Medusa writes that it is
 * captured in full apart from the capture, a write a crash may have lost).
 */
export const capturedInFull = (payment: MedusaPayment | null) =>
  Boolean(payment?.captured_at || (payment?.captures?.length && MathBN.lte(uncapturedRest(payment), 0)))

/**
 * Medusa's side of a payment shift: its session's payment and the cart's order, as they are now, and
 * whether that order was canceled (Medusa may leave the payment of a canceled order uncanceled).
 */
export async function sessionPayment(container: MedusaContainer, row: LedgerShift) {
  const query = container.resolve(ContainerRegistrationKeys.QUERY)
  const {
    data: [session],
  } = await query.graph({
    entity: "payment_session",
    fields: ["id", "payment.id", "payment.raw_amount", "payment.currency_code", "payment.captured_at", "payment.canceled_at", "payment.captures.id", "payment.captures.raw_amount", "payment.refunds.id"],
    filters: { id: row.payment_session_id! },
  })
  let orderId = row.order_id
  // The cart's order is this payment's only while its session lives: a shopper who started a new payment
  // (this one given back) may have placed the order with that one.
  if (!orderId && row.cart_id && session) {
    const { data: links } = await query.graph({ entity: "order_cart", fields: ["order_id"], filters: { cart_id: row.cart_id } })
    orderId = links[0]?.order_id ?? null
  } else if (!orderId && !row.cart_id && row.payment_collection_id) {
    // A collection of an order's own (what an edited order still owes), on a row an earlier release recorded without it.
    orderId = await orderOfCollection(container, row.payment_collection_id)
  }
  const {
    data: [order],
  } = orderId ? await query.graph({ entity: "order", fields: ["id", "status", "canceled_at"], filters: { id: orderId } }) : { data: [] }
  const payment = session?.payment ?? null
  return {
    payment: payment as MedusaPayment | null,
    /** Medusa refunded the payment itself (its own webhook route captures a paid checkout, then refunds it when the cart can't be completed). */
    refundedByMedusa: (payment?.refunds?.length ?? 0) > 0,
    orderId,
    // An archived canceled order keeps its `canceled_at` only.
    orderCanceled: order?.status === "canceled" || Boolean(order?.canceled_at),
    /** Ledger columns that link the row to what Medusa made of it. */
    links: { ...(orderId && !row.order_id ? { order_id: orderId } : {}), ...(payment?.id && !row.payment_id ? { payment_id: payment.id } : {}) },
  }
}

/** The cart's total now, when above what the payment session asks (shortOfCartTotal). */
export async function cartTotalAboveSession(container: MedusaContainer, cartId: string, sessionId: string) {
  const query = container.resolve(ContainerRegistrationKeys.QUERY)
  const {
    data: [cart],
  } = await query.graph({
    entity: "cart",
    fields: ["total", "currency_code", "payment_collection.payment_sessions.id", "payment_collection.payment_sessions.amount"],
    filters: { id: cartId },
  })
  const session = cart?.payment_collection?.payment_sessions?.find((candidate: { id?: string } | null) => candidate?.id === sessionId)
  return cart ? shortOfCartTotal(session?.amount, cart) : undefined
}

/**
 * Money Medusa captured is refunded by Medusa, whose refunds become refund shifts (its own route may capture a
 * paid checkout and refund it when the cart can't be completed): given back by the ledger too, it would be
 * paid back twice.
 */
export function refuseIfCapturedByMedusa(payment: MedusaPayment | null): void {
  if (payment && capturedAny(payment)) {
    throw new MedusaError(
      MedusaError.Types.NOT_ALLOWED,
      payment.captured_at
        ? `Medusa captured this payment (${payment.id}) although no order keeps it: refund it from Medusa's payment (its refunds become refund shifts), never here as well.`
        : `Part of this payment (${payment.id}) was captured by hand in Medusa: Medusa refunds that part (its refunds become refund shifts); pay the rest back by other means, never here as well.`
    )
  }
}
