import { isValidAddress, isValidMemo } from "./chain-formats"
import { supportsMemo, type Asset } from "./catalogue"
import { badUserInput, validationFailure } from "./service-error"

/**
 * Checks an address (and memo) the service will send to: the settle address on the settle network,
 * the refund address on the deposit network. A memo on a network without memos is the service's 500.
 */
export function assertDestination(asset: Asset, role: "settle" | "refund", address: string, memo?: string): void {
  if (!isValidAddress(asset.network, address)) {
    throw badUserInput(`Invalid address: ${role}Address is not a valid ${asset.network} address`)
  }
  if (memo === undefined) {
    return
  }
  if (!supportsMemo(asset)) {
    throw validationFailure(`Memo is not supported for this ${role === "settle" ? "settle" : "deposit"} coin`)
  }
  if (!isValidMemo(asset.network, memo)) {
    throw badUserInput(`Invalid ${role}Memo for ${asset.network}`)
  }
}
