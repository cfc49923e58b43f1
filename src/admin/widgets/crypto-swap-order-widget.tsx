import { defineWidgetConfig } from "@medusajs/admin-sdk"
import type { AdminOrder, DetailWidgetProps } from "@medusajs/framework/types"
import { Container, Heading, Text } from "@medusajs/ui"
import { ShiftCard } from "../components/crypto-swap/order/shift-card"
import { orderPayments, paymentForShift } from "../lib/order-payments"
import { useOrderPayments, useOrderShifts } from "../lib/queries"
import { errorMessage } from "../lib/sdk"

const PROVIDER_PREFIX = "pp_crypto-swap_"

/** Whether the order ever involved the plugin: only then is a failing route worth showing. */
function usesCryptoSwap(order: AdminOrder): boolean {
  return (order.payment_collections ?? []).some(
    (collection) =>
      (collection.payments ?? []).some((payment) => payment.provider_id.startsWith(PROVIDER_PREFIX)) ||
      (collection.payment_sessions ?? []).some((session) => session.provider_id.startsWith(PROVIDER_PREFIX))
  )
}

/** Crypto payments and refunds of an order, below the order's own sections. */
const CryptoSwapOrderWidget = ({ data: order }: DetailWidgetProps<AdminOrder>) => {
  const { query, expectNewShift } = useOrderShifts(order.id)
  const shifts = query.data?.shifts ?? []
  // Captured payment shifts offer a refund, which needs the Medusa payment and what it already refunded.
  const needsPayments = shifts.some((shift) => shift.kind === "payment" && shift.captured_at)
  const payments = useOrderPayments(order.id, needsPayments)
  const knownPayments = orderPayments(payments.data ?? order)

  if (query.isError && usesCryptoSwap(order)) {
    return (
      <Container className="px-6 py-4" data-testid="crypto-swap-widget">
        <Heading level="h2">Crypto payments</Heading>
        <Text size="small" className="text-ui-fg-error" data-testid="crypto-swap-widget-error">
          Could not load the crypto payments: {errorMessage(query.error)}
        </Text>
      </Container>
    )
  }
  // Orders paid otherwise (and the first load) show nothing: the widget is on every order page.
  if (!shifts.length) return null

  return (
    <Container className="divide-y p-0" data-testid="crypto-swap-widget">
      <div className="flex items-center justify-between px-6 py-4">
        <Heading level="h2">Crypto payments</Heading>
        <Text size="small" className="text-ui-fg-subtle">
          {shifts.length} {shifts.length === 1 ? "shift" : "shifts"}
        </Text>
      </div>
      {shifts.map((shift) => (
        <ShiftCard
          key={shift.id}
          orderId={order.id}
          shift={shift}
          payment={shift.kind === "payment" ? paymentForShift(knownPayments, shift) : undefined}
          onRefunded={expectNewShift}
        />
      ))}
    </Container>
  )
}

export const config = defineWidgetConfig({
  zone: "order.details.after",
  // A prefixed, stable id keeps admins' layout choices for this widget across plugin releases.
  id: "crypto-swap:order-payments",
})

export default CryptoSwapOrderWidget
