import path from "node:path"
import { DEFAULT_SANDBOX_PORT, DEFAULT_STATE_FILE, parseSandboxArgs } from "../../cli/sandbox-command"
import { REALISTIC_RATE_LIMITS } from ".."

describe("crypto-swap sandbox arguments", () => {
  it("defaults to realistic rate limits, manual deposits, a fixed port and a state file in the working directory", () => {
    expect(parseSandboxArgs([])).toEqual(
      expect.objectContaining({ port: DEFAULT_SANDBOX_PORT, auto: false, rateLimits: REALISTIC_RATE_LIMITS, rateLimitBy: "connection", stateFile: path.resolve(DEFAULT_STATE_FILE) })
    )
    expect(REALISTIC_RATE_LIMITS).toEqual({ quotesPerMinute: 20, shiftsPerMinute: 5 })
  })

  it("reads every option", () => {
    const options = parseSandboxArgs([
      "--port", "0", "--host", "0.0.0.0", "--auto", "--step-ms", "50", "--blocked-ip", "10.0.0.1", "--blocked-ip", "10.0.0.2",
      "--account-id", "acct", "--secret", "sec", "--rate-limits", "off", "--rate-limit-by", "user-ip", "--state-file", "sandbox/state.json",
    ])
    expect(options).toEqual({
      port: 0,
      host: "0.0.0.0",
      auto: { stepMs: 50 },
      blockedIps: ["10.0.0.1", "10.0.0.2"],
      account: { id: "acct", secret: "sec" },
      rateLimits: {},
      rateLimitBy: "user-ip",
      stateFile: path.resolve("sandbox/state.json"),
    })
    expect(parseSandboxArgs(["--memory"])).toEqual(expect.objectContaining({ stateFile: undefined }))
    expect(parseSandboxArgs(["--auto"])).toEqual(expect.objectContaining({ auto: true }))
    expect(parseSandboxArgs(["--help"])).toBe("help")
  })

  it.each([
    [["--port", "x"]],
    [["--rate-limits", "fast"]],
    [["--rate-limit-by", "header"]],
    [["--account-id", "only"]],
    [["--step-ms", "5"]],
    [["--unknown"]],
    [["--memory", "--state-file", "x.json"]],
  ])("refuses %j", (argv) => {
    expect(() => parseSandboxArgs(argv)).toThrow()
  })
})
