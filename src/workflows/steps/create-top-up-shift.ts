import { createStep, StepResponse } from "@medusajs/framework/workflows-sdk"
import { ContainerRegistrationKeys, MedusaError } from "@medusajs/framework/utils"
import { CRYPTO_SWAP_MODULE, type CryptoSwapModuleService } from "../../modules/crypto-swap"
import { catalogueFor, clientFor, providerById } from "../../lib/provider-registry"
import { decideLedgerRow, ledgerFieldsFromShift } from "../../lib/shift/ledger-fields"
import { depositEstimate, openShift } from "../../lib/shift/open-shift"
import { planShift } from "../../lib/shift/shift-plan"
import { paymentClosed, reusableTopUp, stillMissing, topUpClosed, underpaymentUndecided } from "../../lib/shift/underpayment"
import { toMedusaError } from "../../lib/to-medusa-error"
import { shopperError, text, type MessageKey } from "../../lib/i18n"
import { DEPOSIT_CONFIRMED_STATUSES, topUpOnItsWay } from "../../lib/shift/shift-actions"
import { recordNewShift } from "./record-new-shift"
import { assertVariableShiftRoom } from "./variable-pool"

const refused = (key: MessageKey) => shopperError(MedusaError.Types.NOT_ALLOWED, text(key))

/**
 * A second shift for what a short payment still misses: the same coin and network, at a fixed rate where
 * the pair allows, settling to the merchant and linked to the payment in the ledger. A top-up still
 * waiting is given again rather than made twice (run under the payment's lock). `reuse_only`: the request
 * was let through the admission throttle for handing that one back, so none is made for it. Answers with
 * its row id and whether it was made now.
 */
export const createTopUpShiftStep = createStep(
  "crypto-swap-create-top-up-shift",
  async (input: { ledger_id: string; customer_ip?: string; reuse_only?: boolean }, { container }) => {
    const ledger = container.resolve<CryptoSwapModuleService>(CRYPTO_SWAP_MODULE)
    const row = await ledger.retrieveSwapShift(input.ledger_id)
    const provider = providerById(container.resolve(ContainerRegistrationKeys.CONFIG_MODULE), row.provider_id!)
    const decision = decideLedgerRow(row, provider.options)
    const missing = stillMissing(row, decision.settledAmount ?? decision.expectedAmount)
    // Only once the deposit is confirmed: one still pending or in review may yet be sent back.
    const confirmed = DEPOSIT_CONFIRMED_STATUSES.has(decision.effectiveStatus)
    if (row.kind !== "payment" || decision.stage !== "underpaid" || !confirmed || !underpaymentUndecided(row.flags) || paymentClosed(row) || !missing) {
      throw refused("top_up.not_allowed")
    }
    const now = Date.now()
    const topUps = await ledger.listSwapShifts({ top_up_of: row.id, kind: "top_up" }, { order: { created_at: "DESC" } })
    if (topUps.some(topUpOnItsWay)) throw refused("top_up.on_its_way")
    const [latest] = topUps
    if (latest && !topUpClosed(latest) && latest.status !== "waiting") throw refused("top_up.on_its_way")
    const reusable = reusableTopUp(latest, now)
    if (reusable) return new StepResponse({ id: reusable.id, made: false })
    // It ran out meanwhile: a new one is asked for through the throttle.
    if (input.reuse_only) throw refused("top_up.ask_again")

    const settlement = provider.options.settlement[row.currency_code ?? ""]
    const client = clientFor(provider)
    let recorded: { shift: Awaited<ReturnType<typeof openShift>>; estimate?: string; settleAmount: string }
    try {
      const coins = await catalogueFor(provider).get()
      const plan = planShift(
        coins,
        settlement,
        { deposit_coin: row.deposit_coin!, deposit_network: row.deposit_network!, refund_address: row.refund_address ?? undefined, refund_memo: row.refund_memo ?? undefined },
        missing
      )
      if (plan.type === "variable") await assertVariableShiftRoom(container, provider)
      const userIp = input.customer_ip ?? row.customer_ip ?? undefined
      const shift = await openShift(client, plan, settlement, {
        externalId: row.payment_session_id!,
        refundAddress: row.refund_address ?? undefined,
        refundMemo: row.refund_memo ?? undefined,
        userIp,
      })
      const logger = container.resolve(ContainerRegistrationKeys.LOGGER)
      const estimate = await depositEstimate(client, coins, plan, settlement, provider.options.commissionRate, (line) => logger.warn(line))
      recorded = { shift, estimate, settleAmount: plan.settleAmount }
    } catch (error) {
      throw toMedusaError(error, "creating the top-up")
    }
    await recordNewShift(
      ledger,
      {
        ...ledgerFieldsFromShift(recorded.shift),
        kind: "top_up",
        top_up_of: row.id,
        provider_id: row.provider_id,
        payment_session_id: row.payment_session_id,
        payment_collection_id: row.payment_collection_id,
        cart_id: row.cart_id,
        amount_due: recorded.settleAmount,
        currency_code: row.currency_code,
        customer_ip: input.customer_ip ?? row.customer_ip,
        deposit_estimate: recorded.estimate ?? null,
        next_sync_at: new Date(),
      },
      "storefront"
    )
    // The wait for the rest starts again from the top-up (underpayment.waitMinutes).
    await ledger.updateSwapShifts({ id: row.id, flags: { ...(row.flags ?? {}), top_up_at: new Date(now).toISOString() } })
    const [made] = await ledger.listSwapShifts({ shift_id: recorded.shift.id }, { select: ["id"], take: 1 })
    return new StepResponse({ id: made.id, made: true })
  }
)
