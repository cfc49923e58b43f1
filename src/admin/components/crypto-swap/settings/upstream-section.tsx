import { Table, Text } from "@medusajs/ui"
import type { RequestMetrics, UpstreamMetrics } from "../../../lib/types"
import { DetailRow } from "../detail-row"
import { Section } from "./section"

const percent = (rate: number) => `${(rate * 100).toFixed(1)}%`
/** Timings are measured to the microsecond; a tenth of a millisecond is all anyone reads. */
const ms = (value: number) => `${value.toFixed(1)} ms`

function summary(metrics: RequestMetrics): string {
  return `${metrics.count} calls · ${metrics.errors} failed (${percent(metrics.errorRate)}) · p50 ${ms(metrics.p50Ms)} · p95 ${ms(metrics.p95Ms)}`
}

/** Calls to the swap service from the process that answered, over its recent window (not the cluster's). */
export function UpstreamSection({ upstream }: { upstream: UpstreamMetrics }) {
  const endpoints = Object.entries(upstream.byPath ?? upstream.byEndpoint ?? {}).sort(([a], [b]) => a.localeCompare(b))
  return (
    <Section title="Swap service calls" description="Recent calls from this server process." testId="crypto-swap-upstream">
      <DetailRow label="All calls">{summary(upstream)}</DetailRow>
      {endpoints.length ? (
        <div className="overflow-x-auto pt-2">
          <Table>
            <Table.Header>
              <Table.Row>
                <Table.HeaderCell>Endpoint</Table.HeaderCell>
                <Table.HeaderCell>Calls</Table.HeaderCell>
                <Table.HeaderCell>Failed</Table.HeaderCell>
                <Table.HeaderCell>p50</Table.HeaderCell>
                <Table.HeaderCell>p95</Table.HeaderCell>
              </Table.Row>
            </Table.Header>
            <Table.Body>
              {endpoints.map(([endpoint, metrics]) => (
                <Table.Row key={endpoint}>
                  <Table.Cell className="font-mono">{endpoint}</Table.Cell>
                  <Table.Cell>{metrics.count}</Table.Cell>
                  <Table.Cell>
                    {metrics.errors} ({percent(metrics.errorRate)})
                  </Table.Cell>
                  <Table.Cell>{ms(metrics.p50Ms)}</Table.Cell>
                  <Table.Cell>{ms(metrics.p95Ms)}</Table.Cell>
                </Table.Row>
              ))}
            </Table.Body>
          </Table>
        </div>
      ) : (
        <Text size="small" className="text-ui-fg-muted">
          No calls recorded yet.
        </Text>
      )}
    </Section>
  )
}
