import { useEffect, useState } from "react"
import { Button, Input, Label, Select } from "@medusajs/ui"
import { ATTENTION_LABELS, KINDS, STATUSES, type usePaymentFilters } from "../../../lib/payment-filters"
import { humanize } from "../../../lib/format"

type Controls = ReturnType<typeof usePaymentFilters>

/** Radix's Select can't hold an empty value: "all" stands for no filter. */
const ALL = "all"

function FilterSelect(props: {
  id: string
  label: string
  value: string | undefined
  options: Array<{ value: string; label: string }>
  onChange: (value: string) => void
}) {
  return (
    <div className="flex flex-col gap-y-1" style={{ minWidth: 130 }}>
      <Label htmlFor={props.id} size="xsmall" weight="plus" className="text-ui-fg-subtle">
        {props.label}
      </Label>
      <Select size="small" value={props.value ?? ALL} onValueChange={(value) => props.onChange(value === ALL ? "" : value)}>
        <Select.Trigger id={props.id} data-testid={props.id}>
          <Select.Value />
        </Select.Trigger>
        <Select.Content>
          <Select.Item value={ALL}>All</Select.Item>
          {props.options.map((option) => (
            <Select.Item key={option.value} value={option.value}>
              {option.label}
            </Select.Item>
          ))}
        </Select.Content>
      </Select>
    </div>
  )
}

/**
 * A text filter typed freely and applied a moment after the last keystroke (or at once on Enter), so
 * the list isn't read again for every character.
 */
function useTypedFilter(value: string | undefined, apply: (value: string) => void) {
  const [text, setText] = useState(value ?? "")
  // The URL changed from elsewhere (Clear, back button): show it.
  useEffect(() => setText(value ?? ""), [value])
  useEffect(() => {
    if (text.trim() === (value ?? "")) return
    const timer = setTimeout(() => apply(text.trim()), 400)
    return () => clearTimeout(timer)
  }, [text, value, apply])
  return {
    value: text,
    onChange: (event: { target: { value: string } }) => setText(event.target.value),
    onKeyDown: (event: { key: string }) => {
      if (event.key === "Enter") apply(text.trim())
    },
  }
}

/**
 * A date field that holds what was picked at once (a controlled field whose value waited for the URL
 * would be reset by React in between) and applies it to the URL; a change there (Clear) shows.
 */
function useDateFilter(value: string | undefined, apply: (value: string) => void) {
  const [day, setDay] = useState(value ?? "")
  useEffect(() => setDay(value ?? ""), [value])
  return {
    value: day,
    onChange: (event: { target: { value: string } }) => {
      setDay(event.target.value)
      apply(event.target.value)
    },
  }
}

export function PaymentFiltersBar({ controls }: { controls: Controls }) {
  const { filters, setFilters, clear } = controls
  const search = useTypedFilter(filters.q, (q) => setFilters({ q }))
  const coin = useTypedFilter(filters.coin, (value) => setFilters({ coin: value }))
  const from = useDateFilter(filters.from, (value) => setFilters({ from: value }))
  const to = useDateFilter(filters.to, (value) => setFilters({ to: value }))
  const anyFilter = Object.keys(filters).length > 0

  return (
    <div className="flex flex-wrap items-end gap-3 px-6 py-4" data-testid="crypto-swap-payments-filters">
      <div className="flex flex-1 flex-col gap-y-1" style={{ minWidth: 200 }}>
        <Label htmlFor="crypto-swap-payments-search" size="xsmall" weight="plus" className="text-ui-fg-subtle">
          Search
        </Label>
        <Input
          id="crypto-swap-payments-search"
          type="search"
          size="small"
          placeholder="Order number, shift id or transaction hash"
          autoComplete="off"
          spellCheck={false}
          data-testid="crypto-swap-payments-search"
          {...search}
        />
      </div>
      <FilterSelect
        id="crypto-swap-payments-kind"
        label="Kind"
        value={filters.kind}
        options={KINDS}
        onChange={(kind) => setFilters({ kind })}
      />
      <FilterSelect
        id="crypto-swap-payments-status"
        label="Status"
        value={filters.status}
        options={STATUSES.map((status) => ({ value: status, label: humanize(status) }))}
        onChange={(status) => setFilters({ status })}
      />
      <FilterSelect
        id="crypto-swap-payments-attention"
        label="Attention"
        value={filters.attention}
        options={[
          { value: "true", label: "Needs attention" },
          { value: "false", label: "Nothing to do" },
          ...Object.entries(ATTENTION_LABELS).map(([value, label]) => ({ value, label })),
        ]}
        onChange={(attention) => setFilters({ attention })}
      />
      <div className="flex flex-col gap-y-1" style={{ width: 90 }}>
        <Label htmlFor="crypto-swap-payments-coin" size="xsmall" weight="plus" className="text-ui-fg-subtle">
          Coin
        </Label>
        <Input id="crypto-swap-payments-coin" size="small" placeholder="BTC" autoComplete="off" data-testid="crypto-swap-payments-coin" {...coin} />
      </div>
      <div className="flex flex-col gap-y-1">
        <Label htmlFor="crypto-swap-payments-from" size="xsmall" weight="plus" className="text-ui-fg-subtle">
          From (UTC)
        </Label>
        <Input
          id="crypto-swap-payments-from"
          type="date"
          size="small"
          max={filters.to}
          {...from}
          data-testid="crypto-swap-payments-from"
        />
      </div>
      <div className="flex flex-col gap-y-1">
        <Label htmlFor="crypto-swap-payments-to" size="xsmall" weight="plus" className="text-ui-fg-subtle">
          To (UTC, included)
        </Label>
        <Input
          id="crypto-swap-payments-to"
          type="date"
          size="small"
          min={filters.from}
          {...to}
          data-testid="crypto-swap-payments-to"
        />
      </div>
      <Button size="small" variant="transparent" disabled={!anyFilter} onClick={clear} data-testid="crypto-swap-payments-clear">
        Clear filters
      </Button>
    </div>
  )
}
