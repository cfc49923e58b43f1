import { mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import path from "node:path"
import { startSandbox, type Sandbox } from "../../sandbox"
import { runCli } from "./cli-process"

// `npx crypto-swap check` in a store directory, with the credentials in the store's .env as the README
// tells the store owner to put them.

jest.setTimeout(120_000)

let sandbox: Sandbox
let store: string
beforeAll(async () => {
  sandbox = await startSandbox()
})
afterAll(async () => {
  await sandbox.close()
})
beforeEach(() => {
  store = mkdtempSync(path.join(tmpdir(), "store-"))
})
afterEach(() => rmSync(store, { recursive: true, force: true }))

function writeEnv(secret = sandbox.account.secret) {
  writeFileSync(
    path.join(store, ".env"),
    [
      "DATABASE_URL=postgres://localhost/store",
      `CRYPTO_SWAP_BASE_URL=${sandbox.baseUrl}`,
      `CRYPTO_SWAP_ACCOUNT_ID=${sandbox.account.id}`,
      `CRYPTO_SWAP_PRIVATE_KEY=${secret}`,
    ].join("\n")
  )
}

describe("crypto-swap check in a store directory", () => {
  it("reads the credentials from the store's .env and exits 0 when every check passes", async () => {
    writeEnv()
    const { code, output } = await runCli(["check"], { cwd: store })
    expect(output).toMatch(/^ok {3}credentials: accepted/m)
    expect(output).toMatch(/^ok {3}settlement:/m)
    expect(output).not.toContain(sandbox.account.secret)
    expect(code).toBe(0)
  })

  it("lets the real environment win over .env, and exits 1 on a failed check", async () => {
    writeEnv()
    const { code, output } = await runCli(["check"], { cwd: store, env: { CRYPTO_SWAP_PRIVATE_KEY: "not-the-key" } })
    expect(output).toMatch(/^FAIL credentials: Account not found/m)
    expect(code).toBe(1)
  })

  it("exits non-zero and names what is missing without a .env", async () => {
    const { code, output } = await runCli(["check"], { cwd: store })
    expect(output).toMatch(/missing --base-url \(or CRYPTO_SWAP_BASE_URL\), --account-id \(or CRYPTO_SWAP_ACCOUNT_ID\), --secret \(or CRYPTO_SWAP_PRIVATE_KEY\)/)
    expect(code).not.toBe(0)
  })
})
