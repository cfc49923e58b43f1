import { createStep, StepResponse } from "@medusajs/framework/workflows-sdk"
import { ContainerRegistrationKeys, MedusaError } from "@medusajs/framework/utils"
import type { MedusaContainer } from "@medusajs/framework/types"
import { CRYPTO_SWAP_MODULE, type CryptoSwapModuleService } from "../../modules/crypto-swap"
import { providerById } from "../../lib/provider-registry"
import { assertRefundMemoAllowed } from "../../lib/refund-destination"
import { decideLedgerRow, topUpAmount } from "../../lib/shift/ledger-fields"
import { heldAmount, heldRefundId } from "../../lib/shift/refund-ids"
import { recordRefund } from "./record-refund"
import { markSessionGivenBack } from "./payment-credit"
import { refundInsteadOfOrder } from "./refund-instead-of-order"
import { refuseIfCapturedByMedusa, sessionPayment } from "../actions/session-payment"

type LedgerRow = Awaited<ReturnType<CryptoSwapModuleService["retrieveSwapShift"]>>
type Destination = { address?: string; memo?: string }

/**
 * Gives back one shift's settled money through a refund shift, once (its refund id is the row's). The
 * row is marked first: being given back, this money pays no order whatever arrives later, and a crash
 * before the refund is recorded leaves a mark the retry completes. Answers whether this call recorded it.
 */
export async function refundHeldShift(ledger: CryptoSwapModuleService, row: LedgerRow, amount: string, destination: Destination = {}): Promise<boolean> {
  return recordHeldRefund(ledger, row, (await markHeld(ledger, row, amount)).held, destination)
}

/** Records the refund of a shift's held money (its refund id is the row's); answers whether this call recorded it. */
export function recordHeldRefund(ledger: CryptoSwapModuleService, row: LedgerRow, held: string, destination: Destination = {}): Promise<boolean> {
  return recordRefund(ledger, { refund_id: heldRefundId(row.id), amount: held, payment_id: row.payment_id, of: row, ...destination })
}

/**
 * Marks a shift's settled money as being given back (see refundHeldShift); answers the row as marked and the amount
 * its refund gives back. `pending` (a payment's own mark): kept with where the refund goes until it is recorded, the
 * row due meanwhile, so that a crash in between is finished by its next sync (refund_excess) rather than left
 * unlisted.
 */
async function markHeld(ledger: CryptoSwapModuleService, row: LedgerRow, amount: string, pending?: Destination): Promise<{ marked: LedgerRow; held: string }> {
  const refundId = heldRefundId(row.id)
  // A retry after a crash gives back what the mark says, not what settled since (refunded apart by refund_excess).
  const held = heldAmount(row) ?? amount
  if (row.flags?.held_refund === refundId) return { marked: row, held }
  const flags = {
    ...(row.flags ?? {}),
    held_refund: refundId,
    held_amount: held,
    ...(pending ? { held_pending: { address: pending.address ?? null, memo: pending.memo ?? null } } : {}),
  }
  await ledger.updateSwapShifts({ id: row.id, flags, ...(pending ? { next_sync_at: new Date() } : {}) })
  return { marked: { ...row, flags }, held }
}

/**
 * Records the refunds of a payment marked held: its top-ups' (each from its own deposit), then its own, then clears
 * its pending mark. Safe to run again: what is already recorded is left be. Answers how many this call recorded.
 */
async function recordMarkedRefunds(container: MedusaContainer, row: LedgerRow, held: string, destination: Destination): Promise<number> {
  const ledger = container.resolve<CryptoSwapModuleService>(CRYPTO_SWAP_MODULE)
  const provider = providerById(container.resolve(ContainerRegistrationKeys.CONFIG_MODULE), row.provider_id!)
  let recorded = 0
  // What its top-ups settled goes back too, whatever their status says (a re-swept deposit reads `multiple`):
  // a credited one's counted part, even while a later deposit is on its way (no settled figure then), what it
  // received since being its own excess refund (refund_excess).
  for (const topUp of await ledger.listSwapShifts({ top_up_of: row.id, kind: "top_up" })) {
    const amount = topUpAmount(topUp, provider.options)
    if (amount) recorded += Number(await refundHeldShift(ledger, topUp, amount, destination))
  }
  // The payment's own refund last: until it is recorded, the settings page lists the money to give back, or (its
  // mark pending) its sync finishes the try that failed partway.
  recorded += Number(await recordHeldRefund(ledger, row, held, destination))
  if (row.flags?.held_pending) await ledger.updateSwapShifts({ id: row.id, flags: { ...row.flags, held_pending: null } })
  return recorded
}

/**
 * Held money whose refunds a crash left unrecorded after its mark: a payment's pending mark (`held_pending`), with its
 * top-ups', to where the admin asked; a mark kept without one (a top-up's, or one made before marks were pending)
 * records its own. Answers how many this call recorded.
 */
export async function recordUnrecordedHeldRefunds(container: MedusaContainer, row: LedgerRow): Promise<number> {
  const held = heldAmount(row)
  const to = row.flags?.held_pending as { address?: string | null; memo?: string | null } | null | undefined
  if (!held) return 0
  if (!to) return Number(await recordHeldRefund(container.resolve<CryptoSwapModuleService>(CRYPTO_SWAP_MODULE), row, held))
  return recordMarkedRefunds(container, row, held, { address: to.address ?? undefined, memo: to.memo ?? undefined })
}

/**
 * Money the store received that no Medusa payment captured (paid after the shopper switched coins,
 * settled short of the amount due with its top-ups, settled after the order was canceled, or refunded
 * instead of placing its order) has no Medusa refund to follow: refunded through refund shifts, once per
 * shift, each top-up from its own deposit. Safe to run again: what is already refunded is left be. Answers
 * how many refunds this call recorded.
 */
export async function refundHeldMoney(container: MedusaContainer, row: LedgerRow, destination: Destination = {}): Promise<number> {
  const ledger = container.resolve<CryptoSwapModuleService>(CRYPTO_SWAP_MODULE)
  const provider = providerById(container.resolve(ContainerRegistrationKeys.CONFIG_MODULE), row.provider_id!)
  // Paid into a replaced session's shift, settled short of the amount due, or given back instead of
  // placing its order (before the capture recorded it owed): no order holds it. What settled, read from
  // its deposits when there were several (`multiple`).
  const settled = decideLedgerRow(row, provider.options).settledAmount
  const noOrderHolds = Boolean(settled) && !row.authorized_at && Boolean(row.flags?.paid_without_session || row.flags?.underpaid || row.flags?.refund_instead)
  const amount = row.refund_owed ?? heldAmount(row) ?? (noOrderHolds ? settled : null)
  await assertNotCapturedByMedusa(container, row)
  if (row.kind !== "payment" || row.captured_at || !amount) {
    throw new MedusaError(
      MedusaError.Types.NOT_ALLOWED,
      "Only settled money no order captured can be refunded here; refund a captured payment from its order."
    )
  }
  if (destination.address) {
    await assertRefundMemoAllowed(provider, row.deposit_coin ?? "", row.deposit_network ?? "", destination.memo)
  }
  await markSessionGivenBack(container, row)
  const { marked, held } = await markHeld(ledger, row, amount, destination)
  return recordMarkedRefunds(container, marked, held, destination)
}

/** Held or owed money Medusa captured since (its own payment webhook route, even on a canceled order) is refunded from that payment. */
async function assertNotCapturedByMedusa(container: MedusaContainer, row: LedgerRow) {
  if (row.kind !== "payment" || !row.payment_session_id) return
  refuseIfCapturedByMedusa((await sessionPayment(container, row)).payment)
}

/**
 * An admin's "Refund via shift" of held money: once; answers with the payment's refund. A settled shift
 * whose order could not be placed is first given up on, as "refund instead" does, so its money is held.
 * Asked again, it records what a failed first try left unrecorded, else refuses.
 */
export const refundHeldMoneyStep = createStep(
  "crypto-swap-refund-held-money",
  async (input: { ledger_id: string; actor_id: string; address?: string; memo?: string }, { container }) => {
    const ledger = container.resolve<CryptoSwapModuleService>(CRYPTO_SWAP_MODULE)
    let row = await ledger.retrieveSwapShift(input.ledger_id)
    const [already] = await ledger.listSwapShifts({ refund_id: heldRefundId(row.id) }, { select: ["id", "refund_address", "refund_memo"], take: 1 })
    if (already) {
      // Its refund recorded before a top-up's (an older release's try that failed partway, or refund_excess completing
      // the mark after a crash): the rest is recorded to where that refund sends the money, never elsewhere.
      if (input.address && input.address !== already.refund_address) {
        throw new MedusaError(
          MedusaError.Types.NOT_ALLOWED,
          `This money is already being refunded to ${already.refund_address ?? "an address the shopper is asked for"}: change the address on its refund.`
        )
      }
      const destination = { address: already.refund_address ?? undefined, memo: already.refund_memo ?? undefined }
      if (!(await refundHeldMoney(container, row, destination))) {
        throw new MedusaError(MedusaError.Types.NOT_ALLOWED, "This money is already being refunded.")
      }
      return new StepResponse(already.id)
    }
    const provider = providerById(container.resolve(ContainerRegistrationKeys.CONFIG_MODULE), row.provider_id!)
    if (row.kind === "payment" && row.paid_no_order_since && decideLedgerRow(row, provider.options).settledAmount) {
      // The address and Medusa's side are checked before the order is given up: a refusal changes nothing.
      if (input.address) await assertRefundMemoAllowed(provider, row.deposit_coin ?? "", row.deposit_network ?? "", input.memo)
      await assertNotCapturedByMedusa(container, row)
      await refundInsteadOfOrder(container, row, input.actor_id)
      row = await ledger.retrieveSwapShift(input.ledger_id)
    }
    await refundHeldMoney(container, row, { address: input.address, memo: input.memo })
    const [refund] = await ledger.listSwapShifts({ refund_id: heldRefundId(row.id) }, { select: ["id"], take: 1 })
    // Who gave the money back, in the payment's history (refund instead records its own).
    await ledger.createSwapShiftEvents({
      swap_shift_id: row.id,
      from_status: row.status,
      to_status: row.status,
      source: "admin",
      action: "refunded_via_shift",
      detail: { by: input.actor_id, refund: refund.id },
      occurred_at: new Date(),
    })
    return new StepResponse(refund.id)
  }
)
