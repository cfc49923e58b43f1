import { SwapServiceClient } from "../lib/swap-service"
import { CONNECTION_HELP, parseCommand } from "./connection-options"

const HELP = `Usage: crypto-swap create-account --base-url URL

Creates an account at the swap service and prints its id and private key, to put in your store's
environment (CRYPTO_SWAP_ACCOUNT_ID, CRYPTO_SWAP_PRIVATE_KEY). Keep the key secret.

${CONNECTION_HELP}`

export async function runCreateAccountCommand(argv: string[], out: (line: string) => void = console.log): Promise<number> {
  const { client, help } = parseCommand(argv, {}, ["base-url"])
  if (help) {
    out(HELP)
    return 0
  }
  const service = new SwapServiceClient(client)
  try {
    const account = await service.createAccount()
    out(
      [
        "Account created. Add these to your store's environment (the key grants full access: never share it):",
        `CRYPTO_SWAP_ACCOUNT_ID=${account.id}`,
        `CRYPTO_SWAP_PRIVATE_KEY=${account.secret}`,
      ].join("\n")
    )
    return 0
  } finally {
    await service.close()
  }
}
