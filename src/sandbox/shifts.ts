import { assertAffiliate } from "./accounts"
import { newDepositAddress, newDepositMemo } from "./chain-formats"
import { assertPairAvailable, findAsset, supportsMemo, type Asset } from "./catalogue"
import { addSeconds } from "./clock"
import type { SandboxCore } from "./core"
import { assertDestination } from "./destinations"
import { newShiftId } from "./ids"
import { depositLimits, settleNetworkFee } from "./pricing"
import type { FixedShiftRequest, RefundAddressRequest, VariableShiftRequest } from "./request-schemas"
import { badUserInput, forbidden, notFound } from "./service-error"
import { isOpen, shiftStatus } from "./shift-status"
import type { Account, Shift } from "./state"

export const VARIABLE_SHIFT_LIFETIME_SECONDS = 7 * 24 * 60 * 60

type Destination = Pick<FixedShiftRequest, "affiliateId" | "settleAddress" | "settleMemo" | "refundAddress" | "refundMemo" | "externalId">
type Terms = Pick<Shift, "type" | "depositMin" | "depositMax" | "expiresAt"> &
  Partial<Pick<Shift, "quoteId" | "depositAmount" | "settleAmount" | "rate" | "settleCoinNetworkFee" | "networkFeeUsd">>

/** Opens a shift at `now`, the instant its terms were reckoned from (a variable shift's validity runs from it). */
function openShift(core: SandboxCore, account: Account, deposit: Asset, settle: Asset, destination: Destination, terms: Terms, now: Date): Shift {
  assertDestination(settle, "settle", destination.settleAddress, destination.settleMemo)
  if (destination.refundAddress !== undefined) {
    assertDestination(deposit, "refund", destination.refundAddress, destination.refundMemo)
  }
  const shift: Shift = {
    id: newShiftId(),
    accountId: account.id,
    affiliateId: destination.affiliateId,
    createdAt: now,
    updatedAt: now,
    deposit,
    settle,
    depositAddress: newDepositAddress(deposit.network),
    depositMemo: supportsMemo(deposit) ? newDepositMemo() : undefined,
    settleAddress: destination.settleAddress,
    settleMemo: destination.settleMemo,
    refundAddress: destination.refundAddress,
    refundMemo: destination.refundAddress === undefined ? undefined : destination.refundMemo,
    externalId: destination.externalId,
    deposits: [],
    ...terms,
  }
  core.state.shifts.set(shift.id, shift)
  return shift
}

/** A fixed shift from a quote: single-use, same affiliate, before the quote expires; it keeps the quote's expiresAt. */
export function createFixedShift(core: SandboxCore, account: Account, request: FixedShiftRequest): Shift {
  const quote = core.state.quotes.get(request.quoteId)
  if (!quote) {
    throw badUserInput("Quote not found")
  }
  if (quote.affiliateId !== request.affiliateId) {
    throw badUserInput("affiliateId must be the affiliateId the quote was requested with")
  }
  if (quote.shiftId) {
    // Lets a retried create recover the shift it already made.
    throw badUserInput("Quote has already been accepted", { orderId: quote.shiftId })
  }
  const now = core.clock.now()
  if (now >= quote.expiresAt) {
    throw badUserInput("Quote has already expired. Request a new quote.")
  }
  const shift = openShift(core, account, quote.deposit, quote.settle, request, {
    type: "fixed",
    quoteId: quote.id,
    depositAmount: quote.depositAmount,
    settleAmount: quote.settleAmount,
    depositMin: quote.depositAmount,
    depositMax: quote.depositAmount,
    rate: quote.rate,
    expiresAt: quote.expiresAt,
  }, now)
  quote.shiftId = shift.id
  return shift
}

function openVariableShiftCount(core: SandboxCore, account: Account): number {
  const now = core.clock.now()
  return [...core.state.shifts.values()].filter((shift) => shift.type === "variable" && shift.accountId === account.id && isOpen(shift, now)).length
}

/** A variable shift: any deposit within the range, swapped at the rate of its arrival (so no rate before), valid 7 days. */
export function createVariableShift(core: SandboxCore, account: Account, request: VariableShiftRequest): Shift {
  assertAffiliate(core.state, request.affiliateId)
  const deposit = findAsset(request.depositCoin, request.depositNetwork, "deposit")
  const settle = findAsset(request.settleCoin, request.settleNetwork, "settle")
  assertPairAvailable(deposit, settle, "variable")
  if (openVariableShiftCount(core, account) >= core.settings.maxOpenVariableShifts) {
    throw forbidden("too many open orders")
  }
  const limits = depositLimits(deposit, settle)
  const now = core.clock.now()
  return openShift(core, account, deposit, settle, request, {
    type: "variable",
    depositMin: limits.min,
    depositMax: limits.max,
    settleCoinNetworkFee: settleNetworkFee(settle),
    networkFeeUsd: settle.networkData.feeUsd,
    expiresAt: addSeconds(now, VARIABLE_SHIFT_LIFETIME_SECONDS),
  }, now)
}

export function findShift(core: SandboxCore, id: string): Shift {
  const shift = core.state.shifts.get(id)
  if (!shift) {
    throw notFound("Order not found")
  }
  return shift
}

/** A shift an account acts on: another account's is answered like one that does not exist. */
export function findOwnShift(core: SandboxCore, accountId: string, id: string): Shift {
  const shift = findShift(core, id)
  if (shift.accountId !== accountId) {
    throw notFound("Order not found")
  }
  return shift
}

/** Only while a deposit awaits its refund, and only once: the address cannot be overwritten. */
export function setRefundAddress(core: SandboxCore, id: string, request: RefundAddressRequest): Shift {
  const shift = findShift(core, id)
  const awaitingRefund = shift.deposits.filter((deposit) => deposit.status === "refund")
  if (awaitingRefund.length === 0) {
    throw badUserInput(`A refund address can only be set while the shift status is refund (it is ${shiftStatus(shift, core.clock.now())})`)
  }
  if (shift.refundAddress) {
    throw badUserInput("A refund address is already set and cannot be changed")
  }
  assertDestination(shift.deposit, "refund", request.address, request.memo)
  shift.refundAddress = request.address
  shift.refundMemo = request.memo
  shift.updatedAt = core.clock.now()
  for (const deposit of awaitingRefund) {
    core.lifecycle.announce(shift, deposit)
  }
  return shift
}

/** "5 minutes", as the service words its cancel delay; a delay configured in odd seconds stays in seconds. */
function delayInWords(seconds: number): string {
  const [amount, unit] = seconds % 60 === 0 ? [seconds / 60, "minute"] : [seconds, "second"]
  return `${amount} ${unit}${amount === 1 ? "" : "s"}`
}

/** cancel-order: expires a waiting shift, but only once `cancelAfterSeconds` have passed since its creation. */
export function cancelOrder(core: SandboxCore, id: string): void {
  const shift = findShift(core, id)
  const now = core.clock.now()
  const status = shiftStatus(shift, now)
  if (status === "expired") {
    throw badUserInput("Order already expired")
  }
  if (status !== "waiting") {
    throw badUserInput(`Only a waiting order can be cancelled (it is ${status})`)
  }
  if (now < addSeconds(shift.createdAt, core.settings.cancelAfterSeconds)) {
    throw badUserInput(`Orders can only be cancelled after ${delayInWords(core.settings.cancelAfterSeconds)}.`)
  }
  core.lifecycle.expire(shift)
}
