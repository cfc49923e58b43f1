import BigNumber from "bignumber.js"
import { findCoinNetwork, isNetworkOffline, SwapServiceClient, type Coin } from "../lib/swap-service"
import { CONNECTION_HELP, parseCommand } from "./connection-options"

const HELP = `Usage: crypto-swap check [--settle COIN-NETWORK] [--user-ip IP]

Checks that the store can take crypto payments: the service answers, accepts the credentials,
lets a shopper at --user-ip (default 127.0.0.1) pay, and offers the settlement coin (--settle, e.g.
USDC-ethereum); reports the commission in effect. Prints one line per check; exits 1 if any failed.

${CONNECTION_HELP}`

type Check = { name: string; ok: boolean; detail: string }

async function attempt(name: string, run: () => Promise<string>): Promise<Check> {
  try {
    return { name, ok: true, detail: await run() }
  } catch (error) {
    return { name, ok: false, detail: (error as Error).message }
  }
}

export async function runCheckCommand(argv: string[], out: (line: string) => void = console.log): Promise<number> {
  const { client, values, help } = parseCommand(
    argv,
    { settle: { type: "string" }, "user-ip": { type: "string" } },
    ["base-url", "account-id", "secret"]
  )
  if (help) {
    out(HELP)
    return 0
  }
  const service = new SwapServiceClient(client)
  try {
    let coins: Coin[] = []
    const [settleCoin, ...networkParts] = String(values.settle ?? "USDC-ethereum").split("-")
    const settleNetwork = networkParts.join("-")
    const settle = { coin: settleCoin, network: settleNetwork }
    let from = settle
    const checks = [
      await attempt("catalogue", async () => {
        coins = await service.getCoins()
        return `${coins.length} coins offered`
      }),
      await attempt("credentials", async () => {
        const other = coins.find((coin) => coin.coin.toLowerCase() !== settleCoin.toLowerCase()) ?? coins[0]
        from = { coin: other.coin, network: other.networks[0] }
        const pair = await service.getPair(from, settle)
        return `accepted (pair ${other.coin} -> ${settleCoin} rate ${pair.rate})`
      }),
      await attempt("commission", async () => {
        // The plugin names no commission on quotes and shifts: whatever the service applies without one
        // is in effect, measured against the same pair at zero.
        const [unnamed, zero] = await Promise.all([service.getPair(from, settle), service.getPair(from, settle, { commissionRatePercent: "0" })])
        if (new BigNumber(zero.rate).isZero()) throw new Error(`the service gave the pair ${from.coin} -> ${settleCoin} no rate to compare with`)
        const percent = new BigNumber(1).minus(new BigNumber(unnamed.rate).div(zero.rate)).times(100).decimalPlaces(2)
        return `${percent.toFixed()}% on quotes and shifts (the service's default; estimates use it too unless the store's commissionRate option names another)`
      }),
      await attempt("permissions", async () => {
        const ip = String(values["user-ip"] ?? "127.0.0.1")
        const { createShift } = await service.getPermissions(ip)
        if (!createShift) throw new Error(`a shopper at ${ip} may not create shifts`)
        return `a shopper at ${ip} may pay`
      }),
      await attempt("settlement", async () => {
        const coin = findCoinNetwork(coins, settleCoin, settleNetwork)
        if (!coin) throw new Error(`${settleCoin} on ${settleNetwork} is not offered`)
        if (isNetworkOffline(coin, settleNetwork, "settle")) throw new Error(`${settleCoin} on ${settleNetwork} is offline right now`)
        return `${coin.coin} on ${settleNetwork} can be received`
      }),
    ]
    for (const check of checks) out(`${check.ok ? "ok  " : "FAIL"} ${check.name}: ${check.detail}`)
    return checks.every((check) => check.ok) ? 0 : 1
  } finally {
    await service.close()
  }
}
