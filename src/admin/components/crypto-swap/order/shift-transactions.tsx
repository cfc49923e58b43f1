import { Text } from "@medusajs/ui"
import { shorten } from "../../../lib/format"
import type { Shift, TransactionLink } from "../../../lib/types"
import { DetailRow } from "../detail-row"

/** A hash links to its explorer when the plugin knows the network's; otherwise it is shown to copy. */
function TxHash({ tx, testId }: { tx: TransactionLink; testId: string }) {
  if (!tx.url) {
    return (
      <span data-testid={testId} title={tx.hash}>
        {shorten(tx.hash)}
      </span>
    )
  }
  return (
    <a
      href={tx.url}
      target="_blank"
      rel="noopener noreferrer"
      className="text-ui-fg-interactive hover:text-ui-fg-interactive-hover"
      data-testid={testId}
      title={tx.hash}
    >
      {shorten(tx.hash)}
    </a>
  )
}

type DepositRecord = { status?: unknown; depositHash?: unknown; depositAmount?: unknown; settleHash?: unknown }

/** A `multiple` shift's deposits, as the service listed them (read defensively: it is its shape, not ours). */
function Deposits({ deposits }: { deposits: unknown[] }) {
  const rows = deposits.filter((deposit): deposit is DepositRecord => typeof deposit === "object" && deposit !== null)
  if (!rows.length) return null
  return (
    <DetailRow label={`Deposits (${rows.length})`} testId="crypto-swap-deposits">
      {rows.map((deposit, index) => (
        <span key={index} className="block">
          {String(deposit.depositAmount ?? "?")} · {String(deposit.status ?? "unknown")}
          {typeof deposit.depositHash === "string" ? ` · ${shorten(deposit.depositHash)}` : ""}
        </span>
      ))}
    </DetailRow>
  )
}

/** Deposit, settle and refund transactions, with the EVM sweep caveat next to the deposit hash. */
export function ShiftTransactions({ shift }: { shift: Shift }) {
  const { deposit, settle, refund } = shift.view.transactions
  const deposits = Array.isArray(shift.deposits) ? shift.deposits : []
  if (!deposit && !settle && !refund && !deposits.length) return null
  return (
    <div data-testid="crypto-swap-transactions">
      {deposit ? (
        <DetailRow label="Deposit tx" copy={deposit.hash}>
          <TxHash tx={deposit} testId="crypto-swap-deposit-tx" />
        </DetailRow>
      ) : null}
      {shift.view.sweep_note ? (
        <Text size="xsmall" className="text-ui-fg-muted pb-1" data-testid="crypto-swap-sweep-note">
          {shift.view.sweep_note}
        </Text>
      ) : null}
      {settle ? (
        <DetailRow label="Settle tx" copy={settle.hash}>
          <TxHash tx={settle} testId="crypto-swap-settle-tx" />
        </DetailRow>
      ) : null}
      {refund ? (
        <DetailRow label="Refund tx" copy={refund.hash}>
          <TxHash tx={refund} testId="crypto-swap-refund-tx" />
        </DetailRow>
      ) : null}
      {deposits.length ? <Deposits deposits={deposits} /> : null}
    </div>
  )
}
