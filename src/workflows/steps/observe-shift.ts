import { createStep, StepResponse } from "@medusajs/framework/workflows-sdk"
import { ContainerRegistrationKeys } from "@medusajs/framework/utils"
import { CRYPTO_SWAP_MODULE, type CryptoSwapModuleService } from "../../modules/crypto-swap"
import { clientFor, providerById } from "../../lib/provider-registry"
import type { Shift } from "../../lib/swap-service"
import { followedShift } from "../../lib/shift/followed-shift"
import { isFresh, type ObservedShift } from "../../lib/shift/sync-observation"

export type ShiftObservation = {
  row: Awaited<ReturnType<CryptoSwapModuleService["retrieveSwapShift"]>>
  shift: Shift | null
  /** When `shift` was read (ISO time, before the request went out). */
  observed_at?: string
  /** A hosted checkout's shifts other than `shift` that the service has seen a deposit for. */
  other_paid_shift_ids?: string[]
  /** Why the service could not be read; the sync records it and backs off. */
  error?: string
  /** Read by another sync since this one was asked for: nothing new to learn. */
  fresh?: boolean
}

/**
 * Reads the shift behind a ledger row from the service, unless `observed` (what the reconciliation tick
 * read of it) stands in for the read. In checkout mode the checkout is read first, every time: the payer
 * may have made another shift since, and the checkout says which one governs the payment.
 */
export const observeShiftStep = createStep(
  "crypto-swap-observe-shift",
  async (input: { ledger_id: string; fresh_since?: string; observed?: ObservedShift }, { container }): Promise<StepResponse<ShiftObservation>> => {
    const ledger = container.resolve<CryptoSwapModuleService>(CRYPTO_SWAP_MODULE)
    const row = await ledger.retrieveSwapShift(input.ledger_id)
    if (input.fresh_since && row.last_synced_at && new Date(row.last_synced_at) >= new Date(input.fresh_since)) {
      return new StepResponse({ row, shift: null, fresh: true })
    }
    // Read before this sync took the lock, so taken only when no sync has recorded anything since: it is
    // then the newest word on the shift and can never set the ledger back to an older status.
    const { observed } = input
    const tickRead =
      observed &&
      observed.shift.id === row.shift_id &&
      isFresh(observed) &&
      !(row.last_synced_at && new Date(row.last_synced_at) >= new Date(observed.observed_at))
        ? observed
        : undefined
    if (tickRead && !row.checkout_id) return new StepResponse({ row, shift: tickRead.shift, observed_at: tickRead.observed_at })
    const configModule = container.resolve(ContainerRegistrationKeys.CONFIG_MODULE)
    const observed_at = new Date().toISOString()
    try {
      const client = clientFor(providerById(configModule, row.provider_id!))
      if (!row.checkout_id) return new StepResponse({ row, shift: row.shift_id ? await client.getShift(row.shift_id) : null, observed_at })
      // A checkout's payer may have switched to another shift, which only the checkout says; the tick's
      // read of a shift still stands in for reading that one again.
      const followed = await followedShift(
        await client.getCheckout(row.checkout_id),
        (shiftId) => (tickRead && shiftId === tickRead.shift.id ? Promise.resolve(tickRead.shift) : client.getShift(shiftId)),
        row.shift_id
      )
      return new StepResponse({
        row,
        shift: followed.shift,
        observed_at: tickRead && followed.shift === tickRead.shift ? tickRead.observed_at : observed_at,
        other_paid_shift_ids: followed.otherPaidShiftIds,
      })
    } catch (error) {
      return new StepResponse({ row, shift: null, error: (error as Error).message })
    }
  }
)
