import { createServer } from "node:http"
import type { AddressInfo } from "node:net"
import { request } from "undici"
import { startSandbox, type LoggedRequest, type Sandbox, type SandboxOptions } from "../../../sandbox"
import { SwapServiceClient, SwapServiceError, type RequestMetric, type SwapServiceClientOptions } from ".."

// Client tests run against the sandbox over loopback HTTP: one sandbox per test file, reset between tests.

export const END_USER_IP = "203.0.113.7"
export const AS_END_USER = { userIp: END_USER_IP }
export const EVM_ADDRESS = "0x52908400098527886E0F7030069857D2E4169EE7"
export const BTC_ADDRESS = "bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq"
export const XRP_ADDRESS = "rPT1Sjq2YGrBMTttX4GZHjKu9dyfzbpAYe"
/** A client timeout for tests of timeouts: far above any loopback answer, even on a loaded machine. */
export const SHORT_TIMEOUT_MS = 1_000
/** A fault's delay that always outlasts SHORT_TIMEOUT_MS. */
export const LATE_ANSWER_MS = 3_000
/** The pair most tests trade: BTC in, USDC on Ethereum out. */
export const BTC_TO_USDC = { depositCoin: "BTC", depositNetwork: "bitcoin", settleCoin: "USDC", settleNetwork: "ethereum" }

export type Harness = {
  sandbox(): Sandbox
  /** A client of the sandbox's account; closed after the file. Fast retries unless overridden. */
  client(overrides?: Partial<SwapServiceClientOptions>): SwapServiceClient
  /** A client and every metric it reports. */
  measuredClient(overrides?: Partial<SwapServiceClientOptions>): { client: SwapServiceClient; metrics: RequestMetric[] }
  /** API requests the sandbox received (never control requests), optionally of one method and path pattern. */
  upstream(method?: string, path?: RegExp): LoggedRequest[]
}

export function useSandboxClient(options: SandboxOptions = {}): Harness {
  let sandbox: Sandbox | undefined
  const clients: SwapServiceClient[] = []
  beforeAll(async () => {
    sandbox = await startSandbox(options)
  })
  afterEach(() => sandbox?.reset())
  afterAll(async () => {
    // The sandbox is closed even if a client fails to close, so the test run can end.
    const closed = await Promise.allSettled(clients.map((client) => client.close()))
    await sandbox?.close()
    for (const result of closed) if (result.status === "rejected") throw result.reason
  })

  const current = () => {
    if (!sandbox) throw new Error("The sandbox has not started")
    return sandbox
  }
  const client = (overrides: Partial<SwapServiceClientOptions> = {}) => {
    const { baseUrl, graphqlUrl, payUrl, account } = current()
    const created = new SwapServiceClient({
      baseUrl,
      graphqlUrl,
      payUrl,
      accountId: account.id,
      privateKey: account.secret,
      retryBaseDelayMs: 5,
      ...overrides,
    })
    clients.push(created)
    return created
  }
  return {
    sandbox: current,
    client,
    measuredClient(overrides = {}) {
      const metrics: RequestMetric[] = []
      return { client: client({ onMetric: (metric) => metrics.push(metric), ...overrides }), metrics }
    },
    upstream(method, path) {
      return current()
        .requests()
        .filter((request) => (!method || request.method === method) && (!path || path.test(request.path)))
    },
  }
}

/** The SwapServiceError a promise rejects with (fails the test if it resolves or throws anything else). */
export async function failureOf(promise: Promise<unknown>): Promise<SwapServiceError> {
  try {
    await promise
  } catch (error) {
    expect(error).toBeInstanceOf(SwapServiceError)
    return error as SwapServiceError
  }
  throw new Error("Expected the call to fail")
}


/** Hop-by-hop headers a proxy does not forward. */
const HOP_BY_HOP = new Set(["host", "connection", "keep-alive", "transfer-encoding", "content-length"])
const forwardable = (headers: Record<string, string | string[] | undefined>) =>
  Object.fromEntries(Object.entries(headers).filter(([name, value]) => value !== undefined && !HOP_BY_HOP.has(name.toLowerCase()))) as Record<string, string | string[]>

/**
 * A proxy in front of the sandbox that, once, lets a matching request be fully handled upstream and
 * then drops the client's connection instead of answering: the service acted, the client never heard.
 * The sandbox's own faults cannot do this (they act before the request is handled).
 */
export async function startAnswerLosingProxy(targetBaseUrl: string, loses: (method: string, path: string) => boolean) {
  let answerLost = false
  const server = createServer(async (req, res) => {
    const chunks: Buffer[] = []
    for await (const chunk of req) chunks.push(chunk as Buffer)
    const upstream = await request(`${targetBaseUrl}${req.url}`, {
      method: req.method as "GET" | "POST",
      headers: forwardable(req.headers),
      body: chunks.length ? Buffer.concat(chunks) : undefined,
    })
    const body = Buffer.from(await upstream.body.arrayBuffer())
    if (!answerLost && loses(req.method ?? "", req.url ?? "")) {
      answerLost = true
      req.socket.destroy()
      return
    }
    res.writeHead(upstream.statusCode, forwardable(upstream.headers))
    res.end(body)
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  return {
    baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      }),
  }
}

/** A checkout paying 25 USDC on Ethereum to the merchant. */
export const USDC_CHECKOUT = {
  settleCoin: "USDC",
  settleNetwork: "ethereum",
  settleAmount: "25",
  settleAddress: EVM_ADDRESS,
  successUrl: "https://shop.example/ok",
  cancelUrl: "https://shop.example/cancel",
}

/** What the payer does on the pay page: pick a coin, which makes a fixed shift for the checkout. */
export async function payerPicksCoin(payUrl: string, deposit = "btc-bitcoin"): Promise<void> {
  const picked = await request(`${payUrl}/shifts`, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: `deposit=${encodeURIComponent(deposit)}`,
  })
  await picked.body.dump()
  expect(picked.statusCode).toBe(303)
}
