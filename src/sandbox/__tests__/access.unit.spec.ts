import { startSandbox } from ".."
import { END_USER_IP, EVM_ADDRESS, SandboxClient, useSandbox } from "./sandbox-client"

describe("sandbox authentication and end users", () => {
  const client = useSandbox({ blockedIps: ["198.51.100.9"] })

  it("answers 401 without a secret or with the documentation's example, 404 Account not found for an unknown one", async () => {
    expect((await client().quote()).status).toBe(201)
    const noSecret = await client().post("/v2/quotes", {}, { "x-user-ip": END_USER_IP })
    expect(noSecret.status).toBe(401)
    const example = await client().post("/v2/quotes", {}, { "x-service-secret": "<PRIVATE_KEY>", "x-user-ip": END_USER_IP })
    expect(example.status).toBe(401)
    expect(example.body.error.message).toBe("Invalid x-service-secret header")
    expect(noSecret.body.error.message).toBe("Missing x-service-secret header")
    const unknown = await client().post("/v2/shifts/variable", {}, { "x-service-secret": "f".repeat(32), "x-user-ip": END_USER_IP })
    expect(unknown.status).toBe(404)
    expect(unknown.body).toEqual({ error: { message: "Account not found" } })
    expect((await client().post("/v2/checkout", {}, { "x-user-ip": END_USER_IP })).status).toBe(401)
    expect((await client().get(`/v2/pairs?pairs=btc,eth&affiliateId=${client().account.id}`, { "x-service-secret": "nope" })).status).toBe(404)
  })

  it("creates accounts without auth, usable at once as secret and as affiliateId", async () => {
    const created = await client().post("/create-account", undefined, {})
    expect(created.status).toBe(201)
    expect(created.body).toEqual({ id: expect.any(String), secret: expect.any(String) })
    const quote = await client().post(
      "/v2/quotes",
      { affiliateId: created.body.id, depositCoin: "BTC", depositNetwork: "bitcoin", settleCoin: "ETH", settleNetwork: "base", settleAmount: "0.05" },
      { "x-service-secret": created.body.secret, "x-user-ip": END_USER_IP }
    )
    expect(quote.status).toBe(201)
    expect(quote.body.affiliateId).toBe(created.body.id)
    expect((await client().quote({ affiliateId: "not-an-account" })).status).toBe(400)
  })

  it("requires x-user-ip on creations and refuses blocked end users with 403 Access denied", async () => {
    const headers = { "x-service-secret": client().account.secret }
    const noIp = await client().post("/v2/quotes", {}, headers)
    expect(noIp.status).toBe(400)
    expect(noIp.body.error.message).toMatch(/x-user-ip/)
    expect((await client().post("/v2/quotes", {}, { ...headers, "x-user-ip": "not-an-ip" })).status).toBe(400)
    const blocked = await client().post("/v2/shifts/variable", {}, { ...headers, "x-user-ip": "198.51.100.9" })
    expect(blocked.status).toBe(403)
    expect(blocked.body.error).toEqual({ message: "Access denied", code: "FORBIDDEN" })
  })

  it("tells through permissions whether an end user may create shifts, and follows config changes", async () => {
    expect((await client().get("/v2/permissions", { "x-user-ip": END_USER_IP })).body).toEqual({ createShift: true })
    expect((await client().get("/v2/permissions", { "x-user-ip": "198.51.100.9" })).body).toEqual({ createShift: false })
    await client().post("/sandbox/config", { blockedIps: [END_USER_IP] })
    expect((await client().get("/v2/permissions", { "x-user-ip": END_USER_IP })).body).toEqual({ createShift: false })
    expect((await client().quote()).status).toBe(403)
  })

  it("answers unknown paths and malformed JSON with the error body", async () => {
    const unknown = await client().get("/v2/nothing-here")
    expect(unknown.status).toBe(404)
    expect(unknown.body.error.code).toBe("METHOD_NOT_FOUND")
    const response = await fetch(`${client().sandbox.baseUrl}/v2/quotes`, { method: "POST", headers: { ...client().authHeaders, "content-type": "application/json" }, body: "{oops" })
    expect(response.status).toBe(400)
    expect((await response.json()).error.code).toBe("BAD_USER_INPUT")
  })
})

describe("sandbox rate limits by x-user-ip", () => {
  const client = useSandbox({ rateLimits: { quotesPerMinute: 2, shiftsPerMinute: 1 }, rateLimitBy: "user-ip" })

  it("answers 429 Rate limit exceeded with Retry-After, per end user and per kind, until the minute has passed", async () => {
    expect((await client().quote()).status).toBe(201)
    await client().advanceClock(20)
    expect((await client().quote()).status).toBe(201)
    const limited = await client().quote()
    expect(limited.status).toBe(429)
    expect(limited.body).toEqual({ error: { message: "Rate limit exceeded" } })
    expect(limited.headers.get("retry-after")).toBe("40")

    // Another end user has their own budget; shift creations have theirs.
    expect((await client().quote()).status).toBe(429)
    const otherUser = await client().post("/v2/quotes", { affiliateId: client().account.id, depositCoin: "BTC", depositNetwork: "bitcoin", settleCoin: "USDC", settleNetwork: "ethereum", settleAmount: "100" }, { ...client().authHeaders, "x-user-ip": "192.0.2.1" })
    expect(otherUser.status).toBe(201)
    expect((await client().variableShiftRequest()).status).toBe(201)
    expect((await client().variableShiftRequest()).status).toBe(429)

    await client().advanceClock(40)
    expect((await client().quote()).status).toBe(201)
  })

  it("can be switched off at run time", async () => {
    await client().post("/sandbox/config", { rateLimits: {} })
    for (let i = 0; i < 4; i++) {
      expect((await client().quote()).status).toBe(201)
    }
  })
})

describe("sandbox rate limits by connection (the default)", () => {
  const client = useSandbox({ rateLimits: { quotesPerMinute: 2, shiftsPerMinute: 1 } })
  const quoteFor = (userIp: string) =>
    client().post(
      "/v2/quotes",
      { affiliateId: client().account.id, depositCoin: "BTC", depositNetwork: "bitcoin", settleCoin: "USDC", settleNetwork: "ethereum", settleAmount: "100" },
      { ...client().authHeaders, "x-user-ip": userIp }
    )

  it("shares one budget among all end users of one calling address, as a busy store meets it", async () => {
    expect(client().sandbox.settings().rateLimitBy).toBe("connection")
    expect((await quoteFor("192.0.2.1")).status).toBe(201)
    expect((await quoteFor("192.0.2.2")).status).toBe(201)
    const third = await quoteFor("192.0.2.3")
    expect(third.status).toBe(429)
    expect(third.body).toEqual({ error: { message: "Rate limit exceeded" } })
  })

  it("can switch to keying on x-user-ip at run time", async () => {
    expect((await client().post("/sandbox/config", { rateLimitBy: "user-ip" })).body.rateLimitBy).toBe("user-ip")
    for (const ip of ["192.0.2.1", "192.0.2.2", "192.0.2.3"]) {
      expect((await quoteFor(ip)).status).toBe(201)
    }
    expect((await client().post("/sandbox/config", { rateLimitBy: "nope" })).status).toBe(400)
  })
})

describe("sandbox secret header option", () => {
  it("reads the secret from the configured header", async () => {
    const sandbox = await startSandbox({ secretHeader: "x-other-secret", account: { id: "acct1", secret: "s3cret" } })
    try {
      const client = new SandboxClient(sandbox)
      expect(sandbox.account).toEqual({ id: "acct1", secret: "s3cret" })
      const headers = { "x-other-secret": "s3cret", "x-user-ip": END_USER_IP }
      const shift = await client.post("/v2/shifts/variable", { affiliateId: "acct1", depositCoin: "LTC", depositNetwork: "litecoin", settleCoin: "USDC", settleNetwork: "base", settleAddress: EVM_ADDRESS }, headers)
      expect(shift.status).toBe(201)
      expect((await client.variableShiftRequest()).status).toBe(401)
    } finally {
      await sandbox.close()
    }
  })
})
