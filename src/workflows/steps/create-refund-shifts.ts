import { createStep, StepResponse } from "@medusajs/framework/workflows-sdk"
import { ContainerRegistrationKeys, Modules } from "@medusajs/framework/utils"
import { CRYPTO_SWAP_MODULE, type CryptoSwapModuleService } from "../../modules/crypto-swap"
import { clientFor, providerRegistry } from "../../lib/provider-registry"
import { ledgerFieldsFromShift } from "../../lib/ledger-fields"
import type { CryptoSwapSessionData, RefundRecord } from "../../providers/crypto-swap/session-data"
import { recordNewShift } from "./discover-shifts"

/**
 * Turns the refunds a crypto payment owes into refund shifts: the merchant deposits the settle coin,
 * the service pays the shopper's original coin to their refund address. Variable rate, so the merchant
 * has days to fund it; anything sent wrongly goes back to the merchant's settlement address. A refund
 * without an address waits in the ledger as "address_needed" until the shopper or an admin gives one.
 * Runs under a lock per payment; a refund's ledger row (unique by refund id) is made once.
 */
export const createRefundShiftsStep = createStep(
  "crypto-swap-create-refund-shifts",
  async (input: { payment_id: string }, { container }) => {
    const paymentModule = container.resolve(Modules.PAYMENT)
    const ledger = container.resolve<CryptoSwapModuleService>(CRYPTO_SWAP_MODULE)
    const registry = providerRegistry(container.resolve(ContainerRegistrationKeys.CONFIG_MODULE))
    const [payment] = await paymentModule.listPayments({ id: input.payment_id }, { select: ["id", "provider_id", "data"] })
    const provider = payment && registry.get(payment.provider_id)
    if (!provider) return new StepResponse([] as string[])

    const data = payment.data as unknown as CryptoSwapSessionData
    const settlement = provider.options.settlement[data.currency_code]
    const made: string[] = []
    for (const refund of data.refunds ?? []) {
      const [existing] = await ledger.listSwapShifts({ refund_id: refund.id }, { take: 1 })
      const row = existing ?? (await createRefundRow(ledger, payment.id, provider.providerId, data, refund))
      if (row.shift_id || (!refund.refund_address && !row.refund_address)) continue
      const address = refund.refund_address ?? row.refund_address!
      const memo = refund.refund_memo ?? row.refund_memo ?? undefined
      const shift = await clientFor(provider).createVariableShift(
        {
          depositCoin: data.settle_coin,
          depositNetwork: data.settle_network,
          settleCoin: refund.refund_coin,
          settleNetwork: refund.refund_network,
          settleAddress: address,
          settleMemo: memo,
          refundAddress: settlement?.address,
          refundMemo: settlement?.memo,
          externalId: refund.id,
        },
        { userIp: data.customer_ip }
      )
      // The ledger's refund_address of a refund shift is the shopper's: where the refund goes.
      await ledger.updateSwapShifts({
        id: row.id,
        ...ledgerFieldsFromShift(shift),
        refund_address: address,
        refund_memo: memo ?? null,
        flags: { address_needed: null },
        next_sync_at: new Date(),
      })
      made.push(shift.id)
    }
    return new StepResponse(made)
  }
)

async function createRefundRow(
  ledger: CryptoSwapModuleService,
  paymentId: string,
  providerId: string,
  data: CryptoSwapSessionData,
  refund: RefundRecord
) {
  await recordNewShift(
    ledger,
    {
      kind: "refund",
      refund_id: refund.id,
      type: "variable",
      provider_id: providerId,
      payment_id: paymentId,
      refund_of_shift_id: data.shift_id ?? null,
      deposit_coin: data.settle_coin,
      deposit_network: data.settle_network,
      settle_coin: refund.refund_coin,
      settle_network: refund.refund_network,
      refund_address: refund.refund_address ?? null,
      refund_memo: refund.refund_memo ?? null,
      amount_due: refund.settle_coin_amount,
      currency_code: data.currency_code,
      status: "address_needed",
      flags: { address_needed: true },
    } as never,
    "create"
  )
  const [row] = await ledger.listSwapShifts({ refund_id: refund.id }, { take: 1 })
  return row
}
