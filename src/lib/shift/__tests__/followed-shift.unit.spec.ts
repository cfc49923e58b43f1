import { checkoutSchema, type Shift } from "../../swap-service"
import { followedShift } from "../followed-shift"

const CHECKOUT = {
  id: "c1",
  settleCoin: "USDC",
  settleNetwork: "ethereum",
  settleAddress: "0x1111111111111111111111111111111111111111",
  settleAmount: "100",
  affiliateId: "acc",
  successUrl: "https://shop.example/ok",
  cancelUrl: "https://shop.example/cancel",
  createdAt: "2026-11-22T10:00:00.000Z",
  updatedAt: "2026-11-22T10:00:00.000Z",
}
const paid = [{ depositHash: "d" }]

/** Follows with shifts described by id (waiting when not named), recording which were read. */
async function follow(orders: unknown, shifts: Record<string, Partial<Shift>> = {}, followingId?: string) {
  const read: string[] = []
  const followed = await followedShift(
    checkoutSchema.parse({ ...CHECKOUT, orders }),
    async (id) => {
      read.push(id)
      return { id, status: "waiting", ...shifts[id] } as Shift
    },
    followingId
  )
  return { shiftId: followed.shift?.id, otherPaidShiftIds: followed.otherPaidShiftIds, read }
}

describe("followedShift: which of a checkout's shifts the payment follows", () => {
  it("none before the payer picks a coin, reading nothing", async () => {
    expect(await follow(undefined)).toEqual({ shiftId: undefined, otherPaidShiftIds: [], read: [] })
    expect(await follow([])).toEqual({ shiftId: undefined, otherPaidShiftIds: [], read: [] })
  })

  it("the latest while none is paid: an older unpaid shift, expired or not, is left behind", async () => {
    expect(await follow([{ id: "eth" }, { id: "btc", deposits: [] }], {}, "btc")).toEqual({ shiftId: "eth", otherPaidShiftIds: [], read: ["eth"] })
  })

  it("a paid shift over a later unpaid one", async () => {
    expect(await follow([{ id: "sol" }, { id: "eth", deposits: paid }, { id: "btc" }], { eth: { status: "processing" } })).toEqual({
      shiftId: "eth",
      otherPaidShiftIds: [],
      read: ["eth"],
    })
  })

  it("the latest holding money when the followed one is unknown, naming the others", async () => {
    const orders = [{ id: "sol" }, { id: "eth", deposits: paid }, { id: "btc", deposits: paid }]
    expect(await follow(orders, { eth: { status: "settled" }, btc: { status: "settled" } })).toEqual({ shiftId: "eth", otherPaidShiftIds: ["btc"], read: ["eth"] })
  })

  it.each([
    ["settled", { status: "settled" }],
    ["in review", { status: "review" }],
    ["still moving", { status: "processing" }],
  ])("keeps the followed shift holding money over a later one %s, reading only it", async (_, later) => {
    const orders = [{ id: "eth", deposits: paid }, { id: "btc", deposits: paid }]
    expect(await follow(orders, { eth: later as Partial<Shift>, btc: { status: "processing" } }, "btc")).toEqual({
      shiftId: "btc",
      otherPaidShiftIds: ["eth"],
      read: ["btc"],
    })
  })

  it.each([
    ["being sent back", { status: "refund" }],
    ["sent back", { status: "refunded" }],
    ["sent back in several deposits", { status: "multiple", deposits: [{ status: "refund" }, { status: "refunded" }] }],
  ])("never moves to a later shift whose deposit is %s", async (_, later) => {
    const orders = [{ id: "eth", deposits: paid }, { id: "btc", deposits: paid }]
    expect(await follow(orders, { eth: later as Partial<Shift>, btc: { status: "settled" } })).toEqual({
      shiftId: "btc",
      otherPaidShiftIds: ["eth"],
      read: ["eth", "btc"],
    })
  })

  it("moves on from a followed shift whose deposit was sent back to a later one holding money", async () => {
    const orders = [{ id: "eth", deposits: paid }, { id: "btc", deposits: paid }]
    expect(await follow(orders, { btc: { status: "refunded" }, eth: { status: "processing" } }, "btc")).toEqual({
      shiftId: "eth",
      otherPaidShiftIds: ["btc"],
      read: ["btc", "eth"],
    })
  })

  it("the latest paid one when every paid shift was given back, reading each once", async () => {
    const orders = [{ id: "sol" }, { id: "eth", deposits: paid }, { id: "btc", deposits: paid }]
    expect(await follow(orders, { eth: { status: "refunded" }, btc: { status: "refunded" } }, "btc")).toEqual({
      shiftId: "eth",
      otherPaidShiftIds: ["btc"],
      read: ["btc", "eth"],
    })
  })
})
