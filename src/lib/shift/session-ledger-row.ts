import type { MedusaContainer } from "@medusajs/framework/types"
import { CRYPTO_SWAP_MODULE, type CryptoSwapModuleService } from "../../modules/crypto-swap"

type SessionWithData = { data?: Record<string, unknown> | null }

/** Which ledger row a session's data names: its hosted checkout's or its shift's. */
export function sessionLedgerFilter(session: SessionWithData) {
  const data = (session.data ?? {}) as { shift_id?: string; checkout_id?: string }
  return data.checkout_id ? { checkout_id: data.checkout_id } : data.shift_id ? { shift_id: data.shift_id } : null
}

/** The session's ledger row where the ledger knows it already; nothing is recorded or refused. */
export async function knownLedgerRow(scope: MedusaContainer, session: SessionWithData) {
  const filter = sessionLedgerFilter(session)
  if (!filter) return undefined
  const [known] = await scope.resolve<CryptoSwapModuleService>(CRYPTO_SWAP_MODULE).listSwapShifts(filter, { take: 1 })
  return known
}
