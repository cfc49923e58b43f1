import type { MedusaNextFunction, MedusaRequest, MedusaResponse } from "@medusajs/framework/http"
import { prepareRetrieveQuery } from "@medusajs/framework/http"
import { ContainerRegistrationKeys, MedusaError, PaymentSessionStatus } from "@medusajs/framework/utils"
import { refetchCart } from "@medusajs/medusa/api/store/carts/helpers"
import { defaultStoreCartFields } from "@medusajs/medusa/api/store/carts/query-config"
import { providerRegistry } from "../../lib/provider-registry"
import { waitingMessage } from "../../lib/shift/waiting-message"
import { english, shopperError, text } from "../../lib/i18n"
import { givenBackToShopper } from "../../lib/shift/shift-actions"
import { checkoutPickExpired } from "../../lib/shift/sync-cadence"
import { sayTo } from "../shopper-language"
import { currentPayment } from "../store/crypto-swap/shopper-session"
import { knownLedgerRow } from "../../lib/shift/session-ledger-row"
import { refuseShortOfCartTotal } from "../../lib/shift/cart-total"
import { checkCartCompletableWorkflow } from "../../workflows/check-cart-completable"

const CART_ID = /^cart_[0-9A-Z]{26}$/
const NOT_YET = new Set<string>([PaymentSessionStatus.PENDING, PaymentSessionStatus.REQUIRES_MORE])

/**
 * A cart completed while its crypto payment still waits (the deposit not sent or not yet confirmed) is
 * answered as Medusa answers a payment that is not authorized yet: the cart, with the reason. It is
 * answered here, from a fresh read of the shift and after Medusa's own checks of the cart, because
 * Medusa's completion logs every refused authorization as an error, and waiting is the expected state of a
 * crypto payment, not an error. Any other case (no crypto session, a payment that can be authorized now or
 * could not be read, a cart Medusa refuses for another reason, an unknown cart) goes on to Medusa's route.
 * A payment whose money goes back to the shopper is refused here, whatever its session's state, and one for
 * less than the cart's total now (refuseShortOfCartTotal).
 */
export async function answerWaitingCompletion(req: MedusaRequest, res: MedusaResponse, next: MedusaNextFunction) {
  const cartId = req.params.id
  if (typeof cartId !== "string" || !CART_ID.test(cartId)) return next()
  try {
    const {
      data: [cart],
    } = await req.scope.resolve(ContainerRegistrationKeys.QUERY).graph({
      entity: "cart",
      fields: [
        "completed_at",
        "total",
        "currency_code",
        "payment_collection.payment_sessions.id",
        "payment_collection.payment_sessions.provider_id",
        "payment_collection.payment_sessions.status",
        "payment_collection.payment_sessions.amount",
        "payment_collection.payment_sessions.currency_code",
        "payment_collection.payment_sessions.data",
        "payment_collection.payment_sessions.payment_collection_id",
      ],
      filters: { id: cartId },
    })
    const sessions = cart?.completed_at ? [] : cart?.payment_collection?.payment_sessions ?? []
    const registry = providerRegistry(req.scope.resolve(ContainerRegistrationKeys.CONFIG_MODULE))
    const session = sessions.length === 1 ? sessions[0] : undefined
    const provider = session ? registry.get(session.provider_id) : undefined
    if (!session || !provider) return next()
    // Money on its way back to the shopper must not also buy the order (a restock after "Refund via shift").
    const recorded = await knownLedgerRow(req.scope, session)
    if (recorded && givenBackToShopper(recorded)) throw shopperError(MedusaError.Types.NOT_ALLOWED, text("store.payment_being_refunded"))
    // Told before the shopper pays a shift for less than the cart now costs, not after.
    refuseShortOfCartTotal(session.amount, cart)
    // With `before_payment` the order is placed at once: Medusa's completion never refuses it.
    if (session.status !== PaymentSessionStatus.PENDING || provider.options.placeOrder === "before_payment") return next()

    // Read now (as Medusa's authorization would): a shopper who just sent the deposit is never told to wait by
    // an older read. Only this read may say "wait"; a ready payment, or one not readable now, is Medusa's to try.
    const { row, decision, current } = await currentPayment(req.scope, session, provider, cartId, 0)
    // A checkout whose pick ran out waits for the payer's next pick: Medusa's authorization would cancel its session.
    const pickAgain = checkoutPickExpired(row)
    if (!current || !(pickAgain || NOT_YET.has(decision.session))) return next()
    // A cart Medusa refuses for another reason (items, payment sessions, shipping) gets Medusa's own answer.
    const { errors } = await checkCartCompletableWorkflow(req.scope).run({ input: { cart_id: cartId }, throwOnError: false })
    if (errors?.length) return next()
    const waiting = pickAgain ? text("view.next.choose_coin") : waitingMessage({ deposit_amount: row.deposit_amount, deposit_coin: row.deposit_coin }, decision)
    req.scope.resolve(ContainerRegistrationKeys.LOGGER).debug(`crypto-swap: cart ${cartId} not completed yet: ${english(waiting)}`)
    const { remoteQueryConfig } = await prepareRetrieveQuery({}, { defaults: defaultStoreCartFields }, req)
    res.status(200).json({
      type: "cart",
      cart: await refetchCart(cartId, req.scope, remoteQueryConfig.fields),
      error: { message: sayTo(req)(waiting), name: "Error", type: MedusaError.Types.PAYMENT_AUTHORIZATION_ERROR },
    })
  } catch (error) {
    next(error)
  }
}
