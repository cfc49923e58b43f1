import { startSandbox, type Sandbox, type SandboxOptions } from "../../src/sandbox"

/**
 * Starts a real sandbox for a test file and exports its address and credentials to the environment
 * the test app's medusa-config.ts reads. Call it before `medusaIntegrationTestRunner` so the sandbox
 * is up when the app boots.
 */
export function useSandbox(options: SandboxOptions = {}) {
  let sandbox: Sandbox | undefined
  beforeAll(async () => {
    sandbox = await startSandbox(options)
    exportSandboxEnv(sandbox)
  })
  // A fault a test added ends with it, whether the test passed or failed halfway.
  afterEach(() => sandbox?.clearFaults())
  afterAll(async () => {
    await sandbox?.close()
  })
  return {
    get sandbox(): Sandbox {
      if (!sandbox) throw new Error("The sandbox is not started yet")
      return sandbox
    },
    get control() {
      return sandboxControl(this.sandbox.baseUrl)
    },
  }
}

/** The sandbox's address and account, where the test app's medusa-config.ts reads them. */
export function exportSandboxEnv(sandbox: Pick<Sandbox, "baseUrl" | "graphqlUrl" | "payUrl" | "account">) {
  process.env.CRYPTO_SWAP_BASE_URL = sandbox.baseUrl
  process.env.CRYPTO_SWAP_GRAPHQL_URL = sandbox.graphqlUrl
  process.env.CRYPTO_SWAP_PAY_URL = sandbox.payUrl
  process.env.CRYPTO_SWAP_ACCOUNT_ID = sandbox.account.id
  process.env.CRYPTO_SWAP_PRIVATE_KEY = sandbox.account.secret
}

async function call(url: string, method: string, body?: unknown) {
  const response = await fetch(url, {
    method,
    headers: { "content-type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  })
  const text = await response.text()
  if (!response.ok) throw new Error(`Sandbox control ${method} ${url} answered ${response.status}: ${text}`)
  return text ? JSON.parse(text) : undefined
}

/** An upstream API request as the sandbox logged it (the control interface is never logged). */
export type LoggedRequest = { method: string; path: string; query: any; status: number | null; userIp?: string; receivedAt: string }

/** A logged request about the shift: on its own path, or a bulk read naming it among its ids. */
export function asksAbout(request: Pick<LoggedRequest, "path" | "query">, shiftId: string): boolean {
  return request.path.includes(shiftId) || String(request.query?.ids ?? "").split(",").includes(shiftId)
}

/** The sandbox's control interface, as tests and dry runs use it. */
export function sandboxControl(baseUrl: string) {
  return {
    deposit: (shiftId: string, body: { amount?: string; txid?: string } = {}) =>
      call(`${baseUrl}/sandbox/shifts/${shiftId}/deposit`, "POST", body),
    setStatus: (shiftId: string, status: string, issue?: string) =>
      call(`${baseUrl}/sandbox/shifts/${shiftId}/status`, "POST", { status, issue }),
    /** Releases a variable deposit from review at the rate of its release: it settles `settleAmount`. */
    settleFromReview: (shiftId: string, settleAmount: string) =>
      call(`${baseUrl}/sandbox/shifts/${shiftId}/status`, "POST", { status: "settled", settleAmount }),
    /** Moves one deposit of a shift with several (`deposits[depositIndex]`). */
    setDepositStatus: (shiftId: string, depositIndex: number, status: string) =>
      call(`${baseUrl}/sandbox/shifts/${shiftId}/status`, "POST", { status, depositIndex }),
    /** Walks a shift through statuses one transition at a time, as the service would. */
    async walk(shiftId: string, statuses: string[]) {
      for (const status of statuses) await this.setStatus(shiftId, status)
    },
    /** Does what a payer does on the hosted checkout's page: picks a coin, which creates the checkout's shift. */
    async payCheckout(checkoutId: string, coin: string, network: string): Promise<{ id: string }> {
      const response = await fetch(`${baseUrl}/checkout/${checkoutId}/shifts`, {
        method: "POST",
        body: new URLSearchParams({ deposit: `${coin}-${network}` }),
        redirect: "manual",
      })
      if (response.status !== 303) throw new Error(`The pay page refused the coin: ${response.status} ${await response.text()}`)
      const checkout = await call(`${baseUrl}/v2/checkout/${checkoutId}`, "GET")
      return { id: checkout.orders[0].id }
    },
    advanceClock: (advanceSeconds: number) => call(`${baseUrl}/sandbox/clock`, "POST", { advanceSeconds }),
    addFault: (fault: Record<string, unknown>) => call(`${baseUrl}/sandbox/faults`, "POST", fault),
    clearFaults: () => call(`${baseUrl}/sandbox/faults`, "DELETE"),
    requests: () => call(`${baseUrl}/sandbox/requests`, "GET"),
    /** The logged upstream requests with this method and path. */
    async requestsTo(method: string, path: string | RegExp): Promise<LoggedRequest[]> {
      const entries: LoggedRequest[] = await this.requests()
      return entries.filter((entry) => entry.method === method && (typeof path === "string" ? entry.path === path : path.test(entry.path)))
    },
    clearRequests: () => call(`${baseUrl}/sandbox/requests`, "DELETE"),
    reset: () => call(`${baseUrl}/sandbox/reset`, "POST"),
    /** Changes the sandbox's behaviour (blocked IPs, rate limits …). */
    configure: (update: Record<string, unknown>) => call(`${baseUrl}/sandbox/config`, "POST", update),
  }
}
