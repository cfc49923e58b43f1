import type { Asset } from "./catalogue"

// The sandbox's in-memory records. They hold rich values (assets, dates); the `*-view.ts` files turn
// them into the service's wire shapes.

export type Account = { id: string; secret: string }

export type Quote = {
  id: string
  createdAt: Date
  affiliateId: string
  deposit: Asset
  settle: Asset
  depositAmount: string
  settleAmount: string
  rate: string
  expiresAt: Date
  /** A quote is single-use: the shift made from it, returned as `orderId` to a retried create. */
  shiftId?: string
}

export type DepositStatus = "pending" | "processing" | "review" | "settling" | "settled" | "refund" | "refunding" | "refunded"

export type Deposit = {
  status: DepositStatus
  issue?: string
  depositHash: string
  /** Settlement transaction, or the refund transaction once refunding. */
  settleHash?: string
  depositAmount: string
  settleAmount?: string
  rate?: string
  depositReceivedAt: Date
  updatedAt: Date
  /** The deposit counts towards the order (a fixed shift settles only the first such deposit). */
  matchesOrder: boolean
}

export type ShiftType = "fixed" | "variable"

export type Shift = {
  id: string
  type: ShiftType
  /** The account whose secret created the shift (open-order limit, checkout hooks). */
  accountId: string
  affiliateId: string
  createdAt: Date
  updatedAt: Date
  deposit: Asset
  settle: Asset
  depositAddress: string
  depositMemo?: string
  settleAddress: string
  settleMemo?: string
  refundAddress?: string
  refundMemo?: string
  depositMin: string
  depositMax: string
  /** Fixed shifts: the quote and its exact amounts. A variable shift has no rate until a deposit fixes one. */
  quoteId?: string
  depositAmount?: string
  settleAmount?: string
  rate?: string
  /** Variable shifts: fee estimates shown at creation. */
  settleCoinNetworkFee?: string
  networkFeeUsd?: string
  expiresAt: Date
  cancelledAt?: Date
  externalId?: string
  checkoutId?: string
  deposits: Deposit[]
}

export type Checkout = {
  id: string
  accountId: string
  affiliateId: string
  settle: Asset
  settleAmount: string
  settleAddress: string
  settleMemo?: string
  successUrl: string
  cancelUrl: string
  createdAt: string
  updatedAt: string
  /** Latest first, as `orders` lists them. */
  shiftIds: string[]
}

export type Hook = {
  id: string
  accountId: string
  targetUrl: string
  enabled: boolean
  createdAt: Date
  updatedAt: Date
}

/** One attempt to POST a notification to a hook's target. */
export type NotificationDelivery = {
  id: string
  hookId: string
  targetUrl: string
  body: unknown
  attemptedAt: string
  /** false while the request is in flight. */
  completed: boolean
  responseStatus?: number
  error?: string
}

export class SandboxState {
  readonly accounts = new Map<string, Account>()
  readonly quotes = new Map<string, Quote>()
  readonly shifts = new Map<string, Shift>()
  readonly checkouts = new Map<string, Checkout>()
  readonly hooks = new Map<string, Hook>()
  readonly deliveries: NotificationDelivery[] = []

  /** Everything back to fresh except the accounts, which merchants have configured elsewhere. */
  clearActivity(): void {
    this.quotes.clear()
    this.shifts.clear()
    this.checkouts.clear()
    this.hooks.clear()
    this.deliveries.length = 0
  }

  /** Takes over saved fields by name (the collections are read-only, so their contents are copied in). */
  restore(saved: Record<string, unknown>): void {
    for (const [name, value] of Object.entries(saved)) {
      const target: unknown = this[name as keyof this]
      if (target instanceof Map && value instanceof Map) {
        for (const [key, record] of value) target.set(key, record)
      } else if (Array.isArray(target) && Array.isArray(value)) {
        target.push(...value)
      } else {
        throw new Error(`unexpected state field "${name}"`)
      }
    }
  }
}
