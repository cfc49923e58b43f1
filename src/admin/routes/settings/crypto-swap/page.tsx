import { useState } from "react"
import { defineRouteConfig } from "@medusajs/admin-sdk"
import { Button, Container, Heading, Text } from "@medusajs/ui"
import { ProvidersSection } from "../../../components/crypto-swap/settings/providers-section"
import { ShiftsSection } from "../../../components/crypto-swap/settings/shifts-section"
import { UpstreamSection } from "../../../components/crypto-swap/settings/upstream-section"
import { WebhooksSection } from "../../../components/crypto-swap/settings/webhooks-section"
import { usePluginStatus } from "../../../lib/queries"
import { errorMessage } from "../../../lib/sdk"
import type { StatusPages } from "../../../lib/types"

/** The plugin's health: is the service reachable with these keys, is reconciliation running, what is stuck. */
const CryptoSwapSettingsPage = () => {
  const [pages, setPages] = useState<StatusPages>({ stuck_shifts: 0, attention: 0 })
  const status = usePluginStatus(pages)

  return (
    <div className="flex flex-col gap-y-3" data-testid="crypto-swap-settings">
      <Container className="flex items-center justify-between px-6 py-4">
        <div>
          <Heading level="h1">Crypto payments</Heading>
          <Text size="small" className="text-ui-fg-subtle">
            Health of the crypto-swap payment providers.
          </Text>
        </div>
        <Button
          size="small"
          variant="secondary"
          isLoading={status.isFetching}
          onClick={() => void status.refetch()}
          data-testid="crypto-swap-refresh-status"
        >
          Refresh
        </Button>
      </Container>
      {status.isPending ? (
        <Container className="px-6 py-4">
          <Text size="small" className="text-ui-fg-muted">
            Checking the providers…
          </Text>
        </Container>
      ) : status.isError ? (
        <Container className="px-6 py-4" data-testid="crypto-swap-settings-error">
          <Text size="small" className="text-ui-fg-error">
            Could not load the status: {errorMessage(status.error)}
          </Text>
        </Container>
      ) : (
        <>
          <ProvidersSection providers={status.data.providers} />
          <ShiftsSection status={status.data} onPage={(list, offset) => setPages((current) => ({ ...current, [list]: offset }))} />
          <WebhooksSection webhooks={status.data.webhooks} providers={status.data.providers} />
          <UpstreamSection upstream={status.data.upstream} />
        </>
      )}
    </div>
  )
}

export const config = defineRouteConfig({
  label: "Crypto payments",
})

export default CryptoSwapSettingsPage
