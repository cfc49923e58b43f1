import { startSandbox, type Sandbox, type SandboxOptions } from ".."

// A thin HTTP client for the sandbox tests: every test talks to a real sandbox over loopback.

export type Reply = { status: number; body: any; text: string; headers: Headers }

export const END_USER_IP = "203.0.113.7"
export const EVM_ADDRESS = "0x52908400098527886E0F7030069857D2E4169EE7"
export const BTC_ADDRESS = "bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq"
export const XRP_ADDRESS = "rPT1Sjq2YGrBMTttX4GZHjKu9dyfzbpAYe"
export const SOL_ADDRESS = "9WzDXwBbmkg8ZTbNMqUxvQRAyrZzDsGYdLVL9zYtAWWM"

/** The pair most tests trade: BTC in, USDC on Ethereum out. */
const DEFAULT_PAIR = { depositCoin: "BTC", depositNetwork: "bitcoin", settleCoin: "USDC", settleNetwork: "ethereum" }

export class SandboxClient {
  constructor(readonly sandbox: Sandbox) {}

  get account() {
    return this.sandbox.account
  }

  /** The secret alone: what cancel-order and set-refund-address need. */
  get secretHeaders(): Record<string, string> {
    return { "x-service-secret": this.sandbox.account.secret }
  }

  /** The headers an integration's server sends on creations. */
  get authHeaders(): Record<string, string> {
    return { "x-service-secret": this.sandbox.account.secret, "x-user-ip": END_USER_IP }
  }

  async request(method: string, path: string, options: { body?: unknown; headers?: Record<string, string> } = {}): Promise<Reply> {
    const response = await fetch(this.sandbox.baseUrl + path, {
      method,
      headers: { "content-type": "application/json", ...(options.headers ?? this.authHeaders) },
      body: options.body === undefined ? undefined : JSON.stringify(options.body),
    })
    const text = await response.text()
    let body: unknown = undefined
    try {
      body = text ? JSON.parse(text) : undefined
    } catch {
      body = undefined
    }
    return { status: response.status, body, text, headers: response.headers }
  }

  post(path: string, body?: unknown, headers?: Record<string, string>): Promise<Reply> {
    return this.request("POST", path, { body, headers })
  }

  get(path: string, headers?: Record<string, string>): Promise<Reply> {
    return this.request("GET", path, { headers })
  }

  quote(overrides: Record<string, unknown> = {}): Promise<Reply> {
    return this.post("/v2/quotes", { affiliateId: this.account.id, ...DEFAULT_PAIR, settleAmount: "100", ...overrides })
  }

  /** A quote and a fixed shift from it; fails the test if either is refused. */
  async fixedShift(quoteOverrides: Record<string, unknown> = {}, shiftOverrides: Record<string, unknown> = {}): Promise<any> {
    const quote = await this.quote(quoteOverrides)
    expect(quote.status).toBe(201)
    const shift = await this.post("/v2/shifts/fixed", {
      quoteId: quote.body.id,
      affiliateId: this.account.id,
      settleAddress: EVM_ADDRESS,
      ...shiftOverrides,
    })
    expect(shift.status).toBe(201)
    return shift.body
  }

  variableShiftRequest(overrides: Record<string, unknown> = {}): Promise<Reply> {
    return this.post("/v2/shifts/variable", { affiliateId: this.account.id, ...DEFAULT_PAIR, settleAddress: EVM_ADDRESS, ...overrides })
  }

  async variableShift(overrides: Record<string, unknown> = {}): Promise<any> {
    const shift = await this.variableShiftRequest(overrides)
    expect(shift.status).toBe(201)
    return shift.body
  }

  deposit(shiftId: string, body: Record<string, unknown> = {}): Promise<Reply> {
    return this.post(`/sandbox/shifts/${shiftId}/deposit`, body)
  }

  setStatus(shiftId: string, status: string, extra: Record<string, unknown> = {}): Promise<Reply> {
    return this.post(`/sandbox/shifts/${shiftId}/status`, { status, ...extra })
  }

  advanceClock(seconds: number): Promise<Reply> {
    return this.post("/sandbox/clock", { advanceSeconds: seconds })
  }

  payUrlOf(checkoutId: string): string {
    return `${this.sandbox.payUrl}/checkout/${checkoutId}`
  }

  shift(id: string): Promise<Reply> {
    return this.get(`/v2/shifts/${id}`, {})
  }
}

/** Starts a sandbox for a test file and resets it between tests. */
export function useSandbox(options: SandboxOptions = {}): () => SandboxClient {
  let client: SandboxClient | undefined
  beforeAll(async () => {
    client = new SandboxClient(await startSandbox(options))
  })
  afterEach(() => client?.sandbox.reset())
  afterAll(async () => {
    await client?.sandbox.close()
  })
  return () => client as SandboxClient
}
