import { reusableSession, REUSE_MARGIN_MS } from "../reusable-session"

const now = Date.parse("2026-11-25T12:00:00.000Z")
const waiting = {
  id: "payses_1",
  provider_id: "pp_crypto-swap_crypto-swap",
  status: "pending",
  data: {
    mode: "shift",
    status: "waiting",
    shift_id: "abc",
    amount: "49.99",
    deposit_coin: "BTC",
    deposit_network: "bitcoin",
    expires_at: new Date(now + 10 * 60_000).toISOString(),
  },
}
const choice = { deposit_coin: "btc", deposit_network: "Bitcoin" }
const reuse = (session: typeof waiting, ask: Record<string, string> = choice, amount = "49.990") =>
  reusableSession([session], "pp_crypto-swap_crypto-swap", ask as never, amount, now)

describe("reusableSession", () => {
  it("gives back a waiting payment for the same coin, network, refund address and amount", () => {
    expect(reuse(waiting)).toBe(waiting)
  })

  it("makes a new one when anything that matters changed, or the old one can't be paid any more", () => {
    const changed = (data: Record<string, unknown>) => ({ ...waiting, data: { ...waiting.data, ...data } })
    expect(reuse(waiting, { ...choice, deposit_network: "lightning" })).toBeUndefined()
    expect(reuse(waiting, { ...choice, refund_address: "bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq" })).toBeUndefined()
    expect(reuse(waiting, choice, "50")).toBeUndefined()
    expect(reuse(changed({ status: "pending" }))).toBeUndefined()
    expect(reuse(changed({ cancel_requested_at: new Date(now).toISOString() }))).toBeUndefined()
    expect(reuse(changed({ expires_at: new Date(now + REUSE_MARGIN_MS).toISOString() }))).toBeUndefined()
    expect(reuse({ ...waiting, status: "canceled" })).toBeUndefined()
    expect(reusableSession([waiting], "pp_system_default", choice as never, "49.99", now)).toBeUndefined()
  })
})
