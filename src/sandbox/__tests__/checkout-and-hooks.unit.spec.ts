import { createServer, type Server } from "node:http"
import type { AddressInfo } from "node:net"
import { BTC_ADDRESS, EVM_ADDRESS, SandboxClient, XRP_ADDRESS, useSandbox } from "./sandbox-client"

const NINE_DIGIT_TIMESTAMP = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{9}Z$/

/** A local webhook target: records what it receives, answers 500 under /fail. */
async function startReceiver() {
  const received: { path: string; body: any }[] = []
  const server: Server = createServer((req, res) => {
    let text = ""
    req.on("data", (chunk) => (text += chunk))
    req.on("end", () => {
      received.push({ path: req.url ?? "", body: JSON.parse(text) })
      res.statusCode = req.url?.startsWith("/fail") ? 500 : 200
      res.end("ok")
    })
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  return { url, received, close: () => new Promise<void>((resolve) => server.close(() => resolve())) }
}

function checkoutBody(client: SandboxClient, overrides: Record<string, unknown> = {}) {
  return {
    settleCoin: "USDC",
    settleNetwork: "polygon",
    settleAmount: "25.5",
    settleAddress: EVM_ADDRESS,
    affiliateId: client.account.id,
    successUrl: "https://shop.example/success",
    cancelUrl: "https://shop.example/cancel",
    ...overrides,
  }
}

async function createCheckout(client: SandboxClient, overrides: Record<string, unknown> = {}) {
  const reply = await client.post("/v2/checkout", checkoutBody(client, overrides))
  expect(reply.status).toBe(201)
  return reply.body
}

/** Submits a pay-page form the way a browser does. */
function submitForm(client: SandboxClient, path: string, fields: Record<string, string> = {}) {
  return fetch(client.sandbox.baseUrl + path, {
    method: "POST",
    redirect: "manual",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams(fields).toString(),
  })
}

async function payWith(client: SandboxClient, checkoutId: string, deposit: string): Promise<any> {
  const response = await submitForm(client, `/checkout/${checkoutId}/shifts`, { deposit })
  expect(response.status).toBe(303)
  const checkout = (await client.get(`/v2/checkout/${checkoutId}`, {})).body
  return (await client.shift(checkout.orders[0].id)).body
}

async function graphql(client: SandboxClient, query: string, headers: Record<string, string> = { "x-service-secret": client.account.secret }) {
  const response = await fetch(client.sandbox.graphqlUrl, { method: "POST", headers: { "content-type": "application/json", ...headers }, body: JSON.stringify({ query }) })
  return { status: response.status, body: (await response.json()) as any }
}

const createHookMutation = (targetUrl: string) => `mutation { createHook(targetUrl: ${JSON.stringify(targetUrl)}) { id createdAt updatedAt targetUrl enabled } }`

describe("sandbox hosted checkout", () => {
  const client = useSandbox()

  it("creates a checkout with nine-digit timestamps, strictly increasing", async () => {
    const first = await createCheckout(client())
    const second = await createCheckout(client(), { settleMemo: undefined })
    expect(first).toEqual({
      id: expect.any(String),
      settleCoin: "USDC",
      settleNetwork: "polygon",
      settleAmount: "25.5",
      settleAddress: EVM_ADDRESS,
      affiliateId: client().account.id,
      successUrl: "https://shop.example/success",
      cancelUrl: "https://shop.example/cancel",
      createdAt: expect.stringMatching(NINE_DIGIT_TIMESTAMP),
      updatedAt: first.createdAt,
    })
    expect(second.createdAt > first.createdAt).toBe(true)
  })

  it("stamps checkouts with the sandbox clock's time, equal on creation, also after the clock moved and after a reset", async () => {
    /** The sandbox clock's millisecond is the stamp's; the six digits below it only order stamps within it. */
    const sandboxNow = async () => Date.parse((await client().get("/sandbox/clock", {})).body.now)
    const expectStampedNow = async (checkout: any, before: number) => {
      expect(checkout.createdAt).toMatch(NINE_DIGIT_TIMESTAMP)
      expect(checkout.updatedAt).toBe(checkout.createdAt)
      expect(Date.parse(checkout.createdAt)).toBeGreaterThanOrEqual(before)
      expect(Date.parse(checkout.createdAt)).toBeLessThanOrEqual(await sandboxNow())
    }
    await client().advanceClock(24 * 60 * 60)
    const tomorrow = await sandboxNow()
    await expectStampedNow(await createCheckout(client()), tomorrow)

    await client().post("/sandbox/reset", {})
    const today = await sandboxNow()
    expect(today).toBeLessThan(tomorrow)
    await expectStampedNow(await createCheckout(client()), today)
  })

  it("validates the checkout like the service", async () => {
    expect((await client().post("/v2/checkout", checkoutBody(client(), { successUrl: "not a url" }))).status).toBe(400)
    expect((await client().post("/v2/checkout", checkoutBody(client(), { settleAddress: BTC_ADDRESS }))).status).toBe(400)
    const memo = await client().post("/v2/checkout", checkoutBody(client(), { settleMemo: "7" }))
    expect(memo.status).toBe(500)
    expect(memo.body.error.message).toBe("Memo is not supported for this settle coin")
    expect((await client().post("/v2/checkout", checkoutBody(client()), { "x-service-secret": client().account.secret })).status).toBe(400)
    // Spec 2.6: settleMemo is "required if the coin uses a memo or tag"; a checkout without one is refused.
    const xrp = { settleCoin: "XRP", settleNetwork: "ripple", settleAddress: XRP_ADDRESS }
    const noTag = await client().post("/v2/checkout", checkoutBody(client(), xrp))
    expect(noTag.status).toBe(400)
    expect(noTag.body.error).toEqual({ message: "Invalid parameters: settleMemo", code: "BAD_USER_INPUT" })
    expect((await client().post("/v2/checkout", checkoutBody(client(), { ...xrp, settleMemo: "7" }))).status).toBe(201)
    const missing = await client().get("/v2/checkout/unknown", {})
    expect(missing.status).toBe(404)
    expect(missing.body.error.message).toBe("Checkout not found")
  })

  it("lists the checkout's shifts in orders, latest first, with their deposits", async () => {
    const checkout = await createCheckout(client())
    expect((await client().get(`/v2/checkout/${checkout.id}`, {})).body.orders).toEqual([])
    const first = await payWith(client(), checkout.id, "btc-bitcoin")
    const second = await payWith(client(), checkout.id, "eth-base")
    await client().deposit(second.id, { txid: "0xdeposit" })
    await client().setStatus(second.id, "processing")
    await client().setStatus(second.id, "settling")
    const fetched = (await client().get(`/v2/checkout/${checkout.id}`, {})).body
    const settleHash = (await client().shift(second.id)).body.settleHash
    expect(fetched.orders).toEqual([
      { id: second.id, deposits: [{ depositHash: "0xdeposit", settleHash }] },
      { id: first.id, deposits: [] },
    ])
    expect(fetched.updatedAt > fetched.createdAt).toBe(true)
    expect(fetched.updatedAt).toMatch(NINE_DIGIT_TIMESTAMP)
    expect(second).toEqual(expect.objectContaining({ type: "fixed", settleAmount: "25.5", settleCoin: "USDC", settleNetwork: "polygon", settleAddress: EVM_ADDRESS }))
  })
})

describe("sandbox pay page", () => {
  const client = useSandbox()

  it("renders a self-contained page with every value escaped", async () => {
    const checkout = await createCheckout(client(), { cancelUrl: "https://shop.example/cancel?x=\"><script>alert(1)</script>" })
    const response = await fetch(`${client().payUrlOf(checkout.id)}`)
    expect(response.status).toBe(200)
    expect(response.headers.get("content-type")).toMatch(/text\/html/)
    const page = await response.text()
    expect(page).toContain("Pay 25.5 USDC")
    expect(page).toContain("SANDBOX")
    expect(page).toContain('<option value="btc-bitcoin">')
    expect(page).not.toContain('<option value="eth-zksync">') // deposit-variable-only: no fixed shift possible
    expect(page).not.toContain("<script>")
    expect(page).toContain("&lt;script&gt;")
    expect(page).not.toMatch(/(src|href)="https?:\/\/(?!shop\.example)/)
    expect((await fetch(client().payUrlOf("nope"))).status).toBe(404)
  })

  it("creates a shift for the payer's coin, simulates the deposit and links to successUrl once settled", async () => {
    const checkout = await createCheckout(client())
    const created = await submitForm(client(), `/checkout/${checkout.id}/shifts`, { deposit: "xrp-ripple" })
    expect(created.status).toBe(303)
    expect(created.headers.get("location")).toBe(`/checkout/${checkout.id}`)
    const shiftId = (await client().get(`/v2/checkout/${checkout.id}`, {})).body.orders[0].id
    const shift = (await client().shift(shiftId)).body

    let page = await (await fetch(client().payUrlOf(checkout.id))).text()
    for (const shown of [shift.depositAddress, shift.depositMemo, shift.depositAmount, shift.expiresAt, "waiting", "Simulate deposit", "https://shop.example/cancel"]) {
      expect(page).toContain(shown)
    }

    expect((await submitForm(client(), `/checkout/${checkout.id}/simulate-deposit`)).status).toBe(303)
    expect((await client().shift(shiftId)).body.status).toBe("pending")
    for (const status of ["processing", "settling", "settled"]) {
      await client().setStatus(shiftId, status)
    }
    page = await (await fetch(client().payUrlOf(checkout.id))).text()
    expect(page).toContain('href="https://shop.example/success"')
    expect(page).not.toContain("Simulate deposit")
  })

  it("shows the service's refusal on the page", async () => {
    const checkout = await createCheckout(client())
    const response = await submitForm(client(), `/checkout/${checkout.id}/shifts`, { deposit: "nope-nowhere" })
    expect(response.status).toBe(500)
    expect(await response.text()).toContain("Invalid coin")
  })
})

describe("sandbox webhooks over GraphQL", () => {
  const client = useSandbox()

  it("creates and deletes hooks", async () => {
    const created = await graphql(client(), createHookMutation("https://merchant.example/hooks"))
    expect(created.status).toBe(200)
    expect(created.body.data.createHook).toEqual({
      id: expect.any(String),
      createdAt: expect.any(String),
      updatedAt: expect.any(String),
      targetUrl: "https://merchant.example/hooks",
      enabled: true,
    })
    const id = created.body.data.createHook.id
    expect((await graphql(client(), `mutation { deleteHook(id: "${id}") }`)).body).toEqual({ data: { deleteHook: true } })
  })

  it("answers errors with HTTP 200 and an errors array", async () => {
    for (const [query, headers, message] of [
      [createHookMutation("https://merchant.example/hooks"), {}, /Missing x-service-secret/],
      [createHookMutation("https://merchant.example/hooks"), { "x-service-secret": "wrong" }, /Account not found/],
      [createHookMutation("ftp://merchant.example/hooks"), undefined, /Invalid URL/],
      ['mutation { deleteHook(id: "unknown") }', undefined, /Hook not found/],
      ["mutation { createHook(", undefined, /Syntax Error/],
    ] as const) {
      const reply = await graphql(client(), query, headers ?? { "x-service-secret": client().account.secret })
      expect(reply.status).toBe(200)
      expect(reply.body.errors[0].message).toMatch(message)
    }
  })

  it("keeps hooks per account", async () => {
    const other = (await client().post("/create-account", undefined, {})).body
    const id = (await graphql(client(), createHookMutation("https://merchant.example/hooks"))).body.data.createHook.id
    const foreign = await graphql(client(), `mutation { deleteHook(id: "${id}") }`, { "x-service-secret": other.secret })
    expect(foreign.body.errors[0].message).toMatch(/Hook not found/)
  })
})

describe("sandbox checkout notifications", () => {
  const client = useSandbox()
  let receiver: Awaited<ReturnType<typeof startReceiver>>

  beforeAll(async () => {
    receiver = await startReceiver()
  })
  afterAll(() => receiver.close())
  beforeEach(() => {
    receiver.received.length = 0
  })

  it("posts success with the settlement txid when a checkout's shift settles", async () => {
    const hook = (await graphql(client(), createHookMutation(`${receiver.url}/hooks`))).body.data.createHook
    const checkout = await createCheckout(client())
    const shift = await payWith(client(), checkout.id, "ltc-litecoin")
    client().sandbox.deposit(shift.id)
    for (const status of ["processing", "settling", "settled"]) {
      client().sandbox.setStatus(shift.id, { status: status as "settled" })
    }
    await client().sandbox.notificationsSettled()
    const settleHash = client().sandbox.getShift(shift.id).settleHash
    expect(receiver.received).toEqual([
      {
        path: "/hooks",
        body: {
          meta: { hook: { id: hook.id, createdAt: hook.createdAt, updatedAt: hook.updatedAt, enabled: true, accountId: client().account.id, targetUrl: `${receiver.url}/hooks` } },
          payload: { shiftId: shift.id, checkoutId: checkout.id, status: "success", txid: settleHash },
        },
      },
    ])
    const deliveries = (await client().get("/sandbox/notifications")).body
    expect(deliveries).toEqual([expect.objectContaining({ hookId: hook.id, targetUrl: `${receiver.url}/hooks`, responseStatus: 200, completed: true })])
  })

  it("posts fail with the refund txid when a checkout's shift is refunded", async () => {
    await graphql(client(), createHookMutation(`${receiver.url}/hooks`))
    const checkout = await createCheckout(client())
    const shift = await payWith(client(), checkout.id, "btc-bitcoin")
    await client().deposit(shift.id, { amount: "0.5" })
    await client().post(`/v2/shifts/${shift.id}/set-refund-address`, { address: BTC_ADDRESS }, client().secretHeaders)
    await client().setStatus(shift.id, "refunding")
    await client().setStatus(shift.id, "refunded")
    await client().sandbox.notificationsSettled()
    const refundHash = (await client().shift(shift.id)).body.settleHash
    expect(receiver.received.map((entry) => entry.body.payload)).toEqual([{ shiftId: shift.id, checkoutId: checkout.id, status: "fail", txid: refundHash }])
  })

  it("records failing targets without disturbing the sandbox, and notifies nothing for plain shifts", async () => {
    await graphql(client(), createHookMutation(`${receiver.url}/fail`))
    await graphql(client(), createHookMutation("http://127.0.0.1:9/unreachable"))
    const plain = await client().fixedShift()
    client().sandbox.deposit(plain.id)
    client().sandbox.setStatus(plain.id, { status: "processing" })
    client().sandbox.setStatus(plain.id, { status: "settling" })
    client().sandbox.setStatus(plain.id, { status: "settled" })
    expect(client().sandbox.notifications()).toEqual([])

    const checkout = await createCheckout(client())
    const shift = await payWith(client(), checkout.id, "btc-bitcoin")
    await client().setStatus(shift.id, "pending")
    await client().setStatus(shift.id, "review")
    await client().setStatus(shift.id, "settled")
    await client().sandbox.notificationsSettled()
    const deliveries = client().sandbox.notifications()
    expect(deliveries).toHaveLength(2)
    expect(deliveries.find((delivery) => delivery.targetUrl.endsWith("/fail"))?.responseStatus).toBe(500)
    expect(deliveries.find((delivery) => delivery.targetUrl.endsWith("/unreachable"))?.error).toEqual(expect.any(String))
    expect((await client().get("/v2/coins", {})).status).toBe(200)
  })
})
