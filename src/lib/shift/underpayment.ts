import { compareDecimals, subtractDecimals } from "../money"

type Flags = Record<string, unknown> | null | undefined

/** An underpayment nobody has decided about yet: not being refunded, held for the merchant, or accepted as paid. */
export function underpaymentUndecided(flags: Flags): boolean {
  return Boolean(flags?.underpaid) && !flags?.held_refund && !flags?.refund_instead && !flags?.underpaid_held && !flags?.accepted_short
}

/**
 * When an undecided underpayment's wait for the rest ends: `waitMinutes` after it was judged short, or
 * after the shopper's last top-up, whichever is later. Null when there is nothing to wait for.
 */
export function underpaymentWindowEnd(flags: Flags, waitMinutes: number): Date | null {
  if (!underpaymentUndecided(flags) || typeof flags?.underpaid_since !== "string") return null
  const topUpAt = typeof flags.top_up_at === "string" ? Date.parse(flags.top_up_at) : 0
  return new Date(Math.max(Date.parse(flags.underpaid_since), topUpAt) + waitMinutes * 60_000)
}

/** What a payment still misses, in the settle coin (the store currency's peg): never negative. */
export function missingAmount(amountDue: string, received: string): string | null {
  return compareDecimals(received, amountDue) < 0 ? subtractDecimals(amountDue, received) : null
}
