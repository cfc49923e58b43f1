import { startSandbox, type Sandbox } from "../../sandbox"
import { runCheckCommand } from "../check-command"
import { runCreateAccountCommand } from "../create-account-command"
import { runRegisterWebhookCommand } from "../register-webhook-command"

let sandbox: Sandbox
beforeAll(async () => {
  sandbox = await startSandbox()
})
afterAll(async () => {
  await sandbox.close()
})

function capture() {
  const lines: string[] = []
  return { out: (line: string) => lines.push(line), text: () => lines.join("\n") }
}

const connection = (secret = sandbox.account.secret, accountId = sandbox.account.id) => [
  "--base-url",
  sandbox.baseUrl,
  "--account-id",
  accountId,
  "--secret",
  secret,
]

describe("crypto-swap create-account", () => {
  it("prints working credentials for the store's environment", async () => {
    const output = capture()
    expect(await runCreateAccountCommand(["--base-url", sandbox.baseUrl], output.out)).toBe(0)
    const id = /CRYPTO_SWAP_ACCOUNT_ID=(\S+)/.exec(output.text())![1]
    const secret = /CRYPTO_SWAP_PRIVATE_KEY=(\S+)/.exec(output.text())![1]
    const check = capture()
    expect(await runCheckCommand(connection(secret, id), check.out)).toBe(0)
  })

  it("says what is missing", async () => {
    await expect(runCreateAccountCommand([], capture().out)).rejects.toThrow(/--base-url \(or CRYPTO_SWAP_BASE_URL\)/)
  })
})

describe("crypto-swap check", () => {
  it("passes every check for good credentials, without printing the key", async () => {
    const output = capture()
    expect(await runCheckCommand([...connection(), "--settle", "USDC-ethereum"], output.out)).toBe(0)
    expect(output.text()).toMatch(/^ok {3}catalogue: \d+ coins offered/m)
    expect(output.text()).toMatch(/^ok {3}credentials: accepted/m)
    expect(output.text()).toMatch(/^ok {3}permissions:/m)
    expect(output.text()).toMatch(/^ok {3}settlement: USDC on ethereum can be received/m)
    // The plugin names no commission on quotes and shifts, so the service's default is the one in effect.
    expect(output.text()).toMatch(/^ok {3}commission: 0\.5% on quotes and shifts \(the service's default/m)
    expect(output.text()).not.toContain(sandbox.account.secret)
  })

  it("fails with exit code 1 and the reason for a wrong key, a blocked shopper or an unknown settle coin", async () => {
    const wrongKey = capture()
    expect(await runCheckCommand(connection("not-the-key"), wrongKey.out)).toBe(1)
    expect(wrongKey.text()).toMatch(/^FAIL credentials: Account not found/m)

    sandbox.configure({ blockedIps: ["203.0.113.9"] })
    const blocked = capture()
    expect(await runCheckCommand([...connection(), "--user-ip", "203.0.113.9"], blocked.out)).toBe(1)
    expect(blocked.text()).toMatch(/^FAIL permissions: a shopper at 203\.0\.113\.9 may not create shifts/m)
    sandbox.configure({ blockedIps: [] })

    const unknown = capture()
    expect(await runCheckCommand([...connection(), "--settle", "NOPE-nowhere"], unknown.out)).toBe(1)
    expect(unknown.text()).toMatch(/^FAIL settlement: NOPE on nowhere is not offered/m)
  })
})

describe("crypto-swap register-webhook", () => {
  it("registers the store's webhook URL and prints the hook id", async () => {
    const output = capture()
    expect(await runRegisterWebhookCommand([...connection(), "--url", "https://shop.example"], output.out)).toBe(0)
    const hookId = /Hook id: (\S+)/.exec(output.text())![1]
    const hooks = await fetch(sandbox.graphqlUrl, {
      method: "POST",
      headers: { "content-type": "application/json", "x-service-secret": sandbox.account.secret },
      body: JSON.stringify({ query: "{ hooks { id targetUrl } }" }),
    }).then((response) => response.json())
    const hook = hooks.data.hooks.find((h: { id: string }) => h.id === hookId)
    expect(hook.targetUrl).toMatch(/^https:\/\/shop\.example\/hooks\/crypto-swap\/[A-Za-z0-9_-]{43}$/)
    expect(output.text()).not.toContain(sandbox.account.secret)
  })

  it("needs the backend URL", async () => {
    await expect(runRegisterWebhookCommand(connection(), capture().out)).rejects.toThrow(/missing --url/)
  })
})
