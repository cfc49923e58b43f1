import { readFileSync } from "node:fs"
import { medusaIntegrationTestRunner } from "@medusajs/test-utils"
import { ContainerRegistrationKeys } from "@medusajs/framework/utils"
import type { MedusaContainer } from "@medusajs/framework/types"
import { useSandbox } from "../helpers/sandbox"
import { createStoreFixture, PROVIDERS, setStock, type StoreFixture } from "../helpers/store-fixtures"
import { failing, storefront } from "../helpers/storefront"
import { adminHeaders } from "../helpers/admin"
import { ledgerOf, ledgerRow, orderWithPayments, paidOrder, reconcile } from "../helpers/ledger"
import { waitFor } from "../helpers/wait-for"
import { runExportCommand } from "../../src/cli/export-command"

jest.setTimeout(240_000)

const env = useSandbox()
const BTC_REFUND = "bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq"
const BTC = { deposit_coin: "BTC", deposit_network: "bitcoin", refund_address: BTC_REFUND }
const DAY = (day: number) => new Date(Date.UTC(2026, 0, day, 12))

/** RFC 4180: quoted fields may hold commas, quotes (doubled) and line breaks. */
function parseCsv(text: string): string[][] {
  const rows: string[][] = []
  let row: string[] = []
  let field = ""
  let quoted = false
  for (let i = 0; i < text.length; i++) {
    const char = text[i]
    if (quoted) {
      if (char === '"' && text[i + 1] === '"') (field += '"'), i++
      else if (char === '"') quoted = false
      else field += char
    } else if (char === '"') quoted = true
    else if (char === ",") row.push(field), (field = "")
    else if (char === "\r" && text[i + 1] === "\n") {
      row.push(field), rows.push(row), (row = []), (field = ""), i++
    } else field += char
  }
  if (field || row.length) row.push(field), rows.push(row)
  return rows
}

const asObjects = ([header, ...lines]: string[][]) => lines.map((line) => Object.fromEntries(header.map((name, i) => [name, line[i]])))

/**
 * A ledger of January 2026 written through the module service (what the real flows record, without a
 * shopper each): a settled ETH payment paid a little short and one paid more, a waiting LTC payment,
 * a settled refund and one waiting for an address, an action that stopped retrying, and a row of
 * February outside the month.
 */
async function seedLedger(container: MedusaContainer) {
  const ledger = ledgerOf(container)
  const base = { provider_id: PROVIDERS.default, currency_code: "usd", settle_coin: "USDC", settle_network: "ethereum" }
  const rows = await ledger.createSwapShifts([
    {
      ...base, shift_id: "seed-short", kind: "payment", status: "settled", terminal: true, amount_due: "10", deposit_coin: "ETH",
      deposit_network: "ethereum", deposit_amount: "0.004", settle_amount: "9.9", rate: "2475", deposit_hash: "0xdep,\"odd\"", settle_hash: "0xsettle1",
      captured_at: DAY(2),
    },
    {
      ...base, shift_id: "seed-more", kind: "payment", status: "settled", terminal: true, amount_due: "20.5", deposit_coin: "ETH",
      deposit_network: "ethereum", deposit_amount: "0.0083", settle_amount: "20.75", rate: "2500", settle_hash: "0xsettle2", captured_at: DAY(3),
    },
    { ...base, shift_id: "seed-waiting", kind: "payment", status: "waiting", amount_due: "7", deposit_coin: "LTC", deposit_network: "litecoin" },
    {
      ...base, shift_id: "seed-refund", kind: "refund", status: "settled", terminal: true, amount_due: "5", refund_id: "refund_seed",
      refund_of_shift_id: "seed-more", deposit_coin: "USDC", deposit_network: "ethereum", deposit_amount: "5.2", deposit_hash: "0xrefdep",
      settle_coin: "ETH", settle_network: "ethereum", settle_amount: "0.002", settle_hash: "0xrefsettle",
      // As the sync records a refund shift it judged paid in full.
      flags: { refunded: true },
    },
    {
      ...base, kind: "refund", status: "address_needed", amount_due: "3", refund_id: "refund_open", refund_of_shift_id: "seed-short",
      deposit_coin: "USDC", deposit_network: "ethereum", settle_coin: "ETH", settle_network: "ethereum",
    },
    { ...base, shift_id: "seed-stuck", kind: "payment", status: "processing", amount_due: "4", deposit_coin: "BTC", deposit_network: "bitcoin" },
    { ...base, shift_id: "seed-february", kind: "payment", status: "settled", terminal: true, amount_due: "100", settle_amount: "100", deposit_coin: "ETH", deposit_network: "ethereum" },
  ])
  const byShift = (shiftId: string | null) => rows.find((row) => row.shift_id === shiftId)!
  await ledger.createSwapShiftActions({ swap_shift_id: byShift("seed-stuck").id, kind: "authorize", state: "attention", attempts: 8, last_error: "boom" })
  // Creation dates as the real rows would have them: the month, day by day, and one in February.
  const knex = container.resolve(ContainerRegistrationKeys.PG_CONNECTION)
  const days: Array<[string | null, Date]> = [
    ["seed-short", DAY(2)], ["seed-more", DAY(3)], ["seed-waiting", DAY(4)], ["seed-refund", DAY(5)], [null, DAY(6)], ["seed-stuck", DAY(7)],
    ["seed-february", new Date(Date.UTC(2026, 1, 2))],
  ]
  for (const [shiftId, day] of days) {
    await knex("crypto_swap_shift").where(shiftId ? { shift_id: shiftId } : { refund_id: "refund_open" }).update({ created_at: day })
  }
  return { byShift, open: rows.find((row) => row.refund_id === "refund_open")! }
}

medusaIntegrationTestRunner({
  testSuite: ({ api, getContainer }) => {
    let store: StoreFixture
    let shop: ReturnType<typeof storefront>
    let admin: { headers: Record<string, string> }

    beforeEach(async () => {
      store = await createStoreFixture(getContainer(), { stock: 5 })
      shop = storefront(api, store)
      admin = await adminHeaders(getContainer())
    })

    const list = async (query: string) => (await api.get(`/admin/crypto-swap/payments?${query}`, admin)).data
    const shiftIds = (answer: { payments: Array<{ shift_id: string | null; refund_id: string | null }> }) =>
      answer.payments.map((row) => row.shift_id ?? row.refund_id)

    it("lists payments and refunds with filters, search, paging and totals, validating every input", async () => {
      const container = getContainer()
      const { order, session } = await paidOrder(container, shop, env.control, PROVIDERS.default, BTC)
      const paid = await ledgerRow(container, { shift_id: session.data.shift_id })
      await seedLedger(container)
      const {
        data: [{ display_id: displayId }],
      } = await container.resolve(ContainerRegistrationKeys.QUERY).graph({ entity: "order", fields: ["display_id"], filters: { id: order.id } })

      const all = await list("limit=3")
      expect(all.count).toBe(8)
      // Newest first: the real payment (made today), then February, then the month backwards.
      expect(shiftIds(all)).toEqual([paid.shift_id, "seed-february", "seed-stuck"])
      expect(shiftIds(await list("limit=3&offset=3"))).toEqual(["refund_open", "seed-refund", "seed-waiting"])
      expect(all.payments[0]).toMatchObject({
        id: paid.id,
        kind: "payment",
        order_id: order.id,
        order_display_id: displayId,
        amount_due: "49.99",
        currency_code: "usd",
        deposit_coin: "BTC",
        deposit_amount: paid.deposit_amount,
        settle_amount: paid.settle_amount,
        status: "settled",
        attention: null,
      })

      const january = "from=2026-01-01&to=2026-01-31"
      expect(shiftIds(await list(`${january}&status=settled`))).toEqual(["seed-refund", "seed-more", "seed-short"])
      expect(shiftIds(await list(`${january}&kind=refund`))).toEqual(["refund_open", "seed-refund"])
      expect(shiftIds(await list(`${january}&coin=ltc`))).toEqual(["seed-waiting"])
      expect(shiftIds(await list(`${january}&status=settled,waiting&kind=payment`))).toEqual(["seed-waiting", "seed-more", "seed-short"])
      const attention = await list("attention=true")
      expect(attention.payments.map((row: any) => [row.shift_id ?? row.refund_id, row.attention])).toEqual([
        ["seed-stuck", "action_stopped"],
        ["refund_open", "refund_address_needed"],
      ])
      expect(shiftIds(await list("attention=refund_address_needed"))).toEqual(["refund_open"])
      expect((await list(`${january}&attention=false`)).count).toBe(4)
      expect((await list("from=2026-01-03T00:00:00Z&to=2026-01-05T00:00:00Z")).count).toBe(2)

      expect(shiftIds(await list(`q=${displayId}`))).toEqual([paid.shift_id])
      expect(shiftIds(await list(`q=%23${displayId}`))).toEqual([paid.shift_id])
      expect(shiftIds(await list("q=seed-waiting"))).toEqual(["seed-waiting"])
      expect(shiftIds(await list("q=0xrefsettle"))).toEqual(["seed-refund"])
      expect(shiftIds(await list(`q=${encodeURIComponent('0xdep,"odd"')}`))).toEqual(["seed-short"])
      expect((await list("q=nothing-like-it")).count).toBe(0)

      const { data: totals } = await api.get(`/admin/crypto-swap/payments/totals?${january}`, admin)
      expect(totals.by_currency).toEqual([{ currency_code: "usd", due: "41.5", received: "30.5", refunded: "5", outstanding: "3" }])
      expect(totals.by_settle_coin).toEqual([{ coin: "USDC", network: "ethereum", received: "30.65", refunded: "5.2", outstanding: "0" }])
      const { data: refundsOnly } = await api.get(`/admin/crypto-swap/payments/totals?${january}&kind=refund`, admin)
      expect(refundsOnly.by_currency).toEqual([{ currency_code: "usd", due: "0", received: "0", refunded: "5", outstanding: "3" }])

      for (const bad of ["limit=0", "limit=100000", "offset=-1", "status=SETTLED;drop", "kind=gift", "attention=maybe", "from=yesterday", "from=2026-02-01&to=2026-01-01", "colour=red"]) {
        const refused = await failing(api.get(`/admin/crypto-swap/payments?${bad}`, admin))
        expect({ bad, status: refused.status }).toEqual({ bad, status: 400 })
        expect(refused.data.message).toEqual(expect.any(String))
      }
      expect((await failing(api.get("/admin/crypto-swap/payments/totals?coin=%27", admin))).status).toBe(400)
      expect((await failing(api.get("/admin/crypto-swap/payments"))).status).toBe(401)
    })

    it("exports a month's movements as CSV and JSON, one line per shift, the same from the route and the command line", async () => {
      const container = getContainer()
      const { byShift } = await seedLedger(container)
      const january = "from=2026-01-01&to=2026-01-31"

      const csv = await api.get(`/admin/crypto-swap/export?${january}&format=csv`, { ...admin, responseType: "text", transformResponse: (body: string) => body })
      expect(csv.headers["content-type"]).toMatch(/^text\/csv/)
      expect(csv.headers["content-disposition"]).toMatch(/attachment; filename="crypto-payments-2026-01-01-2026-01-31\.csv"/)
      const lines = asObjects(parseCsv(csv.data))
      expect(lines.map((line) => line.shift_id || line.refund_id)).toEqual(["seed-short", "seed-more", "seed-waiting", "seed-refund", "refund_open", "seed-stuck"])
      expect(lines[0]).toMatchObject({
        id: byShift("seed-short").id,
        kind: "payment",
        created_at: DAY(2).toISOString(),
        captured_at: DAY(2).toISOString(),
        amount_due: "10",
        currency_code: "usd",
        deposit_coin: "ETH",
        deposit_network: "ethereum",
        deposit_amount: "0.004",
        deposit_hash: '0xdep,"odd"',
        deposit_tx_url: `https://etherscan.io/tx/${encodeURIComponent('0xdep,"odd"')}`,
        settle_coin: "USDC",
        settle_amount: "9.9",
        settle_hash: "0xsettle1",
        settle_tx_url: "https://etherscan.io/tx/0xsettle1",
        rate: "2475",
        difference: "-0.1",
        status: "settled",
      })
      expect(lines[1]).toMatchObject({ difference: "0.25" })
      expect(lines[2]).toMatchObject({ difference: "", deposit_tx_url: "", status: "waiting" })
      expect(lines[3]).toMatchObject({ kind: "refund", refund_of_shift_id: "seed-more", deposit_hash: "0xrefdep", settle_hash: "0xrefsettle", difference: "" })
      expect(lines[4]).toMatchObject({ attention: "refund_address_needed", status: "address_needed" })

      const json = await api.get(`/admin/crypto-swap/export?${january}&format=json`, admin)
      expect(json.headers["content-type"]).toMatch(/^application\/json/)
      expect(json.data.map((line: any) => line.id)).toEqual(lines.map((line) => line.id))
      expect(json.data[0]).toMatchObject({ deposit_hash: '0xdep,"odd"', difference: "-0.1", order_display_id: null })

      // The command line writes the very same file, straight from the database.
      const out = `${process.env.TMPDIR ?? "/tmp"}/crypto-export-${Date.now()}.csv`
      const databaseUrl = container.resolve(ContainerRegistrationKeys.CONFIG_MODULE).projectConfig.databaseUrl!
      const said: string[] = []
      const code = await runExportCommand(["--from", "2026-01-01", "--to", "2026-01-31", "--out", out, "--database-url", databaseUrl], (line) => said.push(line))
      expect(code).toBe(0)
      expect(readFileSync(out, "utf8")).toBe(csv.data)
      expect(said.join("\n")).toMatch(/6 lines/)
      expect(said.join("\n")).not.toContain(databaseUrl)
      await expect(runExportCommand(["--from", "2026-01-01"], () => {})).rejects.toThrow(/--to/)

      for (const bad of ["from=2026-01-01", "from=2026-01-01&to=2026-01-31&format=xml", "from=2026-13-01&to=2026-01-31"]) {
        expect((await failing(api.get(`/admin/crypto-swap/export?${bad}`, admin))).status).toBe(400)
      }
    })

    it("refunds through a refund shift a paid shift whose order could not be placed, once, and clears its attention", async () => {
      const container = getContainer()
      const cart = await shop.createCart()
      const { session } = await shop.createPaymentSession(cart.id, PROVIDERS.default, BTC)
      const shiftId = session.data.shift_id as string
      await env.control.deposit(shiftId)
      await setStock(container, store.inventoryItemId!, 0)
      await env.control.walk(shiftId, ["processing", "settling", "settled"])
      const row = await waitFor(
        "the settled shift to be recorded as paid with no order",
        async () => {
          await reconcile(container)
          return ledgerRow(container, { shift_id: shiftId })
        },
        (found) => Boolean(found.paid_no_order_since) && found.status === "settled"
      )
      expect(shiftIds(await list("attention=paid_no_order"))).toEqual([shiftId])

      const answered = await api.post(`/admin/crypto-swap/shifts/${row.id}/refund`, {}, admin)
      expect(answered.data.sync_error).toBeNull()
      expect(answered.data.refund).toMatchObject({ kind: "refund", refund_of_shift_id: shiftId, amount_due: row.settle_amount, settle_address: BTC_REFUND })
      expect(answered.data.refund.shift_id).toEqual(expect.any(String))
      const again = await failing(api.post(`/admin/crypto-swap/shifts/${row.id}/refund`, {}, admin))
      expect(again.status).toBe(400)
      expect(await ledgerOf(container).listSwapShifts({ kind: "refund", refund_of_shift_id: shiftId })).toHaveLength(1)

      // Stock is back, but given back this money never places the order.
      await setStock(container, store.inventoryItemId!, 1)
      await reconcile(container)
      expect(await ledgerRow(container, { id: row.id })).toMatchObject({ paid_no_order_since: null, authorized_at: null, captured_at: null })
      // Nor does the shopper's page, completing the cart again.
      const completion = await failing(api.post(`/store/carts/${cart.id}/complete`, {}, shop.headers))
      expect(completion.status).toBe(400)
      expect(completion.data.message).toBe("This crypto payment is being refunded, so it can no longer place this order. Please start a new payment.")
      expect(await orderWithPayments(container, cart.id)).toBeFalsy()
      const { data: listed } = await api.get(`/admin/crypto-swap/payments?q=${shiftId}`, admin)
      expect(listed.payments).toEqual([expect.objectContaining({ shift_id: shiftId, attention: null })])
      expect((await list("attention=paid_no_order")).count).toBe(0)
    })
  },
})
