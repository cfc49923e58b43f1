import { compareDecimals } from "../money"
import type { CryptoSwapSessionData } from "./session-data"
import type { StorefrontChoice } from "./storefront-input"

/** A waiting shift this close to its end is not given again: the shopper could not pay it in time. */
export const REUSE_MARGIN_MS = 2 * 60_000

type SessionLike = { id: string; provider_id: string; status: string; data: Record<string, unknown> | null }

const same = (a: string | undefined, b: string | undefined) => (a ?? "").toLowerCase() === (b ?? "").toLowerCase()

/**
 * A payment session of the collection whose shift pays what the shopper asks for now (same provider,
 * coin, network, refund address and amount) and still waits for its deposit with time to pay: asking
 * again gets that one back, without a new quote and shift at the service. Anything that matters changed,
 * and a new one is made.
 */
export function reusableSession<T extends SessionLike>(
  sessions: T[],
  providerId: string,
  choice: StorefrontChoice,
  amount: string,
  now = Date.now()
): T | undefined {
  return sessions.find((session) => {
    const data = (session.data ?? {}) as Partial<CryptoSwapSessionData>
    return (
      session.provider_id === providerId &&
      session.status === "pending" &&
      data.mode === "shift" &&
      data.status === "waiting" &&
      !data.cancel_requested_at &&
      !data.canceled_at &&
      Boolean(data.shift_id) &&
      same(data.deposit_coin, choice.deposit_coin) &&
      same(data.deposit_network, choice.deposit_network) &&
      (data.refund_address ?? "") === (choice.refund_address ?? "") &&
      (data.refund_memo ?? "") === (choice.refund_memo ?? "") &&
      typeof data.amount === "string" &&
      compareDecimals(data.amount, amount) === 0 &&
      Boolean(data.expires_at) &&
      Date.parse(data.expires_at!) - now > REUSE_MARGIN_MS
    )
  })
}
