import path from "node:path"
import { moduleIntegrationTestRunner } from "@medusajs/test-utils"
import { Modules } from "@medusajs/framework/utils"
import type { IPaymentModuleService } from "@medusajs/framework/types"
import { useSandbox } from "../helpers/sandbox"

jest.setTimeout(60_000)

const env = useSandbox()
const PROVIDER_ID = "pp_crypto-swap_crypto-swap"

/** Read when the module boots, after the sandbox has started. */
const providerOptions = {
  get baseUrl() {
    return env.sandbox.baseUrl
  },
  get graphqlUrl() {
    return env.sandbox.graphqlUrl
  },
  get payUrl() {
    return env.sandbox.payUrl
  },
  get accountId() {
    return env.sandbox.account.id
  },
  get privateKey() {
    return env.sandbox.account.secret
  },
  settlement: { usd: { coin: "USDC", network: "ethereum", address: "0x1111111111111111111111111111111111111111" } },
}

moduleIntegrationTestRunner<IPaymentModuleService>({
  moduleName: Modules.PAYMENT,
  resolve: path.dirname(require.resolve("@medusajs/payment/package.json")),
  moduleOptions: {
    providers: [{ resolve: path.join(__dirname, "../../src/providers/crypto-swap"), id: "crypto-swap", options: providerOptions }],
  },
  testSuite: ({ service }) => {
    async function newSession(amount: number, data: Record<string, unknown>) {
      const collection = await service.createPaymentCollections({ currency_code: "usd", amount })
      const session = await service.createPaymentSession(collection.id, {
        provider_id: PROVIDER_ID,
        currency_code: "usd",
        amount,
        // What the plugin's middleware adds on the store route: the shopper's IP, seen by the server.
        data: { customer_ip: "203.0.113.9", ...data },
      })
      return { collection, session }
    }

    it("drives a payment from session to capture through the payment module", async () => {
      const { session } = await newSession(120.5, { deposit_coin: "LTC", deposit_network: "litecoin" })
      expect(session.data).toMatchObject({ shift_type: "fixed", settle_amount: "120.5", status: "waiting" })
      const shiftId = session.data!.shift_id as string

      await expect(service.authorizePaymentSession(session.id, {})).rejects.toThrow(/waiting for your deposit/i)

      await env.control.deposit(shiftId)
      await env.control.walk(shiftId, ["processing"])
      const payment = (await service.authorizePaymentSession(session.id, {}))!
      expect(payment).toMatchObject({ provider_id: PROVIDER_ID, captured_at: null })

      await expect(service.capturePayment({ payment_id: payment.id })).rejects.toThrow(/can't be captured yet/)
      await env.control.walk(shiftId, ["settling", "settled"])
      const captured = await service.capturePayment({ payment_id: payment.id })
      expect(captured.captured_at).toBeTruthy()
      expect(captured.captures).toHaveLength(1)
    })

    it("deletes a session whose shift saw no deposit, reading it once: its shift is left for reconciliation to cancel", async () => {
      const { session } = await newSession(20, { deposit_coin: "BTC", deposit_network: "bitcoin" })
      const shiftId = session.data!.shift_id as string
      await env.control.clearRequests()
      await service.deletePaymentSession(session.id)
      expect(await service.listPaymentSessions({ id: session.id })).toEqual([])
      expect((await env.control.requests()).map((request: { method: string; path: string }) => `${request.method} ${request.path}`)).toEqual([
        `GET /v2/shifts/${shiftId}`,
      ])
      const shift = await (await fetch(`${env.sandbox.baseUrl}/v2/shifts/${shiftId}`)).json()
      expect(shift.status).toBe("waiting")
    })

    it("refuses to delete a session whose deposit the ledger saw (the status it mirrors into the data)", async () => {
      const { session } = await newSession(20, { deposit_coin: "BTC", deposit_network: "bitcoin" })
      await env.control.deposit(session.data!.shift_id as string)
      await service.updatePaymentSession({ id: session.id, amount: 20, currency_code: "usd", data: { ...session.data, status: "pending" } })
      await expect(service.deletePaymentSession(session.id)).rejects.toThrow(/already on its way/)
    })

    it("refuses to delete a session whose deposit reached the service before any sync saw it", async () => {
      const { session } = await newSession(20, { deposit_coin: "BTC", deposit_network: "bitcoin" })
      await env.control.deposit(session.data!.shift_id as string)
      await expect(service.deletePaymentSession(session.id)).rejects.toThrow(/already on its way/)
      expect(await service.listPaymentSessions({ id: session.id })).toHaveLength(1)
    })

    it("deletes a session whose deposits the service is all sending back, though the data last said multiple", async () => {
      const { session } = await newSession(20, { deposit_coin: "BTC", deposit_network: "bitcoin" })
      const shiftId = session.data!.shift_id as string
      // Two wrong amounts: both go back to the shopper.
      await env.control.deposit(shiftId, { amount: "0.00001" })
      await env.control.deposit(shiftId, { amount: "0.00001" })
      expect(await (await fetch(`${env.sandbox.baseUrl}/v2/shifts/${shiftId}`)).json()).toMatchObject({ status: "multiple" })
      await service.updatePaymentSession({ id: session.id, amount: 20, currency_code: "usd", data: { ...session.data, status: "multiple" } })
      await service.deletePaymentSession(session.id)
      expect(await service.listPaymentSessions({ id: session.id })).toEqual([])
    })

    it("deletes a session when the service can't be asked: a cart stays editable while it is down", async () => {
      const { session } = await newSession(20, { deposit_coin: "BTC", deposit_network: "bitcoin" })
      await env.sandbox.addFault({ method: "GET", path: `/v2/shifts/${session.data!.shift_id}`, status: 503, times: 10 })
      await service.deletePaymentSession(session.id)
      expect(await service.listPaymentSessions({ id: session.id })).toEqual([])
      expect(await env.control.requestsTo("GET", `/v2/shifts/${session.data!.shift_id}`)).toHaveLength(1)
    })

    it("records a refund of a settled payment in Medusa, keeping the payment's data as it was", async () => {
      const { session } = await newSession(80, { deposit_coin: "BTC", deposit_network: "bitcoin" })
      const shiftId = session.data!.shift_id as string
      await env.control.deposit(shiftId)
      await env.control.walk(shiftId, ["processing", "settling", "settled"])
      const payment = (await service.authorizePaymentSession(session.id, {}))!
      const refunded = await service.refundPayment({ payment_id: payment.id, amount: 30 })
      expect(refunded.refunds).toHaveLength(1)
      const [stored] = await service.listPayments({ id: payment.id }, { select: ["data"] })
      expect(stored.data).toMatchObject({ shift_id: shiftId, status: "settled", deposit_coin: "BTC" })
      expect(stored.data).not.toHaveProperty("refunds")
    })
  },
})
