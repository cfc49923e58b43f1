import { createStep, StepResponse } from "@medusajs/framework/workflows-sdk"
import { ContainerRegistrationKeys, Modules } from "@medusajs/framework/utils"
import type { MedusaContainer } from "@medusajs/framework/types"
import { CRYPTO_SWAP_MODULE, type CryptoSwapModuleService } from "../../modules/crypto-swap"
import { sayToShopper } from "../../lib/i18n"
import { providerById, storeMessages } from "../../lib/provider-registry"
import { noticeData, noticeTexts, shopperNotice, type NoticeData } from "../../lib/shift/shopper-notices"

type LedgerRow = Awaited<ReturnType<CryptoSwapModuleService["retrieveSwapShift"]>>

/** Where and in what language the shopper is reached: the order's e-mail and locale, else the cart's. */
async function shopperOf(container: MedusaContainer, row: LedgerRow): Promise<{ email?: string; locale: string | null }> {
  const query = container.resolve(ContainerRegistrationKeys.QUERY)
  const fields = ["email", "locale"]
  const [order] = row.order_id ? (await query.graph({ entity: "order", fields, filters: { id: row.order_id } })).data : []
  const [cart] = row.cart_id && !(order?.email && order.locale) ? (await query.graph({ entity: "cart", fields, filters: { id: row.cart_id } })).data : []
  return { email: order?.email || cart?.email || undefined, locale: order?.locale || cart?.locale || null }
}

/**
 * The notice in the shopper's language, chosen as the store routes choose it (a locale that is no language
 * tag, or a language the store lacks, is English; the store's `messages` override and add).
 */
function noticeMessage(container: MedusaContainer, data: NoticeData, locale: string | null) {
  const say = sayToShopper(locale, undefined, storeMessages(container.resolve(ContainerRegistrationKeys.CONFIG_MODULE)))
  const { subject, text } = noticeTexts(data)
  return { ...data, locale, subject: say(subject), text: say(text) }
}

/**
 * Tells the shopper what became of their payment, in their language, through the store's Notification
 * Module, once per message and row (its idempotency key). A store without a provider for the channel
 * gets a warning, and the payment goes on.
 */
export const sendShopperNoticeStep = createStep(
  "crypto-swap-send-shopper-notice",
  async (input: { ledger_id: string; event: string }, { container }) => {
    const ledger = container.resolve<CryptoSwapModuleService>(CRYPTO_SWAP_MODULE)
    const row = await ledger.retrieveSwapShift(input.ledger_id)
    const notice = shopperNotice(input.event, row.kind)
    if (!notice || !row.provider_id) return new StepResponse(null)
    const { notifications } = providerById(container.resolve(ContainerRegistrationKeys.CONFIG_MODULE), row.provider_id).options
    if (!notifications.enabled) return new StepResponse(null)
    const { email: to, locale } = await shopperOf(container, row)
    if (!to) return new StepResponse(null)
    // A refund's page is its payment's: the shopper's payment session there.
    const [refunded] =
      row.kind === "refund" && row.refund_of_shift_id ? await ledger.listSwapShifts({ shift_id: row.refund_of_shift_id }, { select: ["payment_session_id"], take: 1 }) : []
    const about = { ...row, payment_session_id: row.payment_session_id ?? refunded?.payment_session_id ?? null }
    try {
      await container.resolve(Modules.NOTIFICATION).createNotifications({
        to,
        channel: notifications.channel,
        template: notifications.templates[notice] ?? `crypto-swap.${notice}`,
        data: noticeMessage(container, noticeData(notice, about, notifications.paymentPageUrl), locale),
        trigger_type: input.event,
        resource_id: row.order_id ?? row.cart_id,
        resource_type: row.order_id ? "order" : "cart",
        idempotency_key: `crypto-swap:${notice}:${row.id}`,
      })
    } catch (error) {
      container
        .resolve(ContainerRegistrationKeys.LOGGER)
        .warn(`crypto-swap: could not send "${notice}" for ${row.id} on channel ${notifications.channel}: ${(error as Error).message}`)
      return new StepResponse(null)
    }
    return new StepResponse(notice)
  }
)
