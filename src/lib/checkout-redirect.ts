import { createHmac } from "node:crypto"
import type { Checkout } from "./swap-service"
import { toDecimalString } from "./money"
import { tokenMatches } from "./webhook-token"

const SESSION_PARAM = "crypto_swap_session"
const AMOUNT_PARAM = "crypto_swap_amount"
const SIGNATURE_PARAM = "crypto_swap_sig"

type Signer = { accountId: string; privateKey: string }

/** What a store's checkout pays: the payment session and its amount, and where and how much it settles. */
export type CheckoutTerms = Pick<Checkout, "settleCoin" | "settleNetwork" | "settleAmount" | "settleAddress" | "settleMemo"> & {
  sessionId: string
  amount: string
}

/** Keyed by the private key, so only the store signs; it reveals nothing of the key. */
function signature({ accountId, privateKey }: Signer, terms: CheckoutTerms): string {
  const signed = [
    "crypto-swap-checkout",
    accountId,
    terms.sessionId,
    toDecimalString(terms.amount),
    terms.settleCoin.toLowerCase(),
    terms.settleNetwork.toLowerCase(),
    // As the service writes it back (it may add trailing zeros).
    toDecimalString(terms.settleAmount),
    terms.settleAddress,
    terms.settleMemo ?? "",
  ]
  return createHmac("sha256", privateKey).update(JSON.stringify(signed)).digest("base64url")
}

/** The store's redirect URL, naming the session the checkout pays with the store's signature over its terms. */
export function signedRedirect(url: string, signer: Signer, terms: CheckoutTerms): string {
  const tagged = new URL(url)
  tagged.searchParams.set(SESSION_PARAM, terms.sessionId)
  tagged.searchParams.set(AMOUNT_PARAM, terms.amount)
  tagged.searchParams.set(SIGNATURE_PARAM, signature(signer, terms))
  return tagged.toString()
}

/**
 * The session and amount a checkout pays, only when the store made it: anyone can make a checkout settling to
 * the store's wallet (it is public) with any redirect, so what proves the origin is the store's signature over the
 * session, the amount and the checkout's settlement.
 */
export function checkoutOrigin(checkout: Checkout, signer: Signer): { sessionId: string; amount: string } | undefined {
  let url: URL
  try {
    url = new URL(checkout.successUrl)
  } catch {
    return undefined
  }
  const sessionId = url.searchParams.get(SESSION_PARAM)
  const amount = url.searchParams.get(AMOUNT_PARAM)
  const signed = url.searchParams.get(SIGNATURE_PARAM)
  if (!sessionId || !amount || !signed) return undefined
  try {
    return tokenMatches(signed, signature(signer, { ...checkout, sessionId, amount })) ? { sessionId, amount } : undefined
  } catch {
    // An amount that is no number was never signed.
    return undefined
  }
}
