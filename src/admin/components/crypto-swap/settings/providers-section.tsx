import { StatusBadge, Text } from "@medusajs/ui"
import { formatDuration } from "../../../lib/format"
import type { ProviderHealth } from "../../../lib/types"
import { DetailRow } from "../detail-row"
import { Section } from "./section"

/** `null` means the service could not be asked (down, rate limited), which is not a bad key. */
function CredentialsBadge({ credentials }: { credentials: ProviderHealth["credentials"] }) {
  const [color, label] =
    credentials.valid === true
      ? (["green", "Valid"] as const)
      : credentials.valid === false
        ? (["red", "Rejected"] as const)
        : (["orange", "Not checked"] as const)
  return (
    <StatusBadge color={color} data-testid="crypto-swap-credentials-badge" data-valid={String(credentials.valid)}>
      {label}
    </StatusBadge>
  )
}

/** The service answers for the IP the admin request came from; null when there was none to ask for. */
function permissionText(permissions: ProviderHealth["permissions"]): string {
  if (permissions.create_shift === null) return "Unknown"
  const verdict = permissions.create_shift ? "Allowed" : "Refused (shoppers from this location can't pay)"
  return permissions.for_ip ? `${verdict} for ${permissions.for_ip}` : verdict
}

function ProviderCard({ provider }: { provider: ProviderHealth }) {
  return (
    <div className="flex flex-col gap-y-1 py-3" data-testid="crypto-swap-provider" data-provider-id={provider.provider_id}>
      <div className="flex items-center justify-between">
        <Text size="small" weight="plus" family="mono">
          {provider.provider_id}
        </Text>
        <Text size="small" className="text-ui-fg-subtle">
          Mode: {provider.mode}
        </Text>
      </div>
      <div data-testid="crypto-swap-credentials">
        <DetailRow label="Credentials">
          <CredentialsBadge credentials={provider.credentials} />
        </DetailRow>
        {provider.credentials.error ? (
          <DetailRow label="Credentials error" testId="crypto-swap-credentials-error">
            {provider.credentials.error}
          </DetailRow>
        ) : null}
      </div>
      <DetailRow label="Creating shifts">{permissionText(provider.permissions)}</DetailRow>
      <DetailRow label="Coin list age">{formatDuration(provider.catalogue_age_seconds)}</DetailRow>
      {Object.entries(provider.settlement).map(([currency, destination]) => (
        <DetailRow key={currency} label={`Settles ${currency.toUpperCase()} in`} copy={destination.address}>
          {destination.coin} on {destination.network} to {destination.address}
          {destination.memo ? ` (memo ${destination.memo})` : ""}
        </DetailRow>
      ))}
    </div>
  )
}

export function ProvidersSection({ providers }: { providers: ProviderHealth[] }) {
  return (
    <Section title="Providers" description="Credentials, shift permission and settlement per registered provider." testId="crypto-swap-providers">
      {providers.length ? (
        <div className="divide-y">
          {providers.map((provider) => (
            <ProviderCard key={provider.provider_id} provider={provider} />
          ))}
        </div>
      ) : (
        <Text size="small" className="text-ui-fg-muted">
          No crypto-swap provider is registered in the payment module's options.
        </Text>
      )}
    </Section>
  )
}
