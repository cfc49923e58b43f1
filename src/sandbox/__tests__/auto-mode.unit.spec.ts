import { BTC_ADDRESS, SandboxClient, useSandbox } from "./sandbox-client"
import { waitFor } from "../../../integration-tests/helpers/wait-for"

/** Polls the shift until it reaches `status`, with every status it passed through on the way. */
async function pollUntil(client: SandboxClient, shiftId: string, status: string): Promise<any> {
  const seen = new Set<string>()
  const read = async () => {
    const shift = (await client.shift(shiftId)).body
    seen.add(shift.status)
    return shift
  }
  const shift = await waitFor(`shift ${shiftId} to reach ${status}`, read, (current) => current.status === status, { timeoutMs: 30_000, intervalMs: 5 })
  return { shift, seen }
}

describe("sandbox auto mode", () => {
  const client = useSandbox({ auto: { stepMs: 5 } })

  it("walks a deposit through pending, processing and settling to settled by itself", async () => {
    const shift = await client().fixedShift()
    expect((await client().deposit(shift.id)).body.status).toBe("pending")
    const { shift: settled } = await pollUntil(client(), shift.id, "settled")
    expect(settled.settleHash).toEqual(expect.any(String))
  })

  it("waits for a refund address, then refunds by itself; review waits for a human", async () => {
    const refunded = await client().fixedShift()
    await client().deposit(refunded.id, { amount: "1" })
    expect((await client().shift(refunded.id)).body.status).toBe("refund")
    await client().post(`/v2/shifts/${refunded.id}/set-refund-address`, { address: BTC_ADDRESS }, client().secretHeaders)
    await pollUntil(client(), refunded.id, "refunded")

    const held = await client().variableShift()
    await client().deposit(held.id, { amount: "1000" })
    expect((await client().shift(held.id)).body).toEqual(expect.objectContaining({ status: "review", issue: "amount over max" }))
  })

  it("is switched off and on at run time", async () => {
    await client().post("/sandbox/config", { auto: false })
    const shift = await client().fixedShift()
    await client().deposit(shift.id)
    expect((await client().get("/sandbox/config")).body.auto).toBe(false)
    expect((await client().shift(shift.id)).body.status).toBe("pending")
    // Switching on picks up deposits already waiting for their next step.
    expect((await client().post("/sandbox/config", { auto: { stepMs: 5 } })).body.auto).toEqual({ stepMs: 5 })
    await pollUntil(client(), shift.id, "settled")
  })
})
