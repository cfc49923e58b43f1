import { createStep, StepResponse } from "@medusajs/framework/workflows-sdk"
import { ContainerRegistrationKeys } from "@medusajs/framework/utils"
import { CRYPTO_SWAP_MODULE, type CryptoSwapModuleService } from "../../modules/crypto-swap"
import { providerRegistry } from "../../lib/provider-registry"
import { toDecimalString } from "../../lib/money"
import { recordRefund } from "./record-refund"

/** Refunds read per pass at most; a longer backlog is worked through over the next ticks. */
const BATCH_SIZE = 1000
/** As for sessions: a refund stamped when its transaction started may commit after a later one. */
const COMMIT_SKEW_MS = 60 * 1000

export type RefundDiscovery = { recorded: string[]; refunds_through: string | null }

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
    const [lastRun] = input.payment_id
      ? []
      : await ledger.listSwapReconciliationRuns({ refunds_through: { $ne: null } }, { select: ["refunds_through"], order: { started_at: "DESC" }, take: 1 })
    const watermark = lastRun?.refunds_through ? new Date(lastRun.refunds_through) : null
    const startedAt = Date.now()
    const { data: refunds } = await container.resolve(ContainerRegistrationKeys.QUERY).graph({
      entity: "refund",
      fields: ["id", "amount", "raw_amount", "payment_id", "created_at", "payment.provider_id", "payment.payment_session_id"],
      filters: input.payment_id ? { payment_id: input.payment_id } : watermark ? { created_at: { $gte: watermark } } : {},
      pagination: { take: BATCH_SIZE, order: { created_at: "ASC" } },
    })
    const through = input.payment_id
      ? null
      : refunds.length === BATCH_SIZE
        ? new Date(refunds[refunds.length - 1].created_at as string | Date)
        : new Date(Math.max(watermark?.getTime() ?? 0, startedAt - COMMIT_SKEW_MS))
    const answer = (recorded: string[]) => new StepResponse<RefundDiscovery>({ recorded, refunds_through: through?.toISOString() ?? null })

    const ours = refunds.filter((refund) => providers.has(refund.payment?.provider_id as string))
    if (!ours.length) return answer([])
    const known = new Set(
      (await ledger.listSwapShifts({ refund_id: ours.map((refund) => refund.id) }, { select: ["refund_id"] })).map((row) => row.refund_id)
    )
    const fresh = ours.filter((refund) => !known.has(refund.id))
    if (!fresh.length) return answer([])
    // The ledger knows a payment by its session: the payment may have been made by the shopper's own checkout.
    const sessionOf = (refund: (typeof fresh)[number]) => refund.payment?.payment_session_id as string
    const payments = await ledger.listSwapShifts({ kind: "payment", payment_session_id: [...new Set(fresh.map(sessionOf))] })
    const paymentRow = new Map(payments.map((row) => [row.payment_session_id, row]))
    const recorded: string[] = []
    for (const refund of fresh) {
      const of = paymentRow.get(sessionOf(refund))
      if (!of) continue
      const amount = toDecimalString((refund.raw_amount ?? refund.amount) as never)
      if (await recordRefund(ledger, { refund_id: refund.id, amount, payment_id: refund.payment_id as string, of })) recorded.push(refund.id)
    }
    return answer(recorded)
  }
)
