import { medusaIntegrationTestRunner } from "@medusajs/test-utils"
import { ContainerRegistrationKeys } from "@medusajs/framework/utils"
import type { MedusaContainer } from "@medusajs/framework/types"
import { setTimeout as sleep } from "node:timers/promises"
import { useSandbox } from "../helpers/sandbox"
import { createStoreFixture, PROVIDERS, type StoreFixture } from "../helpers/store-fixtures"
import { storefront } from "../helpers/storefront"
import { ledgerOf, reconcile, sessionMadeAt } from "../helpers/ledger"
import { waitFor } from "../helpers/wait-for"
import { idTime } from "../../src/workflows/steps/discovery-window"

jest.setTimeout(240_000)

const env = useSandbox()
const BTC = { deposit_coin: "BTC", deposit_network: "bitcoin" }
const HOUR = 60 * 60 * 1000

medusaIntegrationTestRunner({
  testSuite: ({ api, getContainer }) => {
    let store: StoreFixture
    let shop: ReturnType<typeof storefront>

    beforeEach(async () => {
      store = await createStoreFixture(getContainer())
      shop = storefront(api, store)
    })

    /** A crypto payment session whose creation the ledger recorded, as it does when nothing is lost. */
    async function trackedSession(container: MedusaContainer): Promise<string> {
      const { session } = await shop.createPaymentSession((await shop.createCart()).id, PROVIDERS.default, BTC)
      await waitFor(`the ledger to track ${session.id}`, () => ledgerOf(container).listSwapShifts({ payment_session_id: session.id }), (rows) => rows.length === 1)
      return session.id
    }

    /** A session whose creation the ledger lost; with `madeAt`, made at that time. */
    async function lostSession(container: MedusaContainer, madeAt?: number): Promise<string> {
      const id = await trackedSession(container)
      const ledger = ledgerOf(container)
      await ledger.deleteSwapShifts((await ledger.listSwapShifts({ payment_session_id: id }))[0].id)
      return madeAt === undefined ? id : sessionMadeAt(container, id, madeAt)
    }

    it("looks back one hour on its first tick, then reads only the sessions made since its watermark", async () => {
      const container = getContainer()
      const ledger = ledgerOf(container)
      const beforeTheHour = await lostSession(container, Date.now() - 2 * HOUR)
      const withinTheHour = await lostSession(container, Date.now() - HOUR / 2)

      const first = await reconcile(container)
      expect(first.discovery).toMatchObject({ discovered: 1, read: 1, loaded: 1 })
      expect(await ledger.listSwapShifts({ payment_session_id: [beforeTheHour, withinTheHour] }, { select: ["payment_session_id"] })).toEqual([
        expect.objectContaining({ payment_session_id: withinTheHour }),
      ])

      // Two sessions made since, both recorded when made: read by id, and not again.
      await trackedSession(container)
      await trackedSession(container)
      const next = await reconcile(container)
      expect(next.discovery).toMatchObject({ discovered: 0, read: 2, loaded: 0 })
      const idle = await reconcile(container)
      expect(idle.discovery).toMatchObject({ discovered: 0, read: 0, loaded: 0 })
      expect(idle.refunds).toMatchObject({ recorded: [], read: 0 })
    })

    it("finds a session that became visible only after a later tick had looked, once the overlap behind the watermark has passed", async () => {
      const container = getContainer()
      const overlapMs = 3000
      process.env.CRYPTO_SWAP_DISCOVERY_OVERLAP_MS = String(overlapMs)
      try {
        await reconcile(container)
        // Its id's time set now, after the ledger lost it: the overlap counts from here, however slow its creation was.
        const late = await sessionMadeAt(container, await lostSession(container), Date.now())
        // Not yet visible to the next tick, as if its transaction had not committed.
        const sessions = () => container.resolve(ContainerRegistrationKeys.PG_CONNECTION)("payment_session").where({ id: late })
        await sessions().update({ deleted_at: new Date() })
        expect((await reconcile(container)).discovered).toBe(0)
        await sessions().update({ deleted_at: null })

        // The ticks after it start at its watermark, past the session's id: only the settled look finds it.
        const ticks = [await reconcile(container)]
        await sleep(Math.max(0, idTime(late) + overlapMs + 100 - Date.now()))
        ticks.push(await reconcile(container))
        // Found once, by whichever of the two ticks came the overlap after its id's time.
        expect(ticks.map((tick) => tick.discovered).sort()).toEqual([0, 1])
        expect(await ledgerOf(container).listSwapShifts({ payment_session_id: late })).toHaveLength(1)
        expect((await reconcile(container)).discovered).toBe(0)
      } finally {
        delete process.env.CRYPTO_SWAP_DISCOVERY_OVERLAP_MS
      }
    })
  },
})
