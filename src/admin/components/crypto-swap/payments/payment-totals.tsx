import type { ReactNode } from "react"
import { Table, Text } from "@medusajs/ui"
import { coinLabel } from "../../../lib/format"
import type { PaymentTotals as Totals } from "../../../lib/types"

type AmountColumn = { label: string; testId?: string }

/** One totals table: a label column, then amounts, right-aligned. */
function TotalsTable({
  title,
  testId,
  labelHeader,
  amounts,
  rows,
}: {
  title: string
  testId: string
  labelHeader: string
  amounts: AmountColumn[]
  rows: Array<{ key: string; label: ReactNode; values: string[]; attributes?: Record<string, string> }>
}) {
  return (
    <div className="flex flex-col gap-y-2" data-testid={testId}>
      <Text size="small" weight="plus">
        {title}
      </Text>
      <Table>
        <Table.Header>
          <Table.Row>
            <Table.HeaderCell>{labelHeader}</Table.HeaderCell>
            {amounts.map((column) => (
              <Table.HeaderCell key={column.label} className="text-right">
                {column.label}
              </Table.HeaderCell>
            ))}
          </Table.Row>
        </Table.Header>
        <Table.Body>
          {rows.map((row) => (
            <Table.Row key={row.key} {...row.attributes}>
              <Table.Cell>{row.label}</Table.Cell>
              {row.values.map((value, i) => (
                <Table.Cell key={amounts[i].label} className="text-right font-mono" data-testid={amounts[i].testId}>
                  {value}
                </Table.Cell>
              ))}
            </Table.Row>
          ))}
        </Table.Body>
      </Table>
    </div>
  )
}

/**
 * Received, refunded and outstanding for the rows the filters select: per store currency (what
 * orders were owed) and per settlement coin (what the merchant's wallet saw).
 */
export function PaymentTotals({ totals }: { totals: Totals | undefined }) {
  if (!totals) return null
  if (!totals.by_currency.length && !totals.by_settle_coin.length) {
    return (
      <Text size="small" className="text-ui-fg-muted px-6 py-4">
        Nothing in this range.
      </Text>
    )
  }
  return (
    // Inline columns: the store's Tailwind build may not scan a plugin's classes.
    <div className="grid gap-4 px-6 py-4" style={{ gridTemplateColumns: "repeat(auto-fit, minmax(360px, 1fr))" }}>
      <TotalsTable
        title="Per store currency"
        testId="crypto-swap-totals-currency"
        labelHeader="Currency"
        amounts={[{ label: "Due" }, { label: "Received", testId: "crypto-swap-total-received" }, { label: "Refunded" }, { label: "Outstanding" }]}
        rows={totals.by_currency.map((row) => ({
          key: row.currency_code,
          label: row.currency_code.toUpperCase(),
          values: [row.due, row.received, row.refunded, row.outstanding],
          attributes: { "data-currency": row.currency_code },
        }))}
      />
      <TotalsTable
        title="Per settlement coin"
        testId="crypto-swap-totals-coin"
        labelHeader="Coin"
        amounts={[{ label: "Received" }, { label: "Refunded" }, { label: "Outstanding" }]}
        rows={totals.by_settle_coin.map((row) => ({
          key: `${row.coin}-${row.network ?? ""}`,
          label: coinLabel(row.coin, row.network),
          values: [row.received, row.refunded, row.outstanding],
        }))}
      />
    </div>
  )
}
