import { createStep, StepResponse } from "@medusajs/framework/workflows-sdk"
import { ContainerRegistrationKeys, Modules } from "@medusajs/framework/utils"
import type { MedusaContainer } from "@medusajs/framework/types"
import { CRYPTO_SWAP_MODULE, type CryptoSwapModuleService } from "../../modules/crypto-swap"
import { providerById } from "../../lib/provider-registry"
import { shopperNotice, type ShopperNotice } from "../../lib/shift/shopper-notices"

type LedgerRow = Awaited<ReturnType<CryptoSwapModuleService["retrieveSwapShift"]>>

/** Where the shopper is reached: the order's e-mail, else the cart's. */
async function shopperEmail(container: MedusaContainer, row: LedgerRow): Promise<string | undefined> {
  const query = container.resolve(ContainerRegistrationKeys.QUERY)
  if (row.order_id) {
    const { data } = await query.graph({ entity: "order", fields: ["email"], filters: { id: row.order_id } })
    if (data[0]?.email) return data[0].email
  }
  if (!row.cart_id) return undefined
  const { data } = await query.graph({ entity: "cart", fields: ["email"], filters: { id: row.cart_id } })
  return data[0]?.email ?? undefined
}

/** What a message may say: amounts, coins, the cart and the payment session. Never a shift id. */
function noticeData(notice: ShopperNotice, row: LedgerRow) {
  const about = { notice, cart_id: row.cart_id, order_id: row.order_id, amount: row.amount_due, currency_code: row.currency_code }
  switch (notice) {
    case "payment_received":
      return { ...about, payment_session_id: row.payment_session_id, deposit_coin: row.deposit_coin, deposit_network: row.deposit_network, deposit_amount: row.deposit_amount }
    case "refund_address_needed":
      // The page where the shopper gives it is the storefront's payment page for this session.
      return { ...about, payment_session_id: row.payment_session_id, deposit_coin: row.deposit_coin, deposit_network: row.deposit_network }
    case "refunded":
      // A refund shift pays the shopper its settle coin; a payment the service sent back, its deposit coin.
      return row.kind === "refund"
        ? { ...about, refund_coin: row.settle_coin, refund_network: row.settle_network, refund_amount: row.settle_amount, refund_address: row.refund_address }
        : { ...about, refund_coin: row.deposit_coin, refund_network: row.deposit_network, refund_address: row.refund_address }
    case "payment_expired":
      return { ...about, payment_session_id: row.payment_session_id }
  }
}

/**
 * Tells the shopper what became of their payment, through the store's Notification Module, once per
 * message and row (its idempotency key). A store without a provider for the channel gets a warning,
 * and the payment goes on.
 */
export const sendShopperNoticeStep = createStep(
  "crypto-swap-send-shopper-notice",
  async (input: { ledger_id: string; event: string }, { container }) => {
    const row = await container.resolve<CryptoSwapModuleService>(CRYPTO_SWAP_MODULE).retrieveSwapShift(input.ledger_id)
    const notice = shopperNotice(input.event, row.kind)
    if (!notice || !row.provider_id) return new StepResponse(null)
    const { notifications } = providerById(container.resolve(ContainerRegistrationKeys.CONFIG_MODULE), row.provider_id).options
    if (!notifications.enabled) return new StepResponse(null)
    const to = await shopperEmail(container, row)
    if (!to) return new StepResponse(null)
    try {
      await container.resolve(Modules.NOTIFICATION).createNotifications({
        to,
        channel: notifications.channel,
        template: notifications.templates[notice] ?? `crypto-swap.${notice}`,
        data: noticeData(notice, row),
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
