import { StatusBadge, Table, Text } from "@medusajs/ui"
import type { ProviderHealth, Webhook } from "../../../lib/types"
import { RegisterWebhookForm } from "./register-webhook-form"
import { Section } from "./section"

/**
 * The target URL's last segment is the token that authenticates notifications: keep it off screens
 * and screenshots, the rest is enough to recognise the URL.
 */
function maskToken(targetUrl: string): string {
  const slash = targetUrl.lastIndexOf("/")
  return slash > 0 && slash < targetUrl.length - 1 ? `${targetUrl.slice(0, slash + 1)}••••••` : targetUrl
}

function WebhookTable({ webhooks }: { webhooks: Webhook[] }) {
  if (!webhooks.length) {
    return (
      <Text size="small" className="text-ui-fg-muted">
        No webhook is registered: hosted-checkout payments are still found by polling, only later.
      </Text>
    )
  }
  return (
    <div className="overflow-x-auto">
      <Table>
        <Table.Header>
          <Table.Row>
            <Table.HeaderCell>Provider</Table.HeaderCell>
            <Table.HeaderCell>Hook id</Table.HeaderCell>
            <Table.HeaderCell>Target</Table.HeaderCell>
            <Table.HeaderCell>State</Table.HeaderCell>
          </Table.Row>
        </Table.Header>
        <Table.Body>
          {webhooks.map((webhook) => (
            <Table.Row key={webhook.id} data-testid="crypto-swap-webhook">
              <Table.Cell className="font-mono">{webhook.provider_id}</Table.Cell>
              <Table.Cell className="font-mono">{webhook.hook_id}</Table.Cell>
              <Table.Cell className="font-mono">{maskToken(webhook.target_url)}</Table.Cell>
              <Table.Cell>
                <StatusBadge color={webhook.enabled ? "green" : "grey"}>{webhook.enabled ? "Enabled" : "Disabled"}</StatusBadge>
              </Table.Cell>
            </Table.Row>
          ))}
        </Table.Body>
      </Table>
    </div>
  )
}

export function WebhooksSection({ webhooks, providers }: { webhooks: Webhook[]; providers: ProviderHealth[] }) {
  return (
    <Section
      title="Webhooks"
      description="Hosted-checkout notifications make the plugin sync a shift within a second instead of at the next poll."
      testId="crypto-swap-webhooks"
    >
      <div className="flex flex-col gap-y-4">
        <WebhookTable webhooks={webhooks} />
        {providers.length ? <RegisterWebhookForm providers={providers} /> : null}
      </div>
    </Section>
  )
}
