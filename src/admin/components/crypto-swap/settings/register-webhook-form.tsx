import { useState, type FormEvent } from "react"
import { Button, Input, Label, Select } from "@medusajs/ui"
import { useRegisterWebhook } from "../../../lib/queries"
import type { ProviderHealth } from "../../../lib/types"

function isHttpUrl(value: string): boolean {
  try {
    return ["http:", "https:"].includes(new URL(value).protocol)
  } catch {
    return false
  }
}

/**
 * Registers the hosted checkout's webhook with the service. The backend URL must be the store's public
 * one: the admin usually runs on it, so its origin is the default.
 */
export function RegisterWebhookForm({ providers }: { providers: ProviderHealth[] }) {
  const [providerId, setProviderId] = useState(providers[0]?.provider_id ?? "")
  const [backendUrl, setBackendUrl] = useState(() => window.location.origin)
  const register = useRegisterWebhook()
  const valid = Boolean(providerId) && isHttpUrl(backendUrl.trim())

  const submit = (event: FormEvent) => {
    event.preventDefault()
    if (valid) register.mutate({ provider_id: providerId, backend_url: backendUrl.trim() })
  }

  return (
    <form onSubmit={submit} className="flex flex-col gap-y-3" data-testid="crypto-swap-register-webhook-form">
      <div className="grid gap-3 sm:grid-cols-2">
        <div className="flex flex-col gap-y-1">
          <Label size="small" htmlFor="crypto-swap-webhook-provider">
            Provider
          </Label>
          <Select value={providerId} onValueChange={setProviderId} size="small">
            <Select.Trigger id="crypto-swap-webhook-provider" data-testid="crypto-swap-webhook-provider">
              <Select.Value placeholder="Choose a provider" />
            </Select.Trigger>
            <Select.Content>
              {providers.map((provider) => (
                <Select.Item key={provider.provider_id} value={provider.provider_id}>
                  {provider.provider_id}
                </Select.Item>
              ))}
            </Select.Content>
          </Select>
        </div>
        <div className="flex flex-col gap-y-1">
          <Label size="small" htmlFor="crypto-swap-webhook-backend-url">
            Public backend URL
          </Label>
          <Input
            id="crypto-swap-webhook-backend-url"
            size="small"
            type="url"
            value={backendUrl}
            onChange={(event) => setBackendUrl(event.target.value)}
            data-testid="crypto-swap-webhook-backend-url"
          />
        </div>
      </div>
      <div className="flex justify-end">
        <Button type="submit" size="small" variant="secondary" isLoading={register.isPending} disabled={!valid} data-testid="crypto-swap-register-webhook">
          Register webhook
        </Button>
      </div>
    </form>
  )
}
