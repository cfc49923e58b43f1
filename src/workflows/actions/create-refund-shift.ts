import { ContainerRegistrationKeys } from "@medusajs/framework/utils"
import { CRYPTO_SWAP_MODULE, type CryptoSwapModuleService } from "../../modules/crypto-swap"
import { catalogueFor, clientFor, providerById, type RegisteredProvider } from "../../lib/provider-registry"
import { chooseShiftType, findCoinNetwork, mayHaveActed, type Coin, type CoinPair, type Quote, type Shift } from "../../lib/swap-service"
import { coveringDeposit } from "../../lib/shift/covering-deposit"
import { maxDecimals } from "../../lib/money"
import { coinDecimals } from "../../lib/shift/shift-plan"
import { ledgerFieldsFromShift } from "../../lib/shift/ledger-fields"
import { countedFigures, refundCostToApprove, refundQuoteRequest, refundTarget, type RefundTarget, withTopUps } from "../../lib/shift/refund-quote"
import { heldRefundId, isOrderRefund } from "../../lib/shift/refund-ids"
import { creditedAmount, creditedTopUps } from "../../lib/shift/underpayment"
import { ActionNeedsAdmin, ActionNotYet, type LedgerShift, type ShiftAction } from "./shift-action"

/**
 * A recorded quote this close to its end is not used to make a shift: the shift inherits its deadline, and the
 * merchant needs minutes to send (an expired refund shift is renewed only an hour later). A shift an earlier
 * attempt made from it, its answer lost, is never shown and takes no deposit after its deadline.
 */
const QUOTE_MARGIN_MS = 5 * 60_000

/**
 * Where a deposit the service sends back goes (the row's refund address is the shopper's, never the
 * merchant's): the store's settlement address for the currency while it takes the coin the merchant
 * deposits (the refunded payment's settle coin); once the store settles in another coin, the wallet that
 * payment settled to. Without either it would wait for an address nobody gives.
 */
async function depositReturnWallet(ledger: CryptoSwapModuleService, row: LedgerShift, provider: RegisteredProvider): Promise<{ address: string; memo?: string }> {
  const same = (a: string | null | undefined, b: string | null | undefined) => Boolean(a && b && a.toLowerCase() === b.toLowerCase())
  const settlement = provider.options.settlement[row.currency_code ?? ""]
  if (settlement?.address && same(settlement.coin, row.deposit_coin) && same(settlement.network, row.deposit_network)) {
    return { address: settlement.address, memo: settlement.memo }
  }
  const [refunded] = row.refund_of_shift_id
    ? await ledger.listSwapShifts({ shift_id: row.refund_of_shift_id }, { select: ["settle_address", "settle_memo"], take: 1 })
    : []
  if (refunded?.settle_address) return { address: refunded.settle_address, memo: refunded.settle_memo ?? undefined }
  if (!settlement?.address) throw new Error(`No settlement address is configured for ${row.currency_code}: the refund shift's deposit could not go back to the store`)
  return { address: settlement.address, memo: settlement.memo }
}

/**
 * Makes a refund's shift at a fixed rate, so the merchant is shown the exact amount to send; anything
 * sent wrongly goes back to the merchant's wallet (depositReturnWallet). The quote is recorded before the shift
 * is asked for: when the answer is lost (a timeout, a crash), the next attempt asks again with the same
 * quote and the service answers with the shift it already made, never a second one. A coin the service
 * settles only at a variable rate gets a variable refund shift: a range to send, and no such recovery, so
 * one whose answer was lost is never asked for again unattended (`flags.variable_shift_asked_at`). It
 * keeps what the quote would have fixed (`flags.refund_target`): whatever the merchant sends is judged by it.
 */
export const createRefundShift: ShiftAction = async (container, row) => {
  // Made meanwhile by another attempt, in a process whose lock this one's does not see (Medusa's in-memory locking).
  if (row.shift_id) return { reread: true }
  const provider = providerById(container.resolve(ContainerRegistrationKeys.CONFIG_MODULE), row.provider_id!)
  const ledger = container.resolve<CryptoSwapModuleService>(CRYPTO_SWAP_MODULE)
  const storeWallet = await depositReturnWallet(ledger, row, provider)
  // The service wants to know whom a server's request is for: the shopper the refund goes to.
  const context = { userIp: row.customer_ip ?? undefined }
  const coins = await catalogueFor(provider).get()
  const pair = { depositCoin: row.deposit_coin!, depositNetwork: row.deposit_network!, settleCoin: row.settle_coin!, settleNetwork: row.settle_network! }
  const destination = {
    settleAddress: row.refund_address!,
    settleMemo: row.refund_memo ?? undefined,
    refundAddress: storeWallet.address,
    refundMemo: storeWallet.memo,
    externalId: row.id,
  }
  const variableOnly =
    chooseShiftType(coins, { coin: pair.depositCoin, network: pair.depositNetwork }, { coin: pair.settleCoin, network: pair.settleNetwork }) === "variable"
  let shift: Shift
  let target: RefundTarget | null = null
  let estimate: string | null = null
  if (variableOnly) {
    const askedAt = row.flags?.variable_shift_asked_at
    if (typeof askedAt === "string") await lostVariableShift(ledger, row, askedAt, "no answer was recorded (the process stopped?)")
    target = refundTarget(await refundRequest(container, provider, row, coins))
    // A guide for the merchant, and what the refund's cost is checked by: without it the attempt fails and is retried.
    estimate = await depositEstimate(provider, coins, pair, target)
    await holdCostlyRefund(ledger, provider, row, estimate)
    // Written before asking: a crash before the answer is recorded leaves it, and the next attempt asks an admin.
    const asking = new Date().toISOString()
    if (!(await ledger.claimVariableShiftAsk(row.id, asking))) throw new ActionNotYet("another attempt is asking the service for this refund's shift")
    shift = await clientFor(provider)
      .createVariableShift({ ...pair, ...destination }, context)
      .catch(async (error: unknown) => {
        if (mayHaveActed(error)) await lostVariableShift(ledger, row, asking, (error as Error).message)
        await ledger.updateSwapShifts({ id: row.id, flags: { ...(row.flags ?? {}), variable_shift_asked_at: null } })
        throw error
      })
  } else {
    const recorded = row.refund_quote as Quote | null
    let quote: Quote
    if (recorded && Date.parse(recorded.expiresAt) - QUOTE_MARGIN_MS > Date.now()) quote = recorded
    else {
      const kept = await recordNewQuote(container, provider, row, coins, context, recorded?.id ?? null)
      if (kept.shift_id) return { reread: true }
      quote = kept.quote
    }
    await holdCostlyRefund(ledger, provider, row, quote.depositAmount)
    shift = await clientFor(provider).createFixedShift({ quote, ...destination }, context)
  }
  return {
    ledger: {
      ...ledgerFieldsFromShift(shift, { kind: "refund", refund_address: row.refund_address, refund_memo: row.refund_memo }),
      deposit_estimate: estimate,
      // What an earlier shift's deposits did (renewed, or a new destination) says nothing of this one.
      flags: { address_needed: null, sent_back: null, variable_shift_asked_at: null, refund_target: target, refund_cost_asked: null },
    },
    history: "refund_shift_created",
    reread: false,
  }
}

/**
 * A refund whose shift would ask the store to send more than the refund's value allows (the shopper's coin
 * rose since they paid, and `refundFees: "store"` gives it back in kind) waits for the merchant to approve
 * that cost (`refund_cost_asked`, the approve-refund-cost route): nothing is asked of the service meanwhile.
 */
async function holdCostlyRefund(ledger: CryptoSwapModuleService, provider: RegisteredProvider, row: LedgerShift, deposit: string) {
  const { refundCostLimitPercent: percent, refundCostAllowance: allowance } = provider.options
  const cost = refundCostToApprove(row, deposit, { percent, allowance })
  if (!cost) {
    // An ask an earlier attempt made is over (a cheaper quote): the merchant's lists show what stops it now, if anything.
    if (row.flags?.refund_cost_asked) {
      // Later writes of this attempt build on the row's flags: they must not bring the ask back.
      row.flags = { ...row.flags, refund_cost_asked: null }
      await ledger.updateSwapShifts({ id: row.id, flags: row.flags })
    }
    return
  }
  await ledger.updateSwapShifts({ id: row.id, flags: { ...(row.flags ?? {}), refund_cost_asked: cost } })
  throw new ActionNeedsAdmin(
    `The refund of ${row.amount_due} ${(row.currency_code ?? "").toUpperCase()} would ask you to send ${cost} ${row.deposit_coin} on ${row.deposit_network}, ` +
      `more than ${percent}% and ${allowance} above its value: the refund gives the shopper's ${row.settle_coin} back in kind, with the swap's fees, and at today's price. ` +
      "Approve the cost to make the refund shift, or pay the refund another way and mark it refunded.",
    "refund_cost_asked"
  )
}

/**
 * A variable refund shift was asked for and its answer is lost: the service may have made it, nothing finds it
 * by the store's id, and it would pay the shopper whatever is sent to it for a week (and hold one of the
 * account's few open variable orders). Another is asked for only when an admin retries, after looking.
 */
async function lostVariableShift(ledger: CryptoSwapModuleService, row: LedgerShift, askedAt: string, why: string): Promise<never> {
  // The admin's retry asks anew.
  await ledger.updateSwapShifts({ id: row.id, flags: { ...(row.flags ?? {}), variable_shift_asked_at: null } })
  throw new ActionNeedsAdmin(
    `A variable refund shift was asked for at ${askedAt} and ${why}: the service may have made it (external id ${row.id}). ` +
      "Find it at the service and cancel it, then retry to ask for a new one."
  )
}

/**
 * A new quote for the refund, kept only when no other attempt recorded one since this one read the row
 * (recordRefundQuote): otherwise that one's quote, so that both ask for the same shift.
 */
async function recordNewQuote(
  container: Parameters<ShiftAction>[0],
  provider: RegisteredProvider,
  row: LedgerShift,
  coins: Coin[],
  context: { userIp?: string },
  replacing: string | null
): Promise<{ quote: Quote; shift_id: string | null }> {
  const request = await refundRequest(container, provider, row, coins)
  const quote = await clientFor(provider).createQuote(request, context)
  const kept = await container
    .resolve<CryptoSwapModuleService>(CRYPTO_SWAP_MODULE)
    .recordRefundQuote(row.id, replacing, quote as unknown as Record<string, unknown>)
  if (!kept.refund_quote && !kept.shift_id) throw new ActionNotYet("the refund changed while its quote was asked for")
  return { quote: (kept.refund_quote as unknown as Quote | null) ?? quote, shift_id: kept.shift_id }
}

/** The side of the refund its pricing fixes: what the shopper receives (`store` pays the fees), else what the store sends. */
async function refundRequest(container: Parameters<ShiftAction>[0], provider: RegisteredProvider, row: LedgerShift, coins: Coin[]) {
  const ledger = container.resolve<CryptoSwapModuleService>(CRYPTO_SWAP_MODULE)
  const [paid] = row.refund_of_shift_id ? await ledger.listSwapShifts({ shift_id: row.refund_of_shift_id }) : []
  // The order was paid with top-ups too: its refund is a share of all the shopper deposited, the top-ups
  // it counted whatever their status says since (one paid again reads `multiple`). Money held for no order
  // is refunded shift by shift instead, each from its own deposit.
  const counted = paid?.credit && row.refund_id !== heldRefundId(paid.id) ? creditedTopUps(paid) : []
  const topUps = counted.length ? await ledger.listSwapShifts({ id: counted, kind: "top_up" }) : []
  const shared = topUps.filter((topUp) => !topUp.flags?.held_refund).map((topUp) => countedFigures(topUp, creditedAmount(topUp)))
  const paidInAll = paid ? withTopUps(paid, shared) : undefined
  // Medusa's refund of the order is a share of what the order charged; the ledger's own refunds give back money as it arrived.
  const refunded = paidInAll && row.refund_id && isOrderRefund(row.refund_id) ? { ...paidInAll, charged: paid!.amount_due } : paidInAll
  return refundQuoteRequest(row, refunded, provider.options.refundFees, {
    deposit: decimalsOf(coins, row.deposit_coin, row.deposit_network),
    settle: decimalsOf(coins, row.settle_coin, row.settle_network),
  })
}

function decimalsOf(coins: Coin[], coin: string | null, network: string | null) {
  const found = findCoinNetwork(coins, coin ?? "", network ?? "")
  if (!found) throw new Error(`${coin} on ${network} is not offered by the service now`)
  return coinDecimals(found, network!)
}

/**
 * About what the store sends to a variable refund shift to reach its target: the target itself, or what pays
 * the shopper their share at the pair's rate for that amount, fees and a margin included; never less than the
 * service's smallest deposit, which would sit in review for hours and go back to the store (above the refund's
 * value, that is a cost the merchant approves). Only a guide: the rate is set when the deposit arrives.
 */
async function depositEstimate(provider: RegisteredProvider, coins: Coin[], pair: CoinPair, target: RefundTarget): Promise<string> {
  const from = { coin: pair.depositCoin, network: pair.depositNetwork }
  const to = { coin: pair.settleCoin, network: pair.settleNetwork }
  const client = clientFor(provider)
  if ("deposit_amount" in target) return maxDecimals(target.deposit_amount, (await client.getPair(from, to)).min)
  return (await coveringDeposit(client, from, to, target.settle_amount, decimalsOf(coins, pair.depositCoin, pair.depositNetwork))).deposit
}
