import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import path from "node:path"
import type { Sandbox } from "../../sandbox"
import { SandboxClient } from "../../sandbox/__tests__/sandbox-client"
import { DEFAULT_STATE_FILE } from "../sandbox-command"
import { startCli } from "./cli-process"

// `crypto-swap sandbox` as a merchant runs it: stopped with a signal and started again in the same directory.

jest.setTimeout(120_000)

let dir: string
beforeEach(() => {
  dir = mkdtempSync(path.join(tmpdir(), "sandbox-cli-"))
})
afterEach(() => rmSync(dir, { recursive: true, force: true }))

/** Starts the command and reads what it prints: the URL and the account. */
async function startCommand(args: string[] = []) {
  const cli = startCli(["sandbox", "--port", "0", ...args], { cwd: dir })
  await cli.waitFor(/Press Ctrl\+C to stop/)
  const field = (label: string) => new RegExp(`^ {2}${label}: +(\\S+)`, "m").exec(cli.output())?.[1] as string
  const baseUrl = field("Base URL")
  const account = { id: field("Account id"), secret: field("Secret") }
  const client = new SandboxClient({ baseUrl, payUrl: baseUrl, account } as Sandbox)
  return { cli, client, account }
}

async function stop(cli: ReturnType<typeof startCli>, signal: NodeJS.Signals) {
  cli.child.kill(signal)
  const code = await cli.exited
  expect(cli.output()).toContain(`Sandbox stopped (${signal}).`)
  expect(code).toBe(0)
}

describe("crypto-swap sandbox across restarts", () => {
  it("keeps its account and shifts in the working directory by default, saved on SIGTERM", async () => {
    const first = await startCommand()
    expect(first.cli.output()).toContain(`${path.join(dir, DEFAULT_STATE_FILE)} (new)`)
    const shift = await first.client.fixedShift()
    const before = (await first.client.shift(shift.id)).body
    // At once, before the delayed write: the signal itself must save it.
    await stop(first.cli, "SIGTERM")
    expect(readFileSync(path.join(dir, DEFAULT_STATE_FILE), "utf8")).toContain(shift.id)

    const second = await startCommand()
    try {
      expect(second.account).toEqual(first.account)
      expect(second.cli.output()).toContain("(continued: 1 shift(s))")
      expect((await second.client.shift(shift.id)).body).toEqual(before)
    } finally {
      await stop(second.cli, "SIGINT")
    }
  })

  it("keeps nothing with --memory", async () => {
    const first = await startCommand(["--memory"])
    await stop(first.cli, "SIGTERM")
    const second = await startCommand(["--memory"])
    await stop(second.cli, "SIGTERM")
    expect(second.account.id).not.toBe(first.account.id)
    expect(existsSync(path.join(dir, DEFAULT_STATE_FILE))).toBe(false)
  })

  it("refuses a damaged state file, naming it", async () => {
    const stateFile = path.join(dir, "broken.json")
    writeFileSync(stateFile, "{")
    const cli = startCli(["sandbox", "--port", "0", "--state-file", stateFile], { cwd: dir })
    expect(await cli.exited).toBe(1)
    expect(cli.output()).toContain(`The sandbox state file ${stateFile} is damaged`)
  })
})
