// The sandbox in a child process of its own (forked by sandbox-process.ts): it serves the API on a
// free port and answers the parent's calls to its in-process helpers over IPC, until the parent goes.
import { startSandbox, type SandboxOptions } from "../../src/sandbox"
import type { SandboxCall } from "./sandbox-process"

async function main() {
  const options: SandboxOptions = JSON.parse(process.env.CRYPTO_SWAP_SANDBOX_OPTIONS ?? "{}")
  const sandbox = await startSandbox(options)
  process.on("message", async ({ id, method, args }: SandboxCall) => {
    try {
      const helper = sandbox[method] as (...values: unknown[]) => unknown
      process.send!({ id, result: await helper(...args) })
    } catch (error) {
      process.send!({ id, error: error instanceof Error ? error.message : String(error) })
    }
  })
  // The parent's exit or kill closes the channel: nothing is left listening.
  process.on("disconnect", () => void sandbox.close().finally(() => process.exit(0)))
  const { baseUrl, graphqlUrl, payUrl, account } = sandbox
  process.send!({ ready: { baseUrl, graphqlUrl, payUrl, account } })
}

main().catch((error) => {
  console.error(error)
  process.exit(1)
})
