import { medusaIntegrationTestRunner } from "@medusajs/test-utils"
import { ContainerRegistrationKeys } from "@medusajs/framework/utils"
import { useSandbox } from "../helpers/sandbox"
import { createStoreFixture, PROVIDERS } from "../helpers/store-fixtures"
import { storefront } from "../helpers/storefront"
import { ledgerRow, orderWithPayments, reconcile } from "../helpers/ledger"
import { redisAnswers, startSecondProcess, useRedis } from "../helpers/multi-process"

jest.setTimeout(240_000)

const DB_NAME = "crypto_swap_multi_process"

if (!redisAnswers()) {
  describe("two Medusa processes sharing Redis", () => {
    it.skip("skipped: no Redis answers at 127.0.0.1:6379 (CI starts one; see .ci/run)", () => undefined)
  })
} else {
  useRedis(7)
  const env = useSandbox()

  medusaIntegrationTestRunner({
    dbName: DB_NAME,
    testSuite: ({ api, getContainer }) => {
      it("two processes reconcile the same shifts and capture each order exactly once", async () => {
        const container = getContainer()
        const store = await createStoreFixture(container)
        const shop = storefront(api, store)
        const payments: Array<{ cartId: string; shiftId: string }> = []
        for (let i = 0; i < 4; i++) {
          const cart = await shop.createCart()
          const { session } = await shop.createPaymentSession(cart.id, PROVIDERS.default, {
            deposit_coin: "BTC",
            deposit_network: "bitcoin",
          })
          payments.push({ cartId: cart.id, shiftId: session.data.shift_id })
        }
        await reconcile(container)

        const second = startSecondProcess(DB_NAME)
        await second.ready
        for (const { shiftId } of payments) {
          await env.control.deposit(shiftId)
          await env.control.walk(shiftId, ["processing", "settling", "settled"])
        }
        // This process reconciles too, several times at once, while the other one does the same.
        for (let round = 0; round < 5; round++) {
          await Promise.all([reconcile(container), reconcile(container), reconcile(container)])
        }
        expect(await second.stop()).toBe(0)
        expect(second.output()).toMatch(/second process: \d+ rounds done/)
        await reconcile(container)

        const query = container.resolve(ContainerRegistrationKeys.QUERY)
        for (const { cartId, shiftId } of payments) {
          const { data: orders } = await query.graph({ entity: "order_cart", fields: ["order_id"], filters: { cart_id: cartId } })
          expect(orders).toHaveLength(1)
          const order = await orderWithPayments(container, cartId)
          expect(order!.payments).toHaveLength(1)
          expect(order!.payments[0].captures).toHaveLength(1)

          const row = await ledgerRow(container, { shift_id: shiftId })
          expect(row).toMatchObject({ status: "settled", terminal: true })
          expect(row.events.filter((event: any) => event.action === "captured")).toHaveLength(1)
          // History without gaps: each change starts where the previous one ended.
          const changes = row.events.filter((event: any) => !event.action)
          changes.slice(1).forEach((event: any, i: number) => expect(event.from_status).toBe(changes[i].to_status))
          expect(changes[changes.length - 1].to_status).toBe("settled")
        }
      })
    },
  })
}
