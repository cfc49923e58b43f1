import { AbstractPaymentProvider, MedusaError, PaymentSessionStatus } from "@medusajs/framework/utils"
import type {
  IEventBusModuleService,
  AuthorizePaymentInput,
  AuthorizePaymentOutput,
  CancelPaymentInput,
  CancelPaymentOutput,
  CapturePaymentInput,
  CapturePaymentOutput,
  DeletePaymentInput,
  DeletePaymentOutput,
  GetPaymentStatusInput,
  GetPaymentStatusOutput,
  InitiatePaymentInput,
  InitiatePaymentOutput,
  Logger,
  ProviderWebhookPayload,
  RefundPaymentInput,
  RefundPaymentOutput,
  RetrievePaymentInput,
  RetrievePaymentOutput,
  UpdatePaymentInput,
  UpdatePaymentOutput,
  WebhookActionResult,
} from "@medusajs/framework/types"
import {
  CoinCatalogue,
  findCoinNetwork,
  SwapServiceClient,
  webhookNotificationSchema,
  type CallLimits,
  type Coin,
  type Shift,
} from "../../lib/swap-service"
import { createSwapClient } from "../../lib/provider-registry"
import { checkoutOrigin, signedRedirect } from "../../lib/checkout-redirect"
import { compareDecimals, toDecimalString } from "../../lib/money"
import { DEPOSIT_SEEN_STATUSES, depositSeenWithoutAsking, depositsKept } from "../../lib/shift/shift-actions"
import { followedShift } from "../../lib/shift/followed-shift"
import { resultWithin } from "../../lib/concurrency"
import { toMedusaError } from "../../lib/to-medusa-error"
import { parseOptions, type CryptoSwapOptions, type CryptoSwapOptionsInput, type Settlement } from "../../lib/options"
import { lacksSettleMemo, planShift, type ShiftPlan } from "../../lib/shift/shift-plan"
import { depositEstimate, openShift } from "../../lib/shift/open-shift"
import type { CryptoSwapSessionData } from "../../lib/shift/session-data"
import { decideStatus, statusPolicy, type StatusDecision } from "../../lib/shift/status-map"
import { syncObservation } from "../../lib/shift/sync-observation"
import { SHIFT_CREATED_EVENT } from "../../lib/shift/plugin-events"
import { waitingMessage } from "../../lib/shift/waiting-message"
import { shopperError, text } from "../../lib/i18n"
import { parseStorefrontInput, storefrontInputSchema, type StorefrontInput } from "../../lib/shift/storefront-input"

type InjectedDependencies = { logger: Logger; event_bus?: IEventBusModuleService }

/**
 * A cart edit waits this long at most for the reads of its payment's shift (a hosted checkout's two among
 * them), each sent once: Medusa holds the cart's lock meanwhile.
 */
const DELETION_READ_MS = 1_500
const DELETION_READ_LIMITS: CallLimits = { timeoutMs: DELETION_READ_MS, maxRetries: 0 }
/**
 * Medusa's built-in `/hooks/payment/...` route takes anything from anyone and hands it here, and
 * verifying a notification reads the service. Within this window a notification already verified
 * gets the same answer without a read, and at most this many are verified: a flood costs a bounded
 * number of reads (the plugin's own token route and the poller stay the sources of truth).
 */
const WEBHOOK_VERIFY_WINDOW_MS = 1000
const WEBHOOK_VERIFICATIONS_PER_WINDOW = 5

/**
 * Medusa payment provider: a payment session becomes a shift in which the merchant fixes what is
 * received (settle coin, address, amount) and the shopper chooses what to pay with.
 * Crypto is pushed money: "capture" confirms a settlement, it never moves funds.
 */
export class CryptoSwapProviderService extends AbstractPaymentProvider<CryptoSwapOptionsInput> {
  static identifier = "crypto-swap"

  protected readonly options_: CryptoSwapOptions
  protected readonly logger_: Logger
  protected readonly client_: SwapServiceClient
  protected readonly catalogue_: CoinCatalogue
  protected readonly eventBus_?: IEventBusModuleService
  private readonly webhookVerifications_ = new Map<string, { at: number; result: Promise<WebhookActionResult> }>()
  /** Settlements already warned about for a missing memo: told once, not on every payment. */
  private readonly untaggedWarned_ = new Set<Settlement>()

  static validateOptions(options: Record<string, unknown>): void {
    parseOptions(options)
  }

  constructor(container: InjectedDependencies, options: CryptoSwapOptionsInput) {
    super(container as unknown as Record<string, unknown>, options)
    this.options_ = parseOptions(options)
    this.logger_ = container.logger
    // The payment module's container holds the event bus; unit tests construct the provider without one.
    this.eventBus_ = container.event_bus
    this.client_ = createSwapClient(this.options_)
    this.catalogue_ = new CoinCatalogue(this.client_, { ttlMs: this.options_.catalogueTtlSeconds * 1000 })
  }

  async initiatePayment({ amount, currency_code, data }: InitiatePaymentInput): Promise<InitiatePaymentOutput> {
    const input = parseStorefrontInput(storefrontInputSchema, data)
    const currency = currency_code.toLowerCase()
    const settlement = this.settlementFor(currency)
    const base = { session_id: input.session_id, amount: toDecimalString(amount), currency_code: currency }
    const sessionData =
      this.options_.mode === "checkout"
        ? await this.initiateCheckout(base, settlement, input)
        : await this.initiateShift(base, settlement, input)
    await this.announceCreated(sessionData)
    return { id: sessionData.shift_id ?? sessionData.checkout_id!, data: sessionData, status: PaymentSessionStatus.PENDING }
  }

  async authorizePayment({ data }: AuthorizePaymentInput): Promise<AuthorizePaymentOutput> {
    this.refuseGivenBack(data)
    const { decision, data: refreshed } = await this.refresh(data, "checking the payment", { fromSync: true })
    // A checkout's page takes another pick after one ran out or was sent back: Medusa would cancel the session on
    // "canceled" (or mark it in error), and the next pick's money would have no payment to go to or no order to
    // place. The ledger ends the payment when the page no longer takes one.
    if (refreshed.mode === "checkout" && (decision.session === PaymentSessionStatus.CANCELED || decision.session === PaymentSessionStatus.ERROR)) {
      throw shopperError(MedusaError.Types.PAYMENT_AUTHORIZATION_ERROR, text("view.next.choose_coin"))
    }
    if (
      decision.session === PaymentSessionStatus.PENDING ||
      decision.session === PaymentSessionStatus.REQUIRES_MORE
    ) {
      // Returned as an authorization error so the storefront gets this message with the cart, not a bare 400.
      throw shopperError(MedusaError.Types.PAYMENT_AUTHORIZATION_ERROR, waitingMessage(refreshed, decision))
    }
    return { status: decision.session, data: refreshed }
  }

  async getPaymentStatus({ data }: GetPaymentStatusInput): Promise<GetPaymentStatusOutput> {
    const { decision, data: refreshed } = await this.refresh(data, "checking the payment")
    return { status: decision.session, data: refreshed }
  }

  async retrievePayment({ data }: RetrievePaymentInput): Promise<RetrievePaymentOutput> {
    const { data: refreshed } = await this.refresh(data, "reading the payment")
    return { data: refreshed }
  }

  async capturePayment({ data }: CapturePaymentInput): Promise<CapturePaymentOutput> {
    const { decision, data: refreshed } = await this.refresh(data, "capturing the payment", { fromSync: true })
    if (decision.session !== PaymentSessionStatus.CAPTURED) {
      throw new MedusaError(
        MedusaError.Types.NOT_ALLOWED,
        `This crypto payment can't be captured yet: the swap is "${decision.effectiveStatus}". ` +
          "Crypto payments are captured automatically once the service reports them settled."
      )
    }
    return { data: refreshed }
  }

  /**
   * Only the plugin's own code updates a session (Medusa core never does): to mirror into its data what
   * the ledger observed. So the data is taken as given, without asking the service.
   */
  async updatePayment({ data, amount, currency_code }: UpdatePaymentInput): Promise<UpdatePaymentOutput> {
    const current = this.sessionData(data)
    if (
      compareDecimals(toDecimalString(amount), current.amount) !== 0 ||
      currency_code.toLowerCase() !== current.currency_code
    ) {
      throw new MedusaError(
        MedusaError.Types.NOT_ALLOWED,
        "The amount of a crypto payment is fixed when it is created; start a new payment for the new amount."
      )
    }
    return { data: current as unknown as Record<string, unknown> }
  }

  /**
   * Refused while a deposit is on its way: deleting would let the cart change under a shopper whose
   * money is already sent, who would then be asked to pay again. The data mirrors only the ledger's last
   * read, so a deposit sent since is asked of the service, once and briefly (as is one the ledger saw as
   * several deposits, which may all be going back): a shopper can still edit the cart or switch methods
   * while the service is down (the ledger follows the shift, and a deposit that reaches it anyway is
   * flagged for the merchant to pay back). Unless that money goes back to the shopper (`given_back`):
   * the cart is theirs again, for a new payment.
   */
  async deletePayment({ data }: DeletePaymentInput): Promise<DeletePaymentOutput> {
    if (!this.hasPayment(data)) return { data }
    const current = this.sessionData(data)
    if (current.given_back) return { data }
    // A deposit the ledger saw is refused without asking, unless several arrived (`multiple`): those may all
    // be going back since. Without an answer, the status the ledger last mirrored decides.
    const seen = DEPOSIT_SEEN_STATUSES.has(current.status)
    const shift = depositSeenWithoutAsking(data) ? undefined : await this.shiftBeforeDeletion(data, current.session_id)
    if (shift ? depositsKept(shift) > 0 : seen) {
      throw new MedusaError(
        MedusaError.Types.NOT_ALLOWED,
        "A crypto deposit for this cart is already on its way; the cart can't be changed until the payment completes."
      )
    }
    return { data: { ...current, cancel_requested_at: current.cancel_requested_at ?? new Date().toISOString() } }
  }

  /** The payment's shift as the service says now; undefined when it can't say within `DELETION_READ_LIMITS`. */
  private async shiftBeforeDeletion(data: Record<string, unknown>, sessionId: string): Promise<Shift | undefined> {
    const unread = (why: string) => {
      this.logger_.info(`crypto-swap: the shift of payment ${sessionId} could not be read before its deletion (${why})`)
      return undefined
    }
    try {
      const read = await resultWithin(this.refresh(data, "changing the cart", { limits: DELETION_READ_LIMITS }), DELETION_READ_MS)
      return read ? read.shift : unread(`no answer within ${DELETION_READ_MS} ms`)
    } catch (error) {
      return unread((error as Error).message)
    }
  }

  /**
   * Never fails on the service's account: Medusa only logs a failed cancel and leaves the payment
   * uncanceled under a canceled order. A deposit on its way can't be stopped (the ledger records the
   * refund owed), so one the data already shows is not read. A shift the service can't be asked about now
   * is left to expire: a deposit that still reaches it is owed back, as its capture finds the payment canceled.
   */
  async cancelPayment({ data }: CancelPaymentInput): Promise<CancelPaymentOutput> {
    if (!this.hasPayment(data)) return { data }
    const current = this.sessionData(data)
    if (DEPOSIT_SEEN_STATUSES.has(current.status)) return { data }
    const read = await this.refresh(data, "canceling the payment").catch((error: Error) => {
      this.logger_.info(`crypto-swap: cancel of a payment recorded without reading its shift (${error.message})`)
      return undefined
    })
    if (!read) return { data: { ...current, cancel_requested_at: current.cancel_requested_at ?? new Date().toISOString() } }
    if (read.shift && DEPOSIT_SEEN_STATUSES.has(read.shift.status)) return { data: read.data }
    return { data: await this.cancelShift(read.data, read.shift) }
  }

  /**
   * Crypto is pushed money: nothing moves here, and nothing is read. Medusa's refund row (its id is
   * `context.idempotency_key`) is what reconciliation turns into one refund in the ledger and a refund
   * shift the store funds; a refund refused here would be deleted by Medusa after reconciliation may
   * already have recorded it. Nothing is kept in the payment's data: Medusa hands concurrent refunds the
   * same stale data, and the last write would lose the others.
   */
  async refundPayment({ amount, data, context }: RefundPaymentInput): Promise<RefundPaymentOutput> {
    const session = this.sessionData(data)
    this.logger_.info(
      `crypto-swap: refund ${context?.idempotency_key ?? ""} of ${toDecimalString(amount)} ${session.currency_code.toUpperCase()} is owed ` +
        `for payment session ${session.session_id}; the merchant funds it through a refund shift.`
    )
    return { data: session }
  }

  async getWebhookActionAndData(payload: ProviderWebhookPayload["payload"]): Promise<WebhookActionResult> {
    const notification = webhookNotificationSchema.safeParse(payload.data)
    if (!notification.success) return { action: "not_supported" }
    const { meta, payload: body } = notification.data
    if (meta.hook.accountId !== this.options_.accountId) return { action: "not_supported" }
    if (this.options_.webhookHookId && meta.hook.id !== this.options_.webhookHookId) return { action: "not_supported" }
    if (!body.checkoutId) return { action: "not_supported" }
    const now = Date.now()
    for (const [key, verification] of this.webhookVerifications_) {
      if (now - verification.at >= WEBHOOK_VERIFY_WINDOW_MS) this.webhookVerifications_.delete(key)
    }
    const key = JSON.stringify([body.checkoutId, body.shiftId])
    const recent = this.webhookVerifications_.get(key)
    if (recent) return recent.result
    if (this.webhookVerifications_.size >= WEBHOOK_VERIFICATIONS_PER_WINDOW) {
      this.logger_.warn("crypto-swap: ignored a webhook: too many to verify at once (reconciliation will catch up)")
      return { action: "not_supported" }
    }
    const result = this.verifyNotification(body.checkoutId, body.shiftId)
    this.webhookVerifications_.set(key, { at: now, result })
    return result
  }

  /**
   * Money the ledger gives back to the shopper is never authorized, whichever route asks: Medusa's own
   * payment webhook route authorizes, captures and completes the cart without the plugin's checks. (A
   * payment authorized before is canceled first, and Medusa captures no canceled payment.)
   */
  private refuseGivenBack(data: Record<string, unknown> | undefined) {
    if (data?.given_back === true) throw shopperError(MedusaError.Types.NOT_ALLOWED, text("store.payment_being_refunded"))
  }

  /** Never fails the payment: a lost announcement is found by reconciliation's discovery. */
  private async announceCreated(data: CryptoSwapSessionData): Promise<void> {
    try {
      await this.eventBus_?.emit({ name: SHIFT_CREATED_EVENT, data: { session_id: data.session_id, data } })
    } catch (error) {
      this.logger_.warn(`crypto-swap: could not announce the new payment ${data.session_id} (${(error as Error).message})`)
    }
  }

  /** The notification is only a hint: everything acted on is read back from the service. */
  private async verifyNotification(checkoutId: string, shiftId: string): Promise<WebhookActionResult> {
    try {
      const checkout = await this.client_.getCheckout(checkoutId)
      const origin = checkoutOrigin(checkout, this.options_)
      // Whichever of the checkout's shifts the notification names, the payment follows the governing one.
      if (!origin || !(checkout.orders ?? []).some((order) => order.id === shiftId)) return { action: "not_supported" }
      const { shift } = await followedShift(checkout, (id) => this.client_.getShift(id))
      if (!shift) return { action: "not_supported" }
      const decision = decideStatus(shift, statusPolicy(this.options_, origin.amount))
      return { action: decision.action, data: { session_id: origin.sessionId, amount: origin.amount } }
    } catch (error) {
      this.logger_.warn(`crypto-swap: ignored a webhook that could not be verified (${(error as Error).message})`)
      return { action: "not_supported" }
    }
  }

  private async initiateShift(
    base: Pick<CryptoSwapSessionData, "session_id" | "amount" | "currency_code">,
    settlement: Settlement,
    input: StorefrontInput
  ): Promise<CryptoSwapSessionData> {
    let plan: ShiftPlan
    let coins: Coin[]
    try {
      coins = await this.catalogue_.get()
      plan = planShift(coins, settlement, input, base.amount)
    } catch (error) {
      throw toMedusaError(error, "loading the coin list")
    }
    this.warnUntagged(coins, settlement)
    try {
      const shift = await openShift(this.client_, plan, settlement, {
        externalId: base.session_id,
        refundAddress: input.refund_address,
        refundMemo: input.refund_memo,
        userIp: input.customer_ip,
      })
      const estimate = await depositEstimate(this.client_, coins, plan, settlement, this.options_.commissionRate, (line) => this.logger_.warn(line))
      return this.withShift({ ...base, ...this.sessionBase(settlement, plan, input), ...(estimate ? { deposit_estimate: estimate } : {}) }, shift)
    } catch (error) {
      throw toMedusaError(error, "creating the crypto payment")
    }
  }

  /**
   * A shift's settle memo is optional (spec 2.3 rule 3), so shift mode keeps working without one; but
   * an exchange's deposit address on such a network needs its tag or the money is lost: said once.
   */
  private warnUntagged(coins: Coin[], settlement: Settlement): void {
    const settleCoin = findCoinNetwork(coins, settlement.coin, settlement.network)
    if (!settleCoin || !lacksSettleMemo(settleCoin, settlement) || this.untaggedWarned_.has(settlement)) return
    this.untaggedWarned_.add(settlement)
    this.logger_.warn(
      `crypto-swap: the settlement settles ${settlement.coin} on ${settlement.network} without a memo; if its address is an exchange's deposit address, set its memo (tag) or the money may be lost`
    )
  }

  private sessionBase(settlement: Settlement, plan: ShiftPlan, input: StorefrontInput) {
    return {
      mode: "shift" as const,
      shift_type: plan.type,
      deposit_coin: plan.depositCoin,
      deposit_network: plan.depositNetwork,
      settle_coin: settlement.coin,
      settle_network: settlement.network,
      settle_amount: plan.settleAmount,
      refund_address: input.refund_address,
      refund_memo: input.refund_memo,
      customer_ip: input.customer_ip,
      status: "waiting",
    }
  }

  private async initiateCheckout(
    base: Pick<CryptoSwapSessionData, "session_id" | "amount" | "currency_code">,
    settlement: Settlement,
    input: StorefrontInput
  ): Promise<CryptoSwapSessionData> {
    const redirects = this.options_.checkout!
    try {
      const settleAmount = planShift(await this.catalogue_.get(), settlement, null, base.amount).settleAmount
      const terms = {
        settleCoin: settlement.coin,
        settleNetwork: settlement.network,
        settleAmount,
        settleAddress: settlement.address,
        settleMemo: settlement.memo,
      }
      const signed = { ...terms, sessionId: base.session_id, amount: base.amount }
      const checkout = await this.client_.createCheckout(
        {
          ...terms,
          successUrl: signedRedirect(redirects.successUrl, this.options_, signed),
          cancelUrl: signedRedirect(redirects.cancelUrl, this.options_, signed),
        },
        { userIp: input.customer_ip }
      )
      return {
        ...base,
        mode: "checkout",
        checkout_id: checkout.id,
        pay_url: this.client_.checkoutPayUrl(checkout.id),
        settle_coin: settlement.coin,
        settle_network: settlement.network,
        settle_amount: settleAmount,
        customer_ip: input.customer_ip,
        status: "waiting",
      }
    } catch (error) {
      throw toMedusaError(error, "creating the hosted checkout")
    }
  }

  /**
   * Reads the shift (and, in checkout mode, the checkout) behind a session and folds it into the data.
   * `fromSync`: when called within the plugin's own sync of this payment, the shift that sync observed
   * moments ago under the shift's lock stands in for the read (src/lib/shift/sync-observation.ts).
   */
  private async refresh(
    raw: Record<string, unknown> | undefined,
    doing: string,
    { fromSync = false, limits }: { fromSync?: boolean; limits?: CallLimits } = {}
  ): Promise<{ shift?: Shift; decision: StatusDecision; data: CryptoSwapSessionData }> {
    const data = this.sessionData(raw)
    const observed = fromSync ? syncObservation(data) : undefined
    if (observed) return this.folded(data, observed)
    try {
      // The checkout names the shift that governs the payment, as it does for the ledger's sync.
      const shift =
        data.mode === "checkout" && data.checkout_id
          ? (await followedShift(await this.client_.getCheckout(data.checkout_id, limits), (id) => this.client_.getShift(id, limits), data.shift_id)).shift
          : data.shift_id
            ? await this.client_.getShift(data.shift_id, limits)
            : null
      if (!shift) {
        return { decision: decideStatus({ status: data.status }, statusPolicy(this.options_, data.amount, data.credit)), data }
      }
      return this.folded(data, shift)
    } catch (error) {
      throw toMedusaError(error, doing)
    }
  }

  private folded(data: CryptoSwapSessionData, shift: Shift): { shift: Shift; decision: StatusDecision; data: CryptoSwapSessionData } {
    return { shift, decision: decideStatus(shift, statusPolicy(this.options_, data.amount, data.credit)), data: this.withShift(data, shift) }
  }

  /**
   * Copies what the shopper must see from a shift; `depositAddress` is kept once known (the service recycles it).
   * Nothing the data held about another shift (a hosted checkout's payer switched coins) carries over.
   */
  private withShift(data: CryptoSwapSessionData, shift: Shift): CryptoSwapSessionData {
    const variable = shift.type === "variable"
    const known: Partial<CryptoSwapSessionData> = data.shift_id && data.shift_id !== shift.id ? {} : data
    return {
      ...data,
      shift_id: shift.id,
      shift_type: (shift.type as "fixed" | "variable" | undefined) ?? known.shift_type,
      quote_id: shift.quoteId ?? known.quote_id,
      deposit_coin: shift.depositCoin ?? known.deposit_coin,
      deposit_network: shift.depositNetwork ?? known.deposit_network,
      deposit_address: known.deposit_address ?? shift.depositAddress ?? undefined,
      deposit_memo: known.deposit_memo ?? shift.depositMemo ?? undefined,
      deposit_amount: variable ? shift.depositAmount ?? undefined : shift.depositAmount ?? known.deposit_amount,
      deposit_min: variable ? shift.depositMin ?? known.deposit_min : undefined,
      deposit_max: variable ? shift.depositMax ?? known.deposit_max : undefined,
      settle_amount: variable ? data.settle_amount : shift.settleAmount ?? data.settle_amount,
      rate: shift.rate ?? known.rate,
      expires_at: shift.expiresAt ?? known.expires_at,
      status: shift.status,
      issue: shift.issue ?? undefined,
      deposit_hash: shift.depositHash ?? known.deposit_hash,
      settle_hash: shift.settleHash ?? known.settle_hash,
      refund_address: shift.refundAddress ?? known.refund_address,
      refund_memo: shift.refundMemo ?? known.refund_memo,
    }
  }

  private async cancelShift(data: CryptoSwapSessionData, shift?: Shift): Promise<CryptoSwapSessionData> {
    if (!shift || shift.status !== "waiting") return data
    try {
      await this.client_.cancelOrder(shift.id)
      return { ...data, status: "expired", canceled_at: new Date().toISOString() }
    } catch (error) {
      // The service refuses cancel-order for the first minutes of a shift (and may be down): the request
      // is recorded, and reconciliation cancels the shift once its session is gone and the service allows it.
      this.logger_.info(`crypto-swap: cancel of an unpaid shift deferred (${(error as Error).message})`)
      return { ...data, cancel_requested_at: data.cancel_requested_at ?? new Date().toISOString() }
    }
  }

  private settlementFor(currency: string): Settlement {
    const settlement = this.options_.settlement[currency]
    if (!settlement) {
      throw shopperError(MedusaError.Types.INVALID_DATA, text("store.currency_no_wallet", { currency: currency.toUpperCase() }))
    }
    return settlement
  }

  private hasPayment(data: Record<string, unknown> | undefined): data is Record<string, unknown> {
    return Boolean(data?.shift_id || data?.checkout_id)
  }

  private sessionData(data: Record<string, unknown> | undefined): CryptoSwapSessionData {
    if (!data || typeof data.session_id !== "string" || typeof data.amount !== "string") {
      throw new MedusaError(MedusaError.Types.INVALID_DATA, "This payment session holds no crypto payment.")
    }
    return data as unknown as CryptoSwapSessionData
  }
}

export default CryptoSwapProviderService
