import type { MedusaContainer } from "@medusajs/framework/types"
import { CRYPTO_SWAP_MODULE, type CryptoSwapModuleService } from "../modules/crypto-swap"
import type { RegisteredProvider } from "../lib/provider-registry"
import { assertRefundMemoAllowed } from "../lib/refund-destination"
import { toMedusaError } from "../providers/crypto-swap/errors"
import { createRefundShiftsWorkflow } from "./create-refund-shifts"

type RefundRow = Awaited<ReturnType<CryptoSwapModuleService["retrieveSwapShift"]>>

/**
 * A refund waiting for its destination gets one (from the shopper or an admin), and its refund shift
 * is made at once: it pays the shopper's original coin, so the memo rules of that coin apply.
 */
export async function giveRefundAddress(
  scope: MedusaContainer,
  provider: RegisteredProvider,
  row: RefundRow,
  address: string,
  memo?: string
) {
  await assertRefundMemoAllowed(provider, row.settle_coin ?? "", row.settle_network ?? "", memo)
  await scope.resolve<CryptoSwapModuleService>(CRYPTO_SWAP_MODULE).updateSwapShifts({
    id: row.id,
    refund_address: address,
    refund_memo: memo ?? null,
  })
  const { errors } = await createRefundShiftsWorkflow(scope).run({ input: { payment_id: row.payment_id! }, throwOnError: false })
  if (errors?.length) throw toMedusaError(errors[0].error, "creating the refund shift")
}
