import { lastUpdated, shiftStatus } from "./shift-status"
import type { Deposit, Quote, Shift } from "./state"

// Wire shapes of quotes and shifts (service-behaviour.md, "Fields seen in responses"). Absent optional
// fields are left undefined, which JSON leaves out.

/** Rough time from deposit to settlement the service advertises; the sandbox does not simulate it. */
const AVERAGE_SHIFT_SECONDS = "45.31"

export function quoteView(quote: Quote) {
  return {
    id: quote.id,
    createdAt: quote.createdAt.toISOString(),
    depositCoin: quote.deposit.coin.coin,
    depositNetwork: quote.deposit.network,
    settleCoin: quote.settle.coin.coin,
    settleNetwork: quote.settle.network,
    expiresAt: quote.expiresAt.toISOString(),
    depositAmount: quote.depositAmount,
    settleAmount: quote.settleAmount,
    rate: quote.rate,
    affiliateId: quote.affiliateId,
  }
}

function depositView(deposit: Deposit) {
  return {
    updatedAt: deposit.updatedAt.toISOString(),
    depositHash: deposit.depositHash,
    settleHash: deposit.settleHash,
    depositReceivedAt: deposit.depositReceivedAt.toISOString(),
    depositAmount: deposit.depositAmount,
    settleAmount: deposit.settleAmount,
    rate: deposit.rate,
    status: deposit.status,
    issue: deposit.issue,
  }
}

type DepositWire = ReturnType<typeof depositView>
type DepositFields = Partial<Pick<DepositWire, "depositHash" | "settleHash" | "depositReceivedAt" | "issue" | "depositAmount" | "settleAmount" | "rate">> & {
  deposits?: DepositWire[]
}

/** With one deposit its details sit on the shift; a fixed shift keeps its quoted amounts. */
function singleDepositFields(shift: Shift, deposit: Deposit): DepositFields {
  const { depositHash, settleHash, depositReceivedAt, issue, depositAmount, settleAmount, rate } = depositView(deposit)
  const received = { depositHash, settleHash, depositReceivedAt, issue }
  return shift.type === "fixed" ? received : { ...received, depositAmount, settleAmount, rate }
}

function depositFields(shift: Shift): DepositFields {
  if (shift.deposits.length === 1) {
    return singleDepositFields(shift, shift.deposits[0])
  }
  return shift.deposits.length > 1 ? { deposits: shift.deposits.map(depositView) } : {}
}

export function shiftView(shift: Shift, now: Date) {
  const status = shiftStatus(shift, now)
  return {
    id: shift.id,
    createdAt: shift.createdAt.toISOString(),
    // A waiting shift has not changed since its creation, and the service sends no updatedAt until one has.
    updatedAt: status === "waiting" ? undefined : lastUpdated(shift, now).toISOString(),
    depositCoin: shift.deposit.coin.coin,
    depositNetwork: shift.deposit.network,
    settleCoin: shift.settle.coin.coin,
    settleNetwork: shift.settle.network,
    depositAddress: shift.depositAddress,
    depositMemo: shift.depositMemo,
    settleAddress: shift.settleAddress,
    settleMemo: shift.settleMemo,
    depositMin: shift.depositMin,
    depositMax: shift.depositMax,
    refundAddress: shift.refundAddress,
    refundMemo: shift.refundMemo,
    type: shift.type,
    quoteId: shift.quoteId,
    depositAmount: shift.depositAmount,
    settleAmount: shift.settleAmount,
    rate: shift.rate,
    settleCoinNetworkFee: shift.settleCoinNetworkFee,
    networkFeeUsd: shift.networkFeeUsd,
    expiresAt: shift.expiresAt.toISOString(),
    status,
    averageShiftSeconds: AVERAGE_SHIFT_SECONDS,
    externalId: shift.externalId,
    ...depositFields(shift),
  }
}

export type ShiftView = ReturnType<typeof shiftView>
