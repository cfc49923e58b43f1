/** Small display helpers shared by the order widget and the settings page. */

export type BadgeColor = "green" | "red" | "blue" | "orange" | "grey" | "purple"

/**
 * Colour by what the merchant should feel: orange waits on someone, blue is moving, green is done,
 * red needs a look, purple is money going back. Statuses the plugin doesn't know stay grey.
 */
const STATUS_COLOR: Record<string, BadgeColor> = {
  waiting: "orange",
  address_needed: "orange",
  pending: "blue",
  processing: "blue",
  settling: "blue",
  multiple: "blue",
  settled: "green",
  paid_manually: "green",
  payment_unknown: "red",
  review: "red",
  refund: "purple",
  refunding: "purple",
  refunded: "purple",
  expired: "grey",
}

export function statusColor(status: string): BadgeColor {
  return STATUS_COLOR[status] ?? "grey"
}

/** `address_needed` -> `Address needed`. */
export function humanize(value: string): string {
  const words = value.replace(/[_-]+/g, " ").trim()
  return words.charAt(0).toUpperCase() + words.slice(1)
}

export function formatDateTime(iso: string | null | undefined): string {
  if (!iso) return "-"
  const date = new Date(iso)
  return Number.isNaN(date.getTime()) ? iso : date.toLocaleString()
}

/** Hashes and addresses are long: the start and the end are what people compare. */
export function shorten(value: string, keep = 10): string {
  return value.length <= keep * 2 + 1 ? value : `${value.slice(0, keep)}…${value.slice(-keep)}`
}

/** `USDT` on `ethereum` -> `USDT (ethereum)`; either may be missing on a checkout before the payer picked. */
export function coinLabel(coin: string | null, network: string | null): string {
  if (!coin) return "-"
  return network ? `${coin} (${network})` : coin
}

/** An amount of a coin: exact decimal strings from the service, shown as they are. */
export function coinAmount(amount: string | null, coin: string | null): string {
  return amount ? `${amount} ${coin ?? ""}`.trim() : "-"
}

/** An amount of a coin with the network it moves on, when known. */
export function coinAmountOn(amount: string | null, coin: string | null, network: string | null): string {
  return `${coinAmount(amount, coin)} ${network ? `(${network})` : ""}`
}

export function moneyAmount(amount: string | number | null | undefined, currencyCode: string | null | undefined): string {
  if (amount === null || amount === undefined || amount === "") return "-"
  return `${amount} ${(currencyCode ?? "").toUpperCase()}`.trim()
}

export function formatDuration(seconds: number | null): string {
  if (seconds === null) return "-"
  if (seconds < 60) return `${seconds}s`
  if (seconds < 3600) return `${Math.round(seconds / 60)} min`
  return `${Math.round(seconds / 3600)} h`
}
