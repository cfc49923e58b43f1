import { createStep, StepResponse } from "@medusajs/framework/workflows-sdk"
import { ContainerRegistrationKeys, MedusaError } from "@medusajs/framework/utils"
import { CRYPTO_SWAP_MODULE, type CryptoSwapModuleService } from "../../modules/crypto-swap"
import { clientFor, providerById } from "../../lib/provider-registry"
import { assertRefundMemoAllowed } from "../../lib/refund-destination"
import { ledgerFieldsFromShift } from "../../lib/shift/ledger-fields"
import { toMedusaError } from "../../lib/to-medusa-error"
import { shopperError, text } from "../../lib/i18n"

export type PassRefundAddressInput = {
  ledger_id: string
  address: string
  memo?: string
  /** A shopper may only answer a refund that waits for an address; an admin may also give one ahead. */
  source: "storefront" | "admin"
}

/**
 * Where the shopper's money goes back. For a refund the store owes whose shift waits for it: recorded,
 * and the sync that follows makes the shift (it pays the shopper's original coin, whose memo rules
 * apply). For a payment's deposit: a shopper's is given to the service at once, only while the shift
 * waits in its refund status (its refusal, e.g. an invalid address, is the shopper's answer and records
 * nothing); an admin's is kept in the ledger for the sync to pass on when the service asks.
 */
export const passRefundAddressStep = createStep(
  "crypto-swap-pass-refund-address",
  async (input: PassRefundAddressInput, { container }) => {
    const ledger = container.resolve<CryptoSwapModuleService>(CRYPTO_SWAP_MODULE)
    const row = await ledger.retrieveSwapShift(input.ledger_id)
    if (row.terminal) throw shopperError(MedusaError.Types.NOT_ALLOWED, text("refund.shift_over", { status: row.status }))
    const provider = providerById(container.resolve(ContainerRegistrationKeys.CONFIG_MODULE), row.provider_id!)
    if (row.kind === "refund") {
      // A destination the service refused (the shift could not be made) may be corrected; once made, it stays.
      const correcting = row.status === "creating" && !row.shift_id && input.source === "admin"
      if (row.status !== "address_needed" && !correcting) {
        throw shopperError(MedusaError.Types.NOT_ALLOWED, text("refund.destination_set"))
      }
      await assertRefundMemoAllowed(provider, row.settle_coin ?? "", row.settle_network ?? "", input.memo)
      const now = new Date()
      const destination = {
        id: row.id,
        refund_address: input.address,
        refund_memo: input.memo ?? null,
        status: "creating",
        // Kept: a variable refund shift asked for and never answered (`variable_shift_asked_at`) may exist.
        flags: { ...(row.flags ?? {}), address_needed: null },
        next_sync_at: now,
      }
      // A quote an earlier attempt may have turned into a shift to the old address is not used again.
      if (correcting) await ledger.restartRefundShift({ ...destination, refund_quote: null }, null)
      else {
        await ledger.updateSwapShifts(destination)
        await ledger.createSwapShiftEvents({ swap_shift_id: row.id, from_status: row.status, to_status: "creating", source: input.source, occurred_at: now })
      }
      // Remembered on the money refunded when it knew none (held money's payment page asks for it there).
      const [refunded] = row.refund_of_shift_id ? await ledger.listSwapShifts({ shift_id: row.refund_of_shift_id, refund_address: null }, { select: ["id"], take: 1 }) : []
      if (refunded) await ledger.updateSwapShifts({ id: refunded.id, refund_address: input.address, refund_memo: input.memo ?? null })
      return new StepResponse(row.id)
    }
    if (input.source === "admin") {
      // Kept for the sync that follows, which passes it on while the service waits for it: the admin's
      // answer holds the address whatever the service says then (a refusal waits in the action's record).
      if ((row.snapshot as { refundAddress?: string } | null)?.refundAddress) {
        throw shopperError(MedusaError.Types.NOT_ALLOWED, text("refund.address_set"))
      }
      await assertRefundMemoAllowed(provider, row.deposit_coin ?? "", row.deposit_network ?? "", input.memo)
      await ledger.updateSwapShifts({ id: row.id, refund_address: input.address, refund_memo: input.memo ?? null })
      return new StepResponse(row.id)
    }
    const client = clientFor(provider)
    try {
      const shift = row.shift_id ? await client.getShift(row.shift_id) : undefined
      // `multiple`: a later deposit of a fixed shift ("max 1 deposit") waits for its refund on its own.
      const awaitingRefund =
        shift?.status === "refund" ||
        (shift?.status === "multiple" && (shift.deposits ?? []).some((deposit) => deposit.status === "refund"))
      if (shift?.refundAddress) {
        throw shopperError(MedusaError.Types.NOT_ALLOWED, text("refund.address_set"))
      }
      if (!shift || !awaitingRefund) {
        throw shopperError(MedusaError.Types.NOT_ALLOWED, text("refund.not_waiting"))
      }
      await assertRefundMemoAllowed(provider, shift.depositCoin ?? row.deposit_coin ?? "", shift.depositNetwork ?? row.deposit_network ?? "", input.memo)
      const updated = await client.setRefundAddress(shift.id, { address: input.address, memo: input.memo })
      await ledger.updateSwapShifts({ id: row.id, ...ledgerFieldsFromShift(updated, row), refund_address: input.address, refund_memo: input.memo ?? null })
      // Given by the shopper: a sync's own attempt at it (backing off, or waiting for attention) is settled too.
      const [pending] = await ledger.listSwapShiftActions({ swap_shift_id: row.id, kind: "set_refund_address", state: ["pending", "attention"] })
      if (pending) {
        await ledger.updateSwapShiftActions({ id: pending.id, state: "done", done_at: new Date(), next_attempt_at: null, last_error: null, outcome: input.source })
      }
      return new StepResponse(row.id)
    } catch (error) {
      throw toMedusaError(error, "setting the refund address")
    }
  }
)
