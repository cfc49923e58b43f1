import { parseOptions } from "../../options"
import { decideLedgerRow, decideShift } from "../ledger-fields"
import { planRefundShift } from "../shift-actions"
import { nextSyncAt } from "../sync-cadence"
import { refundReachedShopper, refundReceipt } from "../refund-ids"
import { countedFigures, refundCostToApprove, refundQuoteRequest, withTopUps } from "../refund-quote"

const options = parseOptions({
  baseUrl: "https://swap.example",
  graphqlUrl: "https://swap.example/graphql",
  payUrl: "https://pay.swap.example",
  accountId: "acct",
  privateKey: "secret-key-0123456789",
  settlement: { usd: { coin: "USDC", network: "ethereum", address: "0x1111111111111111111111111111111111111111" } },
})

describe("refund shifts", () => {
  it("read a settled refund shift as the shopper refunded, whatever the coin amount against the amount owed", () => {
    // 20 USD owed, paid out as a little BTC: as a payment this would be far "underpaid".
    const refund = { kind: "refund" as const, amount_due: "20" }
    expect(decideShift({ status: "settled", type: "variable", settleAmount: "0.0002" }, refund, options).stage).toBe("refunded")
    expect(decideShift({ status: "settled", type: "variable", settleAmount: "0.0002" }, { kind: "payment", amount_due: "20" }, options).stage).toBe("underpaid")
    expect(decideShift({ status: "waiting" }, refund, options).stage).toBe("awaiting_deposit")
    expect(
      decideLedgerRow({ ...refund, status: "settled", type: "variable", settle_amount: "0.0002", deposits: null }, options).stage
    ).toBe("refunded")
  })

  it("read a refund shift whose deposit the service sends back as a refund still owed, never as the shopper refunded", () => {
    const refund = { kind: "refund" as const, amount_due: "20" }
    for (const status of ["refund", "refunding", "refunded"]) {
      expect(decideShift({ status, type: "fixed" }, refund, options).stage).toBe("refund")
    }
    const sentBack = [{ status: "refunded", depositHash: "0xa" }, { status: "refunded", depositHash: "0xb" }]
    expect(decideShift({ status: "multiple", type: "fixed", deposits: sentBack }, refund, options).stage).toBe("refund")
    // A payment's deposit the service sent back is the shopper's money home again.
    expect(decideShift({ status: "refunded", type: "fixed" }, { kind: "payment", amount_due: "20" }, options).stage).toBe("refunded")
  })

  it("read a variable-rate refund shift that paid less than its target as still owed, until all its deposits reach it", () => {
    // The store pays the fees: the shopper is owed 0.0003 BTC; the merchant's deposit bought 0.0002.
    const store = { kind: "refund" as const, amount_due: "20", flags: { refund_target: { settle_amount: "0.0003" } } }
    const short = decideShift({ status: "settled", type: "variable", depositAmount: "13.5", settleAmount: "0.0002" }, store, options)
    expect(short).toMatchObject({ stage: "underpaid", refundShort: "0.0001" })
    const rest = { status: "multiple", type: "variable", deposits: [
      { status: "settled", depositHash: "0xa", settleHash: "s1", depositAmount: "13.5", settleAmount: "0.0002" },
      { status: "processing", depositHash: "0xb", depositAmount: "7" },
    ] }
    // The rest on its way: in flight, not yet refunded nor judged.
    expect(decideShift(rest, store, options).stage).toBe("deposit_confirmed")
    rest.deposits[1] = { ...rest.deposits[1], status: "settled", settleHash: "s2", settleAmount: "0.0001" } as (typeof rest.deposits)[0]
    expect(decideShift(rest, store, options)).toMatchObject({ stage: "refunded", settledAmount: "0.0003" })
    expect(decideShift(rest, store, options).refundShort).toBeUndefined()

    // The shopper pays the fees: the store owes 20 of its own coin, whatever the shopper's coin came to.
    const shopper = { kind: "refund" as const, amount_due: "20", flags: { refund_target: { deposit_amount: "20" } } }
    expect(decideShift({ status: "settled", type: "variable", depositAmount: "15", settleAmount: "0.0002" }, shopper, options).refundShort).toBe("5")
    expect(decideShift({ status: "settled", type: "variable", depositAmount: "20", settleAmount: "0.0002" }, shopper, options).stage).toBe("refunded")
    expect(decideShift({ ...rest, deposits: rest.deposits.map((deposit) => ({ ...deposit, depositAmount: "10" })) }, shopper, options).stage).toBe("refunded")
    // A figure the service leaves out is never taken for zero: unjudged, the merchant is not told to pay it all again.
    const unpriced = { ...rest, deposits: [rest.deposits[0], { ...rest.deposits[1], settleAmount: undefined }] }
    expect(decideShift(unpriced, store, options).stage).toBe("unknown")
  })

  it("count as reached the shopper only once judged paid in full, or paid by other means, whatever the service's status", () => {
    expect(refundReachedShopper({ status: "settled", flags: { refunded: true } })).toBe(true)
    expect(refundReachedShopper({ status: "multiple", flags: { refunded: true } })).toBe(true)
    expect(refundReachedShopper({ status: "paid_manually", flags: null })).toBe(true)
    // Several deposits on their way, or all sent back to the merchant: not yet, or not at all.
    expect(refundReachedShopper({ status: "multiple", flags: null })).toBe(false)
    expect(refundReachedShopper({ status: "settled", flags: { refund_short: "0.0001" } })).toBe(false)
  })

  it("show the shopper the transaction that paid them, never the store's deposit the service sent back", () => {
    const paid = { status: "settled", flags: { refunded: true }, settle_hash: "0xpaid", settle_network: "bitcoin" }
    const paidByOtherMeans = { status: "paid_manually", flags: { sent_back: null }, settle_hash: "0xback", settle_network: "bitcoin" }
    expect(refundReceipt([paid])).toEqual({ settle_hash: "0xpaid", settle_network: "bitcoin" })
    // Sent back to the store, then paid by other means: its hash is the store's own money going home.
    expect(refundReceipt([paidByOtherMeans])).toEqual({ settle_hash: null, settle_network: null })
    // The payment's refund paid on chain, its top-up's by other means after: the one on chain is shown.
    expect(refundReceipt([paid, paidByOtherMeans])).toEqual({ settle_hash: "0xpaid", settle_network: "bitcoin" })
    // Paid short, then the rest to the same shift: `multiple`, whose hashes are its deposits'.
    const finished = {
      status: "multiple",
      flags: { refunded: true },
      settle_hash: null,
      settle_network: "bitcoin",
      deposits: [
        { status: "settled", settleHash: "0xfirst" },
        { status: "settled", settleHash: "0xrest" },
      ],
    }
    expect(refundReceipt([finished])).toEqual({ settle_hash: "0xrest", settle_network: "bitcoin" })
  })

  it("are made once their destination is known, and only then", () => {
    expect(planRefundShift({ status: "creating", refund_address: "bc1q", flags: null }).createRefundShift).toBe(true)
    expect(planRefundShift({ status: "address_needed", refund_address: null, flags: { address_needed: true } }).createRefundShift).toBe(false)
    expect(planRefundShift({ status: "paid_manually", refund_address: "bc1q", flags: null }).createRefundShift).toBe(false)
  })

  it("without a destination, ask the shopper for it once", () => {
    const asking = planRefundShift({ status: "address_needed", refund_address: null, flags: { address_needed: true } })
    expect(asking).toMatchObject({ events: ["crypto-swap.shift.refund_address_needed"], flags: { address_needed: true, address_asked: true } })
    expect(planRefundShift({ status: "address_needed", refund_address: null, flags: asking.flags }).events).toEqual([])
    expect(planRefundShift({ status: "creating", refund_address: "bc1q", flags: null }).events).toEqual([])
  })

  it("without a destination, have nothing to read until one is given", () => {
    const cadence = options.reconcile
    const at = new Date("2026-11-29T08:00:00Z")
    expect(nextSyncAt({ kind: "refund", status: "address_needed", terminal: false, actionPending: false, failures: 0 }, cadence, at)).toBeNull()
    expect(nextSyncAt({ kind: "refund", status: "creating", terminal: false, actionPending: false, failures: 0 }, cadence, at)).not.toBeNull()
  })

  describe("are priced by a quote that fixes one side exactly", () => {
    const refund = { amount_due: "20", deposit_coin: "USDC", deposit_network: "ethereum", settle_coin: "BTC", settle_network: "bitcoin" }
    const pair = { depositCoin: "USDC", depositNetwork: "ethereum", settleCoin: "BTC", settleNetwork: "bitcoin" }
    const paid = { deposit_amount: "0.00080791", settle_amount: "49.99" }
    const decimals = { deposit: 6, settle: 8 }

    it("the store paying the fees: the shopper gets the refunded share of their deposit, rounded up", () => {
      // 0.00080791 x 20 / 49.99 = 0.000323228...: never less for the shopper.
      expect(refundQuoteRequest(refund, paid, "store", decimals)).toEqual({ ...pair, settleAmount: "0.00032323" })
      expect(refundQuoteRequest({ ...refund, amount_due: "49.99" }, paid, "store", decimals)).toEqual({ ...pair, settleAmount: "0.00080791" })
      // Never more than was deposited, whatever the amount asked.
      expect(refundQuoteRequest({ ...refund, amount_due: "60" }, paid, "store", decimals)).toEqual({ ...pair, settleAmount: "0.00080791" })
    })

    it("ask the merchant to approve a deposit beyond the refund's value and the store's limits, once for that cost or less", () => {
      const limit = { percent: "10", allowance: "0" }
      // 20 USD refunded in USDC: up to 10% above (22) is made at once.
      expect(refundCostToApprove({ amount_due: "20" }, "21.5", limit)).toBeNull()
      expect(refundCostToApprove({ amount_due: "20" }, "22", limit)).toBeNull()
      expect(refundCostToApprove({ amount_due: "20" }, "22.000001", limit)).toBe("22.000001")
      // The allowance covers what the percent does not (a network fee on a small refund): the larger of the two counts.
      expect(refundCostToApprove({ amount_due: "2" }, "11.5", { percent: "10", allowance: "10" })).toBeNull()
      expect(refundCostToApprove({ amount_due: "2" }, "12.5", { percent: "10", allowance: "10" })).toBe("12.5")
      expect(refundCostToApprove({ amount_due: "200" }, "219", { percent: "10", allowance: "10" })).toBeNull()
      // Approved at 30: a cheaper price later passes, and one up to 1% dearer (a variable refund's estimate moves); more asks again.
      const approved = { amount_due: "20", flags: { refund_cost_approved: "30" } }
      expect(refundCostToApprove(approved, "29", limit)).toBeNull()
      expect(refundCostToApprove(approved, "30.3", limit)).toBeNull()
      expect(refundCostToApprove(approved, "30.31", limit)).toBe("30.31")
    })

    it("of an order paid with top-ups: a share of everything the shopper deposited, never more", () => {
      // 25 settled from 0.0004 BTC, the rest (24.99) from a top-up of 0.00041 BTC.
      const paidInAll = withTopUps({ deposit_amount: "0.0004", settle_amount: "25" }, [{ deposit_amount: "0.00041", settle_amount: "24.99" }])
      expect(paidInAll).toEqual({ deposit_amount: "0.00081", settle_amount: "49.99" })
      expect(refundQuoteRequest({ ...refund, amount_due: "49.99" }, paidInAll, "store", decimals)).toEqual({ ...pair, settleAmount: "0.00081" })
      // A top-up whose figures are unknown is not guessed at: the refund can't be priced yet.
      const unknown = withTopUps(paid, [{ deposit_amount: null, settle_amount: "10" }])
      expect(() => refundQuoteRequest(refund, unknown, "store", decimals)).toThrow("deposit is not known")
    })

    it("of a shift paid more than once (`multiple`): a share of its settled deposits, a re-swept one counted once", () => {
      const deposit = (hash: string, settleHash: string, depositAmount: string, settleAmount: string, status = "settled") => ({ status, depositHash: hash, settleHash, depositAmount, settleAmount })
      const paidTwice = {
        status: "multiple",
        deposit_amount: null,
        settle_amount: null,
        deposits: [deposit("0xa", "0x1", "0.0004", "25"), deposit("0xb", "0x2", "0.0002", "12.5"), deposit("0xb", "0x2", "0.0002", "12.5"), deposit("0xc", "0x3", "0.1", "1", "refund")],
      }
      expect(withTopUps(paidTwice, [])).toEqual({ deposit_amount: "0.0006", settle_amount: "37.5" })
      // A top-up paid again counts its deposits too.
      expect(withTopUps({ deposit_amount: "0.0004", settle_amount: "25" }, [paidTwice])).toEqual({ deposit_amount: "0.001", settle_amount: "62.5" })
      // One still on its way is not shared yet; a settled one without its figures is not guessed at.
      expect(withTopUps({ ...paidTwice, deposits: [deposit("0xa", "0x1", "0.0004", "25"), { status: "processing", depositHash: "0xd" }] }, [])).toEqual({ deposit_amount: "0.0004", settle_amount: "25" })
      expect(withTopUps({ ...paidTwice, deposits: [deposit("0xa", "0x1", "0.0004", "25"), { status: "settled", depositHash: "0xd", settleHash: "0x4" }] }, [])).toBeUndefined()
    })

    it("of an order that charged more than arrived (a shortfall accepted): shares of the charge, never more than paid in all", () => {
      // 100 charged, 90 settled from 0.001 BTC: refunds of 60 and then 40 give back the whole deposit, no more.
      const short = { deposit_amount: "0.001", settle_amount: "90", charged: "100" }
      const first = refundQuoteRequest({ ...refund, amount_due: "60" }, short, "store", decimals)
      const second = refundQuoteRequest({ ...refund, amount_due: "40" }, short, "store", decimals)
      expect([first.settleAmount, second.settleAmount]).toEqual(["0.0006", "0.0004"])
      // The shopper paying the fees: the value that arrived, in the settlement coin.
      expect(refundQuoteRequest({ ...refund, amount_due: "60" }, short, "shopper", decimals)).toEqual({ ...pair, depositAmount: "54" })
      // Paid in full: a share of what settled, as before.
      expect(refundQuoteRequest({ ...refund, amount_due: "45" }, { ...short, charged: "90" }, "store", decimals).settleAmount).toBe("0.0005")
    })

    it("of an order whose top-up was paid again after its credit: shares only what the order counted", () => {
      // 100 charged: 75 paid (0.00075 BTC), a top-up credited 20 (0.0002 BTC), 5 short accepted; then 3 more
      // sent to the top-up (0.00003 BTC), refunded apart.
      const topUpPaidAgain = {
        status: "multiple",
        deposit_amount: null,
        settle_amount: null,
        deposits: [
          { status: "settled", depositHash: "0xa", settleHash: "0x1", depositAmount: "0.0002", settleAmount: "20" },
          { status: "settled", depositHash: "0xb", settleHash: "0x2", depositAmount: "0.00003", settleAmount: "3" },
        ],
      }
      const counted = countedFigures(topUpPaidAgain, "20")
      expect(counted).toEqual({ deposit_amount: "0.0002", settle_amount: "20" })
      const paidInAll = { ...withTopUps({ deposit_amount: "0.00075", settle_amount: "75" }, [counted])!, charged: "100" }
      // Refunded in full: what the order was paid (0.00095 BTC), not the later 0.00003 again.
      expect(refundQuoteRequest({ ...refund, amount_due: "100" }, paidInAll, "store", decimals).settleAmount).toBe("0.00095")
      expect(refundQuoteRequest({ ...refund, amount_due: "100" }, paidInAll, "shopper", decimals).depositAmount).toBe("95")
    })

    it("the shopper paying them: the store deposits the refunded value in its settlement coin", () => {
      expect(refundQuoteRequest(refund, paid, "shopper", decimals)).toEqual({ ...pair, depositAmount: "20" })
      expect(refundQuoteRequest({ ...refund, amount_due: "20.1234567" }, undefined, "shopper", decimals)).toEqual({ ...pair, depositAmount: "20.123457" })
    })

    it("refuse to guess when the refunded payment's deposit is unknown", () => {
      expect(() => refundQuoteRequest(refund, undefined, "store", decimals)).toThrow("deposit is not known")
      expect(() => refundQuoteRequest(refund, { deposit_amount: "0.1", settle_amount: "0" }, "store", decimals)).toThrow("deposit is not known")
      expect(() => refundQuoteRequest({ ...refund, amount_due: null }, paid, "shopper", decimals)).toThrow("no amount")
    })
  })
})
