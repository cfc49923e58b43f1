import { medusaIntegrationTestRunner } from "@medusajs/test-utils"
import { useSandbox } from "../helpers/sandbox"
import { createStoreFixture, PROVIDERS } from "../helpers/store-fixtures"
import { failing, storefront } from "../helpers/storefront"

// What a shopper reads from the store routes, in their language: `?locale=` first, then Accept-Language,
// then English; the store's `messages` option overrides a shipped text and adds a language.

jest.setTimeout(120_000)

process.env.CRYPTO_SWAP_TEST_MESSAGES = JSON.stringify({
  de: { "view.headline.awaiting_deposit": "Zahlung ausstehend" },
  it: { "view.headline.awaiting_deposit": "In attesa del pagamento" },
})
const env = useSandbox()
const BTC = { deposit_coin: "BTC", deposit_network: "bitcoin" }
const XRP = { deposit_coin: "XRP", deposit_network: "ripple" }
const BTC_REFUND = "bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq"
const ROUTES = "/store/crypto-swap"

medusaIntegrationTestRunner({
  testSuite: ({ api, getContainer }) => {
    let shop: ReturnType<typeof storefront>

    afterAll(() => {
      delete process.env.CRYPTO_SWAP_TEST_MESSAGES
    })

    beforeEach(async () => {
      await env.control.reset()
      shop = storefront(api, await createStoreFixture(getContainer()))
    })

    const inLanguage = (acceptLanguage?: string) => ({
      headers: { ...shop.headers.headers, ...(acceptLanguage ? { "accept-language": acceptLanguage } : {}) },
    })
    const get = (url: string, acceptLanguage?: string) => api.get(url, inLanguage(acceptLanguage))
    const post = (url: string, body: unknown, acceptLanguage?: string) => api.post(url, body, inLanguage(acceptLanguage))

    async function paySession(data: Record<string, unknown>) {
      const cart = await shop.createCart()
      const { session } = await shop.createPaymentSession(cart.id, PROVIDERS.default, data)
      return { cart, session }
    }

    it("shows the payment view in the shopper's language, with the store's own headline", async () => {
      const { cart, session } = await paySession(XRP)
      const { deposit_amount: amount, deposit_address: address, deposit_memo: memo } = session.data
      const url = `${ROUTES}/payment-sessions/${session.id}?cart_id=${cart.id}`

      const german = (await get(url, "de-CH, en;q=0.5")).data.payment
      // Overridden by the store; the rest is the shipped German.
      expect(german.headline).toBe("Zahlung ausstehend")
      expect(german.next_step).toBe(`Senden Sie vor Ablauf der Frist genau ${amount} XRP über ripple mit dem Memo an die unten stehende Adresse.`)
      expect(german.deposit.memo_warning).toBe("Geben Sie dieses Memo in Ihrer Transaktion an. Ohne Memo kann Ihre Einzahlung verloren gehen.")
      expect(german.qr_alt).toBe(`QR-Code zum Bezahlen von ${amount} XRP über ripple an die Adresse ${address}, mit dem Memo ${memo}.`)

      const french = (await get(url, "fr-FR,fr;q=0.9")).data.payment
      expect(french.headline).toBe("En attente de votre paiement")
      expect(french.next_step).toBe(`Envoyez exactement ${amount} XRP sur ripple à l’adresse ci-dessous, avec le mémo, avant la date limite.`)
      expect(french.deposit.memo_warning).toBe("Indiquez ce mémo dans votre transaction. Sans lui, votre dépôt risque d’être perdu.")

      // A language only the store adds: its own text, English where it has none.
      const italian = (await get(url, "it")).data.payment
      expect(italian.headline).toBe("In attesa del pagamento")
      expect(italian.next_step).toBe(`Send exactly ${amount} XRP on ripple to the address below, with the memo, before the deadline.`)

      // No language asked for, one the store lacks, or a header that is nonsense: English, as before.
      for (const acceptLanguage of [undefined, "ja-JP", "*;q=1, de;q=abc, ;;, en-US;q=2, x".repeat(40)]) {
        const english = (await get(url, acceptLanguage)).data.payment
        expect(english.headline).toBe("Waiting for your payment")
        expect(english.deposit.memo_warning).toBe("Include this memo in your transaction. Without it your deposit may be lost.")
      }
    })

    it("prefers the request's locale to Accept-Language, and passes over one that is no language tag", async () => {
      const { cart, session } = await paySession(BTC)
      const url = `${ROUTES}/payment-sessions/${session.id}?cart_id=${cart.id}`
      const spanish = (await get(`${url}&locale=es-MX`, "de")).data.payment
      expect(spanish.headline).toBe("Esperando su pago")
      expect(spanish.next_step).toBe(
        `Envíe exactamente ${session.data.deposit_amount} BTC en bitcoin a la dirección indicada abajo antes de que venza el plazo.`
      )
      // A language the store lacks: Accept-Language decides.
      expect((await get(`${url}&locale=ja`, "pt-BR, de;q=0.8")).data.payment.headline).toBe("Aguardando o seu pagamento")

      // Passed over, never refused (this runs on Medusa's own checkout routes too): Accept-Language decides.
      expect((await get(`${url}&locale=${encodeURIComponent("<script>")}`, "de")).data.payment.headline).toBe(
        (await get(url, "de")).data.payment.headline
      )
      expect((await get(`${url}&locale=en_US`, "fr")).data.payment.headline).toBe((await get(url, "fr")).data.payment.headline)
    })

    it("refuses in the shopper's language: a coin the service does not accept, a refund address too early, an unknown session", async () => {
      const { cart, session } = await paySession(BTC)

      const coin = await failing(get(`${ROUTES}/estimate?cart_id=${cart.id}&coin=NOPE&network=nowhere`, "fr"))
      expect(coin.status).toBe(400)
      expect(coin.data.message).toBe("NOPE sur nowhere n’est pas une combinaison de cryptomonnaie et de réseau acceptée par le service.")
      const english = await failing(get(`${ROUTES}/estimate?cart_id=${cart.id}&coin=NOPE&network=nowhere`))
      expect(english.data.message).toBe("NOPE on nowhere is not a coin and network the service accepts.")

      // Refused inside a workflow step: the text survives the workflow engine on its way to the answer.
      const early = await failing(post(`${ROUTES}/payment-sessions/${session.id}/refund-address`, { cart_id: cart.id, address: BTC_REFUND }, "de-AT"))
      expect(early.status).toBe(400)
      expect(early.data.message).toBe("Eine Erstattungsadresse kann nur angegeben werden, solange die Zahlung auf eine Erstattung wartet.")

      const unknown = await failing(get(`${ROUTES}/payment-sessions/payses_01NOSUCHSESSION?cart_id=${cart.id}&locale=pt`))
      expect(unknown.status).toBe(404)
      expect(unknown.data.message).toBe("Nenhum pagamento em cripto com este ID pertence a este carrinho")

      // Refused by the plugin's check before Medusa's session route: a coin the catalogue lacks.
      const collection = (await api.post("/store/payment-collections", { cart_id: cart.id }, shop.headers)).data.payment_collection
      const badSession = await failing(
        post(`/store/payment-collections/${collection.id}/payment-sessions`, { provider_id: PROVIDERS.default, data: { deposit_coin: "NOPE", deposit_network: "nowhere" } }, "es")
      )
      expect(badSession.status).toBe(400)
      expect(badSession.data.message).toBe("NOPE en nowhere no es una combinación de criptomoneda y red que acepte el servicio.")
    })

    it("answers a cart completed before the deposit with the waiting message in the shopper's language", async () => {
      const { cart, session } = await paySession(BTC)
      const complete = (query: string, acceptLanguage?: string) => post(`/store/carts/${cart.id}/complete${query}`, {}, acceptLanguage)

      const german = (await complete("", "de-DE,de;q=0.9,en;q=0.8")).data
      expect(german.type).toBe("cart")
      expect(german.error.message).toBe(`Wir warten auf Ihre Einzahlung: Senden Sie ${session.data.deposit_amount} BTC an die angezeigte Adresse.`)

      const portuguese = (await complete("?locale=pt-BR", "de")).data
      expect(portuguese.error.message).toBe(`Aguardando o seu depósito: envie ${session.data.deposit_amount} BTC para o endereço indicado.`)

      expect((await complete("")).data.error.message).toBe(`Waiting for your deposit: send ${session.data.deposit_amount} BTC to the address shown.`)
    })
  },
})
