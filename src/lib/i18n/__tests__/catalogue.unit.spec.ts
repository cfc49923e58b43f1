import { MedusaError } from "@medusajs/framework/utils"
import {
  acceptedLanguages,
  availableLanguages,
  english,
  interpolate,
  negotiateLanguage,
  placeholders,
  sayIn,
  SHIPPED_LANGUAGES,
  shopperError,
  shopperTextOf,
  text,
} from ".."
import { refusal } from "../../admission"
import { parseOptions } from "../../options"
import { toMedusaError } from "../../to-medusa-error"
import { SwapServiceError } from "../../swap-service"

const { en } = SHIPPED_LANGUAGES

describe("the message catalogue", () => {
  it("ships English, German, French, Spanish and Portuguese, each with every key and only English's placeholders", () => {
    expect(Object.keys(SHIPPED_LANGUAGES).sort()).toEqual(["de", "en", "es", "fr", "pt"])
    for (const [language, messages] of Object.entries(SHIPPED_LANGUAGES)) {
      expect({ language, keys: Object.keys(messages).sort() }).toEqual({ language, keys: Object.keys(en).sort() })
      for (const [key, message] of Object.entries(messages) as Array<[keyof typeof en, string]>) {
        expect({ language, key, empty: message.trim() === "" }).toEqual({ language, key, empty: false })
        const unknown = placeholders(message).filter((name) => !placeholders(en[key]).includes(name))
        expect({ language, key, unknown }).toEqual({ language, key, unknown: [] })
      }
    }
  })

  it("puts values in, texts within texts in the same language, and leaves a placeholder without a value as written", () => {
    const busy = text("service.busy", { wait: text("wait.seconds", { seconds: 42 }) })
    expect(english(busy)).toBe("The crypto payment service is busy; please try again in 42 seconds.")
    expect(sayIn("de")(busy)).toBe("Der Krypto-Zahlungsdienst ist ausgelastet; bitte versuchen Sie es in 42 Sekunden erneut.")
    expect(interpolate("{a} and {b} and {a}", { a: "x" }, english)).toBe("x and {b} and x")
    // A value is never read as a template: braces in a shopper's input stay as they are.
    expect(english(text("coin.not_accepted", { coin: "{network}", network: "n" }))).toBe("{network} on n is not a coin and network the service accepts.")
  })

  it("lets a store override a text and add a language, English filling the gaps", () => {
    const overrides = { de: { "view.headline.settled": "Fertig!" }, it: { "view.headline.settled": "Pagamento completato" } }
    expect(sayIn("de", overrides)(text("view.headline.settled"))).toBe("Fertig!")
    expect(sayIn("de", overrides)(text("view.headline.expired"))).toBe("Diese Zahlungsanforderung ist abgelaufen")
    expect(sayIn("it", overrides)(text("view.headline.settled"))).toBe("Pagamento completato")
    expect(sayIn("it", overrides)(text("view.headline.expired"))).toBe("This payment request has expired")
    expect(availableLanguages(overrides)).toEqual(["en", "de", "fr", "es", "pt", "it"])
  })

  it("keeps English as an error's message, and its text through a serialized copy", () => {
    const error = shopperError(MedusaError.Types.NOT_ALLOWED, text("store.cart_not_found", { cart: "cart_1" }))
    expect(error.message).toBe("Cart cart_1 was not found")
    const copy = JSON.parse(JSON.stringify({ ...error, message: error.message }))
    expect(sayIn("fr")(shopperTextOf(copy)!)).toBe("Le panier cart_1 est introuvable")
    // Only well-formed texts with known keys are taken.
    expect(shopperTextOf({ shopper_text: { key: "no.such.key" } })).toBeUndefined()
    expect(shopperTextOf({ shopper_text: { key: "view.headline.settled", params: { a: { key: "x" } } } })).toBeUndefined()
    expect(shopperTextOf(new Error("plain"))).toBeUndefined()
    // The service's 429 keeps its English message and carries the wait for any language.
    const limited = toMedusaError(new SwapServiceError({ operation: "getPair", kind: "response", status: 429, message: "slow down", retryAfterMs: 1000 }), "x")
    expect(limited.message).toBe("The crypto payment service is busy; please try again in 1 second.")
    expect(sayIn("es")(shopperTextOf(limited)!)).toBe("El servicio de pago con criptomonedas está saturado; vuelva a intentarlo dentro de 1 segundo.")
  })

  it("words an admission refusal in the shopper's language", () => {
    const refused = { admitted: false as const, scope: "ip" as const, retryAfterMs: 41_200 }
    expect(refusal("sessions", refused).message).toBe("Too many crypto payments were started from your connection; please try again in 42 seconds.")
    expect(refusal("sessions", refused, sayIn("pt")).message).toBe(
      "Foram iniciados pagamentos em cripto demais a partir da sua conexão; tente novamente em 42 segundos."
    )
  })
})

describe("the messages option", () => {
  const base = {
    baseUrl: "http://service.test",
    graphqlUrl: "http://service.test/graphql",
    payUrl: "http://pay.test",
    accountId: "account",
    privateKey: "secret",
    settlement: { usd: { coin: "USDC", network: "ethereum", address: "0x1" } },
  }

  it("takes overrides and new languages, and fails boot naming an unknown key, a bad language or an unknown placeholder", () => {
    const messages = { de: { "view.headline.settled": "Fertig" }, it: { "wait.seconds": "tra {seconds} secondi" } }
    expect(parseOptions({ ...base, messages }).messages).toEqual(messages)
    expect(() => parseOptions({ ...base, messages: { de: { "view.headline.done": "Fertig" } } })).toThrow(
      "`messages.de.view.headline.done` is not a message key"
    )
    expect(() => parseOptions({ ...base, messages: { "de-DE": {} } })).toThrow("`messages.de-DE` is not a language code")
    expect(() => parseOptions({ ...base, messages: { fr: { "wait.seconds": "dans {secondes} secondes" } } })).toThrow(
      "`messages.fr.wait.seconds` uses {secondes}, which this message does not have"
    )
  })
})

describe("choosing the shopper's language", () => {
  const shipped = Object.keys(SHIPPED_LANGUAGES)

  it("takes the request's locale when the store has it, else Accept-Language by quality, else English", () => {
    expect(negotiateLanguage("fr-CA", "de", shipped)).toBe("fr")
    expect(negotiateLanguage("ja", "de-CH, en;q=0.5", shipped)).toBe("de")
    expect(negotiateLanguage(undefined, "en;q=0.4, pt-BR;q=0.9, es;q=0.7", shipped)).toBe("pt")
    expect(negotiateLanguage(undefined, "ja, zh-Hant-TW;q=0.8", shipped)).toBe("en")
    expect(negotiateLanguage(undefined, undefined, shipped)).toBe("en")
    // Equal qualities keep the header's order; q=0 means "not this one".
    expect(negotiateLanguage(undefined, "es;q=0.5, fr;q=0.5", shipped)).toBe("es")
    expect(negotiateLanguage(undefined, "de;q=0, fr;q=0.1", shipped)).toBe("fr")
  })

  it("skips malformed ranges of a hostile header and never reads past its first ranges", () => {
    expect(acceptedLanguages("*, de;q=abc, fr;q=1.5, es;q=-1, ;;;, <script>, pt ; q = 0.3")).toEqual(["pt"])
    expect(acceptedLanguages("de;q=0.5;q=1")).toEqual([])
    expect(acceptedLanguages(`${"ja,".repeat(5000)}de`)).toEqual(new Array(20).fill("ja"))
    expect(acceptedLanguages("x".repeat(100_000))).toEqual([])
    expect(negotiateLanguage(undefined, "\u0000de, d\u00e9", shipped)).toBe("en")
    expect(negotiateLanguage(undefined, "__proto__, constructor", shipped)).toBe("en")
  })
})
