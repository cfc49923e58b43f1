import { createStep, StepResponse } from "@medusajs/framework/workflows-sdk"
import { ContainerRegistrationKeys, MedusaError } from "@medusajs/framework/utils"
import { CRYPTO_SWAP_MODULE, type CryptoSwapModuleService } from "../../modules/crypto-swap"
import { clientFor, providerById } from "../../lib/provider-registry"
import { depositsKept } from "../../lib/shift/shift-actions"
import { decideShift } from "../../lib/shift/ledger-fields"
import { assertNotRefundableAgain, assertRefundShiftUnfunded, assertShortRefundShiftClosed } from "./refund-shift-state"

/**
 * The manual refund mode: the merchant paid the shopper back by other means. Refused once the merchant's
 * deposit reached the refund shift (asked of the service, not the last sync: the shopper would be paid
 * twice), unless it paid short and can take no more; an unfunded one is canceled once the service allows.
 * A refund whose shift could not be made (still `creating`, e.g. refused by the service, or `payment_unknown`:
 * the ledger never knew its payment) can be closed this way too.
 */
export const markRefundPaidManuallyStep = createStep(
  "crypto-swap-mark-refund-paid-manually",
  async (input: { ledger_id: string; actor_id: string; note?: string }, { container }) => {
    const ledger = container.resolve<CryptoSwapModuleService>(CRYPTO_SWAP_MODULE)
    const row = await ledger.retrieveSwapShift(input.ledger_id)
    if (row.kind !== "refund") throw new MedusaError(MedusaError.Types.NOT_ALLOWED, "Only a refund can be marked as paid by other means.")
    // `refunded` (or `multiple`, every deposit of it): the service sent the merchant's deposit back, so the
    // refund shift holds nothing, as the service is asked below. One paid short (a variable rate) holds
    // what the shopper got: the rest is paid by other means.
    const short = Boolean(row.flags?.refund_short)
    if (!short && !["payment_unknown", "address_needed", "creating", "waiting", "expired", "refunded", "multiple"].includes(row.status)) {
      throw new MedusaError(MedusaError.Types.NOT_ALLOWED, `This refund is already "${row.status}" at the service; it can't be marked paid by hand.`)
    }
    let depositsAtMark = 0
    if (row.shift_id) {
      const provider = providerById(container.resolve(ContainerRegistrationKeys.CONFIG_MODULE), row.provider_id!)
      const client = clientFor(provider)
      if (short) {
        const shift = await assertShortRefundShiftClosed(client, row.shift_id, "checking the refund shift")
        // Judged again from what the service says now: the rest may have settled since the last sync.
        const { stage } = decideShift(shift, row, provider.options)
        if (stage === "refunded") {
          throw new MedusaError(MedusaError.Types.NOT_ALLOWED, "The refund shift has reached the shopper in full since it was last read: sync it instead.")
        }
        if (stage !== "underpaid") throw new MedusaError(MedusaError.Types.NOT_ALLOWED, `The refund shift can't be judged yet ("${shift.status}"): sync it later.`)
        depositsAtMark = depositsKept(shift)
      } else {
        // Unfunded, it is canceled at the service by the sync that follows (a durable action: the service
        // refuses a cancel in a shift's first minutes).
        assertNotRefundableAgain(await assertRefundShiftUnfunded(client, row.shift_id, "checking the refund shift"))
      }
    }
    const paidManually = { by: input.actor_id, note: input.note ?? null }
    await ledger.closeRefund(
      {
        id: row.id,
        status: "paid_manually",
        terminal: true,
        // An open shift is still read (a transfer to it may be on its way: the shopper paid twice); none, never.
        next_sync_at: row.shift_id ? new Date() : null,
        flags: { ...(row.flags ?? {}), address_needed: null, refund_short: null, sent_back: null, paid_manually: { ...paidManually, deposits_kept: depositsAtMark } },
      },
      {
        swap_shift_id: row.id,
        from_status: row.status,
        to_status: "paid_manually",
        source: "admin",
        action: "marked_refunded",
        detail: paidManually,
        occurred_at: new Date(),
      },
      "paid_manually"
    )
    return new StepResponse(row.id)
  }
)
