import { defineRouteConfig } from "@medusajs/admin-sdk"
import { ArrowDownTray, Cash } from "@medusajs/icons"
import { Button, Container, Heading, Text } from "@medusajs/ui"
import { PaymentFiltersBar } from "../../components/crypto-swap/payments/payment-filters-bar"
import { PaymentTotals } from "../../components/crypto-swap/payments/payment-totals"
import { PaymentsTable } from "../../components/crypto-swap/payments/payments-table"
import { ListPagination } from "../../components/crypto-swap/list-pagination"
import { exportRange, usePaymentFilters } from "../../lib/payment-filters"
import { useDownloadExport, usePaymentTotals, usePayments } from "../../lib/queries"
import { errorMessage } from "../../lib/sdk"
import type { ExportFormat } from "../../lib/types"

/**
 * Every crypto payment, top-up and refund shift of the store: filtered, searched and paged on the
 * server, with the totals of what the filters select, the items that need the merchant resolved in
 * place, and the accounting export of the date range shown.
 */
const CryptoPaymentsPage = () => {
  const controls = usePaymentFilters()
  const { filters, offset, limit, setOffset } = controls
  const list = usePayments(filters, { limit, offset })
  const totals = usePaymentTotals(filters)
  const download = useDownloadExport()
  const range = exportRange(filters)

  const count = list.data?.count ?? 0
  const exportButton = (format: ExportFormat) => (
    <Button
      size="small"
      variant="secondary"
      isLoading={download.isPending && download.variables?.format === format}
      disabled={download.isPending}
      onClick={() => download.mutate({ ...range, format })}
      data-testid={`crypto-swap-export-${format}`}
    >
      <ArrowDownTray />
      Export {format.toUpperCase()}
    </Button>
  )

  return (
    <div className="flex flex-col gap-y-3" data-testid="crypto-swap-payments">
      <Container className="divide-y p-0">
        <div className="flex flex-wrap items-center justify-between gap-4 px-6 py-4">
          <div>
            <Heading level="h1">Crypto payments</Heading>
            <Text size="small" className="text-ui-fg-subtle">
              Every payment, top-up and refund shift, newest first. Dates are UTC days.
            </Text>
          </div>
          <div className="flex flex-col items-end gap-y-1">
            <div className="flex gap-x-2">
              {exportButton("csv")}
              {exportButton("json")}
            </div>
            <Text size="xsmall" className="text-ui-fg-muted" data-testid="crypto-swap-export-range">
              Accounting export of {filters.from || filters.to ? `${range.from} to ${range.to}` : `everything up to ${range.to}`} (the other
              filters don't apply)
            </Text>
          </div>
        </div>
        <PaymentFiltersBar controls={controls} />
      </Container>

      <Container className="divide-y p-0" data-testid="crypto-swap-payment-totals">
        <div className="px-6 py-4">
          <Heading level="h2">Totals</Heading>
          <Text size="small" className="text-ui-fg-subtle">
            Of everything these filters select. Received: captured payments (store currency) and settled payments and top-ups
            (settlement coin); refunded: settled refund shifts; outstanding: refunds not yet sent.
          </Text>
        </div>
        {totals.isError ? (
          <Text size="small" className="text-ui-fg-error px-6 py-4">
            Could not load the totals: {errorMessage(totals.error)}
          </Text>
        ) : (
          <PaymentTotals totals={totals.data} />
        )}
      </Container>

      <Container className="p-0">
        {list.isPending ? (
          <Text size="small" className="text-ui-fg-muted px-6 py-4">
            Loading payments…
          </Text>
        ) : list.isError ? (
          <Text size="small" className="text-ui-fg-error px-6 py-4" data-testid="crypto-swap-payments-error">
            Could not load the payments: {errorMessage(list.error)}
          </Text>
        ) : (
          <div data-testid="crypto-swap-payments-list" data-count={count} data-loading={list.isFetching ? "true" : "false"}>
            <PaymentsTable lines={list.data.payments} />
            <ListPagination count={count} limit={limit} offset={offset} onOffset={setOffset} />
          </div>
        )}
      </Container>
    </div>
  )
}

export const config = defineRouteConfig({
  label: "Crypto payments",
  icon: Cash,
})

export default CryptoPaymentsPage
