import { useSandbox } from "./sandbox-client"

// Browsers call the public read endpoints directly, so these answer preflights and carry CORS headers.

describe("sandbox CORS on public reads", () => {
  const client = useSandbox()
  const ORIGIN = "https://shop.example"

  const preflight = (path: string, method = "GET") =>
    fetch(client().sandbox.baseUrl + path, {
      method: "OPTIONS",
      headers: { origin: ORIGIN, "access-control-request-method": method, "access-control-request-headers": "x-service-secret,content-type" },
    })

  it.each(["/v2/coins", "/v2/pair/btc-bitcoin/eth-ethereum", "/v2/pairs", "/v2/permissions", "/v2/shifts/abc123"])("answers the preflight of %s", async (path) => {
    const response = await preflight(path)
    expect(response.status).toBe(204)
    expect(response.headers.get("access-control-allow-origin")).toBe("*")
    expect(response.headers.get("access-control-allow-methods")).toContain("GET")
    expect(response.headers.get("access-control-allow-headers")?.toLowerCase()).toContain("x-service-secret")
  })

  it("adds the CORS header to the reads themselves, errors included", async () => {
    const shift = await client().variableShift()
    for (const path of ["/v2/coins", "/v2/permissions", `/v2/shifts/${shift.id}`, "/v2/shifts/unknown"]) {
      const response = await fetch(client().sandbox.baseUrl + path, { headers: { origin: ORIGIN } })
      expect(response.headers.get("access-control-allow-origin")).toBe("*")
    }
  })

  it("leaves creations and the control interface without CORS", async () => {
    const response = await preflight("/v2/quotes", "POST")
    expect(response.headers.get("access-control-allow-origin")).toBeNull()
    const quote = await client().quote()
    expect(quote.headers.get("access-control-allow-origin")).toBeNull()
    const control = await fetch(`${client().sandbox.baseUrl}/sandbox/clock`, { headers: { origin: ORIGIN } })
    expect(control.headers.get("access-control-allow-origin")).toBeNull()
  })

  it("does not log preflights as API traffic", async () => {
    await client().sandbox.clearRequests()
    await preflight("/v2/coins")
    expect(client().sandbox.requests()).toEqual([])
  })
})
