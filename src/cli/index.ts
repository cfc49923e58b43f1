#!/usr/bin/env node
// `crypto-swap <command>`: the plugin's command line.
import { runSandboxCommand } from "./sandbox-command"

const USAGE = `Usage: crypto-swap <command> [options]

Commands:
  sandbox     Start a local sandbox of the swap service (dry runs without real money)
              --port N  --host H  --auto  --step-ms N  --blocked-ip IP  --rate-limits realistic|off

Run "crypto-swap <command> --help" for a command's options.`

const commands: Record<string, (argv: string[]) => Promise<void>> = {
  sandbox: runSandboxCommand,
}

async function main(argv: string[]) {
  const [name, ...rest] = argv
  const command = name ? commands[name] : undefined
  if (!command) {
    console.log(USAGE)
    process.exitCode = name && name !== "--help" && name !== "help" ? 2 : 0
    return
  }
  await command(rest)
}

main(process.argv.slice(2)).catch((error: Error) => {
  console.error(`crypto-swap: ${error.message}`)
  process.exitCode = 1
})
