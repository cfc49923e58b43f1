import { createStep, StepResponse } from "@medusajs/framework/workflows-sdk"
import { ContainerRegistrationKeys, Modules } from "@medusajs/framework/utils"
import type { FilterableRefundProps, FindConfig, RefundDTO } from "@medusajs/framework/types"
import { CRYPTO_SWAP_MODULE, type CryptoSwapModuleService } from "../../modules/crypto-swap"
import { providerRegistry } from "../../lib/provider-registry"
import { toDecimalString } from "../../lib/money"
import { recordRefund, recordUnknownPaymentRefund } from "./record-refund"
import { discoveryOverlapMs, readSinceWatermark } from "./discovery-window"
import { orderOfCollection } from "./collection-payer"

/** What a tick recorded, how many of Medusa's refunds it read, and where the next one starts. */
export type RefundDiscovery = { recorded: string[]; read: number; refunds_through: string | null }

/** A refund with what the ledger needs of its payment (Medusa's DTO types leave out these columns). */
type RefundRow = RefundDTO & {
  payment_id: string
  payment?: { provider_id: string; payment_session_id: string; currency_code: string; payment_collection_id: string }
}

const REFUND_FIELDS: FindConfig<RefundDTO> = {
  select: ["id", "amount", "raw_amount", "payment_id", "payment.provider_id", "payment.payment_session_id", "payment.currency_code", "payment.payment_collection_id"],
  relations: ["payment"],
}

/**
 * Every refund Medusa records for a crypto payment becomes one refund in the ledger, whichever
 * workflow made it (an admin refund, an order cancel, a return, a claim, an exchange): Medusa's refund
 * rows are read, not its events, which most of those paths never emit. With a `payment_id`, only that
 * payment's refunds (right after an admin refund); else those made since the last tick's watermark.
 */
export const discoverRefundsStep = createStep(
  "crypto-swap-discover-refunds",
  async (input: { payment_id?: string }, { container }) => {
    const ledger = container.resolve<CryptoSwapModuleService>(CRYPTO_SWAP_MODULE)
    const providers = providerRegistry(container.resolve(ContainerRegistrationKeys.CONFIG_MODULE))
    const payments = container.resolve(Modules.PAYMENT)
    const recorded: string[] = []

    const record = async (refunds: RefundRow[]) => {
      const ours = refunds.filter((refund) => providers.has(refund.payment?.provider_id as string))
      if (!ours.length) return
      const known = new Set(
        (await ledger.listSwapShifts({ refund_id: ours.map((refund) => refund.id) }, { select: ["refund_id"] })).map((row) => row.refund_id)
      )
      const fresh = ours.filter((refund) => !known.has(refund.id))
      if (!fresh.length) return
      // The ledger knows a payment by its session: the payment may have been made by the shopper's own checkout.
      const sessionOf = (refund: RefundRow) => refund.payment?.payment_session_id as string
      const paid = await ledger.listSwapShifts({ kind: "payment", payment_session_id: [...new Set(fresh.map(sessionOf))] })
      const paymentRow = new Map(paid.map((row) => [row.payment_session_id, row]))
      for (const refund of fresh) {
        const of = paymentRow.get(sessionOf(refund))
        const amount = toDecimalString((refund.raw_amount ?? refund.amount) as never)
        if (of) {
          if (await recordRefund(ledger, { refund_id: refund.id, amount, payment_id: refund.payment_id, of })) recorded.push(refund.id)
          continue
        }
        // Medusa says it was refunded, and no refund shift can pay it: listed for the merchant to pay back by other
        // means. Only by the tick, after its discovery of payments the ledger missed (an admin's refund is read at
        // once, maybe before), so that a payment merely late to the ledger is refunded through a shift.
        if (input.payment_id) continue
        const owed = {
          refund_id: refund.id,
          amount,
          payment_id: refund.payment_id,
          provider_id: refund.payment!.provider_id,
          currency_code: refund.payment!.currency_code,
          order_id: await orderOfCollection(container, refund.payment!.payment_collection_id),
        }
        if (await recordUnknownPaymentRefund(ledger, owed)) {
          recorded.push(refund.id)
          container
            .resolve(ContainerRegistrationKeys.LOGGER)
            .error(`crypto-swap: refund ${refund.id} of payment ${refund.payment_id} has no crypto payment in the ledger to refund from: pay it back by other means`)
        }
      }
    }

    if (input.payment_id) {
      const refunds = (await payments.listRefunds({ payment_id: input.payment_id }, REFUND_FIELDS)) as RefundRow[]
      await record(refunds)
      return new StepResponse<RefundDiscovery>({ recorded, read: refunds.length, refunds_through: null })
    }
    const [lastRun] = await ledger.listSwapReconciliationRuns(
      { refunds_through: { $ne: null } },
      { select: ["refunds_through"], order: { started_at: "DESC" }, take: 1 }
    )
    const { read, through } = await readSinceWatermark({
      watermark: lastRun?.refunds_through ? new Date(lastRun.refunds_through) : null,
      overlapMs: discoveryOverlapMs(providers.values()),
      prefix: "ref",
      readPage: async (id, take) =>
        (await payments.listRefunds({ id } as unknown as FilterableRefundProps, { ...REFUND_FIELDS, take, order: { id: "ASC" } })) as RefundRow[],
      onPage: record,
    })
    return new StepResponse<RefundDiscovery>({ recorded, read, refunds_through: through.toISOString() })
  }
)
