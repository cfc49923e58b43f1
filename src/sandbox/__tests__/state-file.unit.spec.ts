import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import path from "node:path"
import { startSandbox } from ".."
import { SandboxClient } from "./sandbox-client"
import { waitFor } from "../../../integration-tests/helpers/wait-for"

let dir: string
beforeEach(() => {
  dir = mkdtempSync(path.join(tmpdir(), "sandbox-state-"))
})
afterEach(() => rmSync(dir, { recursive: true, force: true }))

const CHECKOUT = {
  settleCoin: "USDC",
  settleNetwork: "polygon",
  settleAmount: "25.5",
  settleAddress: "0x52908400098527886E0F7030069857D2E4169EE7",
  successUrl: "https://shop.example/success",
  cancelUrl: "https://shop.example/cancel",
}

describe("sandbox state file", () => {
  it("continues where it stopped: same account, shifts, checkouts, hooks, settings and clock", async () => {
    const stateFile = path.join(dir, "state.json")
    const first = new SandboxClient(await startSandbox({ stateFile }))
    const shift = await first.fixedShift()
    const variable = await first.variableShift()
    expect((await first.deposit(variable.id)).status).toBe(200)
    const checkout = await first.post("/v2/checkout", { ...CHECKOUT, affiliateId: first.account.id })
    expect(checkout.status).toBe(201)
    first.sandbox.configure({ maxOpenVariableShifts: 9, blockedIps: ["198.51.100.1"] })
    const hook = await first.post("/graphql", { query: 'mutation { createHook(targetUrl: "https://shop.example/hook") { id } }' }, { "x-service-secret": first.account.secret })
    const movedTo = first.sandbox.advanceClock(3600)
    const before = {
      shift: (await first.shift(shift.id)).body,
      variable: (await first.shift(variable.id)).body,
      checkout: (await first.get(`/v2/checkout/${checkout.body.id}`, {})).body,
    }
    await first.sandbox.close()

    const second = new SandboxClient(await startSandbox({ stateFile }))
    try {
      expect(second.sandbox.restored).toBe(true)
      expect(second.account).toEqual(first.account)
      expect(second.sandbox.now().getTime()).toBeGreaterThanOrEqual(movedTo.getTime())
      expect((await second.shift(shift.id)).body).toEqual(before.shift)
      expect((await second.shift(variable.id)).body).toEqual(before.variable)
      expect((await second.get(`/v2/checkout/${checkout.body.id}`, {})).body).toEqual(before.checkout)
      expect(second.sandbox.settings()).toEqual(expect.objectContaining({ maxOpenVariableShifts: 9, blockedIps: ["198.51.100.1"] }))
      const hooks = await second.post("/graphql", { query: "{ hooks { id } }" }, { "x-service-secret": second.account.secret })
      expect(hooks.body.data.hooks).toEqual([{ id: hook.body.data.createHook.id }])
      // Restored records are live and read the continued clock: the 15-minute fixed shift is an hour old now.
      expect((await second.deposit(shift.id)).body).toEqual(expect.objectContaining({ status: "refund" }))
      expect((await second.setStatus(variable.id, "processing")).body.status).toBe("processing")
    } finally {
      await second.sandbox.close()
    }
  })

  it("saves changes shortly after they happen, without waiting for close", async () => {
    const stateFile = path.join(dir, "state.json")
    const client = new SandboxClient(await startSandbox({ stateFile }))
    try {
      expect(readFileSync(stateFile, "utf8")).toContain(client.account.secret)
      const shift = await client.fixedShift()
      await waitFor("the state file to hold the new shift", () => readFileSync(stateFile, "utf8"), (text) => text.includes(shift.id), { timeoutMs: 30_000 })
    } finally {
      await client.sandbox.close()
    }
  })

  it("starts fresh, and saves at once, when the file does not exist yet", async () => {
    const stateFile = path.join(dir, "new", "state.json")
    const sandbox = await startSandbox({ stateFile })
    await sandbox.close()
    expect(sandbox.restored).toBe(false)
    expect(JSON.parse(readFileSync(stateFile, "utf8"))).toEqual(expect.objectContaining({ format: 1 }))
  })

  it("keeps an account given at start beside the saved one, and uses it", async () => {
    const stateFile = path.join(dir, "state.json")
    const first = await startSandbox({ stateFile })
    await first.close()
    const second = await startSandbox({ stateFile, account: { id: "given", secret: "given-secret" } })
    await second.close()
    const third = await startSandbox({ stateFile })
    await third.close()
    expect(second.account).toEqual({ id: "given", secret: "given-secret" })
    expect(third.account).toEqual(second.account)
  })

  it.each([
    ["not JSON", "{ nope"],
    ["not a sandbox state", '{"hello": 1}'],
    ["an unknown asset", '{"format":1,"account":"a","clockOffsetMs":0,"settings":{},"state":{"accounts":{"$map":[["a",{"id":"a","secret":"s"}]]},"quotes":{"$map":[["q",{"deposit":{"$asset":["NOPE","nowhere"]}}]]}}}'],
  ])("refuses a corrupt file (%s) with an error naming it, and leaves it alone", async (_, content) => {
    const stateFile = path.join(dir, "state.json")
    writeFileSync(stateFile, content)
    await expect(startSandbox({ stateFile })).rejects.toThrow(stateFile)
    expect(readFileSync(stateFile, "utf8")).toBe(content)
  })

  it("has one writer at a time: a second sandbox on the same file is refused until the first closes", async () => {
    const stateFile = path.join(dir, "state.json")
    const first = await startSandbox({ stateFile })
    await expect(startSandbox({ stateFile })).rejects.toThrow(`The sandbox state file ${stateFile} is in use by another sandbox`)
    await first.close()
    const second = await startSandbox({ stateFile })
    expect(second.account).toEqual(first.account)
    await second.close()
  })

  it("takes over a lock left by a process that is gone, and leaves the file alone when it cannot listen", async () => {
    const stateFile = path.join(dir, "state.json")
    const first = await startSandbox({ stateFile })
    const saved = readFileSync(stateFile, "utf8")
    const port = Number(new URL(first.baseUrl).port)
    // The port is taken: the second start fails before it serves, and writes nothing.
    await first.close()
    const blocker = await startSandbox({ port })
    await expect(startSandbox({ stateFile, port })).rejects.toThrow(/EADDRINUSE/)
    await blocker.close()
    expect(readFileSync(stateFile, "utf8")).toBe(saved)
    // A crashed owner's lock (a pid no process has) does not block the next start.
    writeFileSync(`${stateFile}.lock`, "2147483646")
    const next = await startSandbox({ stateFile })
    expect(next.account).toEqual(first.account)
    await next.close()
  })

  it("refuses an unreadable file with an error naming it", async () => {
    await expect(startSandbox({ stateFile: dir })).rejects.toThrow(`Cannot read the sandbox state file ${dir}`)
  })
})
