import { createStep, StepResponse } from "@medusajs/framework/workflows-sdk"
import { BigNumber, MathBN, Modules } from "@medusajs/framework/utils"
import type { BigNumberRawValue } from "@medusajs/framework/types"
import { rawTotal } from "../../lib/money"

type RefundedPayment = { id: string; currency_code: string; refunds?: Array<{ id: string; raw_amount: BigNumberRawValue }> | null }

/**
 * Books on the canceled order the refunds Medusa's refund workflow left off it: it keys the order's entry by the
 * payment, so a second refund of one payment (the rest of a payment captured in part by hand, whose part the
 * cancel refunded) is dropped as already booked, and the order shows money kept that went back. Each payment's
 * refunds are compared with its booked entries and the difference booked once, keyed by a refund not booked yet.
 */
export const bookCanceledOrderRefundsStep = createStep(
  "crypto-swap-book-canceled-order-refunds",
  async (input: { order_id: string; payments: RefundedPayment[] }, { container }) => {
    const orders = container.resolve(Modules.ORDER)
    const refunded = input.payments.filter((payment) => payment.refunds?.length)
    if (!refunded.length) return new StepResponse([])
    const booked = await orders.listOrderTransactions({ order_id: input.order_id, reference: "refund" }, { select: ["reference_id", "raw_amount"] })
    const entries = refunded.flatMap((payment) => {
      const refunds = payment.refunds!
      const keys = new Set([payment.id, ...refunds.map((refund) => refund.id)])
      const bookedHere = booked.filter((entry) => keys.has(entry.reference_id!))
      const missing = MathBN.sub(
        rawTotal(refunds),
        MathBN.sum(0, ...bookedHere.map((entry) => MathBN.abs(new BigNumber(entry.raw_amount))))
      )
      const unbooked = refunds.filter((refund) => !bookedHere.some((entry) => entry.reference_id === refund.id)).at(-1)
      if (MathBN.lte(missing, 0) || !unbooked) return []
      return [{ order_id: input.order_id, amount: MathBN.mult(missing, -1), currency_code: payment.currency_code, reference: "refund", reference_id: unbooked.id }]
    })
    if (entries.length) await orders.addOrderTransactions(entries)
    return new StepResponse(entries)
  }
)
