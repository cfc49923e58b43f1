import { newAccountId, newAccountSecret } from "./ids"
import { badUserInput, notFound, unauthorized } from "./service-error"
import type { Account, SandboxState } from "./state"

/** Placeholders from the documentation's examples: the real service answers them with 401. */
const EXAMPLE_SECRETS = new Set(["<PRIVATE_KEY>", "YOUR_PRIVATE_KEY", "your-private-key"])

export function createAccount(state: SandboxState, account: Account = { id: newAccountId(), secret: newAccountSecret() }): Account {
  state.accounts.set(account.id, account)
  return account
}

/**
 * The account a secret header belongs to. Missing or unusable (the documentation's example) -> 401
 * naming the header, as the service words it; well-formed but unknown -> 404 "Account not found".
 */
export function accountForSecret(state: SandboxState, secret: string | undefined, headerName: string): Account {
  if (!secret) {
    throw unauthorized(`Missing ${headerName} header`)
  }
  if (EXAMPLE_SECRETS.has(secret)) {
    throw unauthorized(`Invalid ${headerName} header`)
  }
  const account = [...state.accounts.values()].find((candidate) => candidate.secret === secret)
  if (!account) {
    throw notFound("Account not found")
  }
  return account
}

/** Commission goes to `affiliateId`, so it must name an existing account. */
export function assertAffiliate(state: SandboxState, affiliateId: string): void {
  if (!state.accounts.has(affiliateId)) {
    throw badUserInput("Invalid affiliateId")
  }
}
