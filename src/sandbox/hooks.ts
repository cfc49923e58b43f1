import type { SandboxCore } from "./core"
import { isHttpUrl } from "./http-url"
import { newUuid } from "./ids"
import { badUserInput } from "./service-error"
import type { Account, Hook } from "./state"

// Webhooks of the checkout feature; the GraphQL endpoint is their only interface (spec 4.11).

export function createHook(core: SandboxCore, account: Account, targetUrl: string): Hook {
  if (!isHttpUrl(targetUrl)) {
    throw badUserInput("Invalid URL: targetUrl must be an absolute http(s) URL")
  }
  const now = core.clock.now()
  const hook: Hook = { id: newUuid(), accountId: account.id, targetUrl, enabled: true, createdAt: now, updatedAt: now }
  core.state.hooks.set(hook.id, hook)
  return hook
}

/** Another account's hook is as unknown as a missing one. */
export function deleteHook(core: SandboxCore, account: Account, id: string): boolean {
  const hook = core.state.hooks.get(id)
  if (!hook || hook.accountId !== account.id) {
    throw badUserInput("Hook not found")
  }
  core.state.hooks.delete(id)
  return true
}

export function hookView(hook: Hook) {
  return {
    id: hook.id,
    createdAt: hook.createdAt.toISOString(),
    updatedAt: hook.updatedAt.toISOString(),
    enabled: hook.enabled,
    accountId: hook.accountId,
    targetUrl: hook.targetUrl,
  }
}
