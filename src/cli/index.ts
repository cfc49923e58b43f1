#!/usr/bin/env node
// `crypto-swap <command>`: the plugin's command line.
import { runCheckCommand } from "./check-command"
import { runCreateAccountCommand } from "./create-account-command"
import { runExportCommand } from "./export-command"
import { runRegisterWebhookCommand } from "./register-webhook-command"
import { runSandboxCommand } from "./sandbox-command"

const USAGE = `Usage: crypto-swap <command> [options]

Commands:
  sandbox            Start a local sandbox of the swap service (dry runs without real money)
  create-account     Create an account at the service and print its id and private key
  check              Check credentials, permissions, catalogue and settlement coin (exit 1 on a failure)
  register-webhook   Register the store's webhook for the hosted checkout
  export             Write the accounting export (CSV or JSON) of a date range from the store's database

Run "crypto-swap <command> --help" for a command's options.`

/** Each command answers its exit code. */
const commands: Record<string, (argv: string[]) => Promise<number | void>> = {
  sandbox: runSandboxCommand,
  "create-account": runCreateAccountCommand,
  check: runCheckCommand,
  "register-webhook": runRegisterWebhookCommand,
  export: runExportCommand,
}

async function main(argv: string[]) {
  const [name, ...rest] = argv
  const command = name ? commands[name] : undefined
  if (!command) {
    console.log(USAGE)
    process.exitCode = name && name !== "--help" && name !== "help" ? 2 : 0
    return
  }
  process.exitCode = (await command(rest)) ?? 0
}

main(process.argv.slice(2)).catch((error: Error) => {
  console.error(`crypto-swap: ${error.message}`)
  process.exitCode = 1
})
