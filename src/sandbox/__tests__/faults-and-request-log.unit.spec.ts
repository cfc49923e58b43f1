import { startSandbox } from ".."
import { useSandbox } from "./sandbox-client"

describe("sandbox fault injection", () => {
  const client = useSandbox()

  it("answers with an injected status and raw body, for the given number of requests", async () => {
    const fault = await client().post("/sandbox/faults", { method: "get", path: "/v2/shifts/*", status: 502, body: "{\"error\": not json", times: 2 })
    expect(fault.status).toBe(201)
    expect(fault.body).toEqual(expect.objectContaining({ id: expect.any(String), path: "/v2/shifts/*", times: 2 }))
    const shift = await client().fixedShift()
    for (let i = 0; i < 2; i++) {
      const faulted = await client().shift(shift.id)
      expect(faulted.status).toBe(502)
      expect(faulted.text).toBe("{\"error\": not json")
      expect(faulted.headers.get("content-type")).toMatch(/application\/json/)
    }
    expect((await client().shift(shift.id)).status).toBe(200)
  })

  it("matches method and path exactly apart from * wildcards", async () => {
    await client().post("/sandbox/faults", { method: "POST", path: "/v2/quotes", status: 503 })
    expect((await client().get("/v2/coins", {})).status).toBe(200)
    const shift = await client().variableShift()
    expect((await client().shift(shift.id)).status).toBe(200)
    const faulted = await client().quote()
    expect(faulted.status).toBe(503)
    expect(faulted.body).toEqual({ error: { message: "Injected fault" } })
  })

  it("delays answers, alone or before a fault, without affecting the sandbox clock", async () => {
    await client().post("/sandbox/faults", { path: "/v2/coins", delayMs: 150, times: 1 })
    const startedAt = performance.now()
    const slow = await client().get("/v2/coins", {})
    expect(slow.status).toBe(200)
    expect(performance.now() - startedAt).toBeGreaterThanOrEqual(140)

    await client().post("/sandbox/faults", { path: "/v2/permissions", delayMs: 50, status: 500, times: 1 })
    expect((await client().get("/v2/permissions", {})).status).toBe(500)
  })

  it("resets the connection", async () => {
    await client().post("/sandbox/faults", { path: "/v2/coins", reset: true, times: 1 })
    await expect(client().get("/v2/coins", {})).rejects.toThrow()
    expect((await client().get("/v2/coins", {})).status).toBe(200)
    const logged = (await client().get("/sandbox/requests")).body
    expect(logged.map((entry: any) => entry.status)).toEqual([null, 200])
  })

  it("keeps several faults, lists them and clears them all", async () => {
    await client().post("/sandbox/faults", { path: "/v2/coins", status: 500 })
    await client().post("/sandbox/faults", { path: "/v2/permissions", status: 500 })
    expect((await client().get("/sandbox/faults")).body).toHaveLength(2)
    expect((await client().request("DELETE", "/sandbox/faults")).status).toBe(204)
    expect((await client().get("/v2/coins", {})).status).toBe(200)
    expect((await client().get("/v2/permissions", {})).status).toBe(200)
  })

  it("refuses a malformed fault", async () => {
    expect((await client().post("/sandbox/faults", { path: "no-slash" })).status).toBe(400)
  })
})

describe("sandbox request log", () => {
  const client = useSandbox()

  it("logs API requests with header names but never the secret, and can be cleared", async () => {
    const shift = await client().fixedShift({}, { externalId: "ext-1" })
    await client().shift(shift.id)
    const log = (await client().get("/sandbox/requests")).body
    expect(log.map((entry: any) => `${entry.method} ${entry.path} ${entry.status}`)).toEqual([
      "POST /v2/quotes 201",
      "POST /v2/shifts/fixed 201",
      `GET /v2/shifts/${shift.id} 200`,
    ])
    expect(log[1].headers).toEqual(expect.arrayContaining(["x-service-secret", "x-user-ip"]))
    expect(log[1].body.externalId).toBe("ext-1")
    expect(log[1].userIp).toBe("203.0.113.7")
    expect(JSON.stringify(log)).not.toContain(client().account.secret)
    expect(client().sandbox.requests()).toHaveLength(3)

    expect((await client().request("DELETE", "/sandbox/requests")).status).toBe(204)
    expect((await client().get("/sandbox/requests")).body).toEqual([])
  })

  it("keeps the secret out of log lines", async () => {
    const lines: string[] = []
    const sandbox = await startSandbox({ logger: (line) => lines.push(line) })
    try {
      await fetch(`${sandbox.baseUrl}/v2/permissions`, { headers: { "x-service-secret": sandbox.account.secret } })
      expect(lines).toEqual([expect.stringMatching(/^GET \/v2\/permissions -> 200/)])
      expect(lines.join("\n")).not.toContain(sandbox.account.secret)
    } finally {
      await sandbox.close()
    }
  })
})

describe("sandbox clock and reset", () => {
  const client = useSandbox()

  it("reads and advances the sandbox clock", async () => {
    const before = Date.parse((await client().get("/sandbox/clock")).body.now)
    const after = Date.parse((await client().advanceClock(3600)).body.now)
    expect(after - before).toBeGreaterThanOrEqual(3600 * 1000)
    expect((await client().advanceClock(-1)).status).toBe(400)
  })

  it("resets state, clock and settings but keeps accounts", async () => {
    const other = (await client().post("/create-account", undefined, {})).body
    const shift = await client().fixedShift()
    await client().post("/sandbox/config", { maxOpenVariableShifts: 0 })
    await client().advanceClock(3600)
    expect((await client().post("/sandbox/reset")).status).toBe(204)
    expect((await client().shift(shift.id)).status).toBe(404)
    expect((await client().get("/sandbox/config")).body.maxOpenVariableShifts).toBe(5)
    expect(Math.abs(Date.parse((await client().get("/sandbox/clock")).body.now) - Date.now())).toBeLessThan(60_000)
    expect((await client().quote({ affiliateId: other.id })).status).toBe(201)
  })
})
