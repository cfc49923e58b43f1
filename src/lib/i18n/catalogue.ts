import { MedusaError } from "@medusajs/framework/utils"
import { en } from "./messages/en"
import { de } from "./messages/de"
import { es } from "./messages/es"
import { fr } from "./messages/fr"
import { pt } from "./messages/pt"

export type MessageKey = keyof typeof en
/** A complete language: English's keys, every one of them. */
export type Messages = Record<MessageKey, string>
/** A store's additions and overrides, per language (the `messages` option). */
export type MessageOverrides = Record<string, Partial<Messages>>

/** A value put into a message: plain, or itself a text in the shopper's language ("in 42 seconds"). */
export type TextParam = string | number | ShopperText
/** A text to show a shopper, not yet in any language. */
export type ShopperText = { key: MessageKey; params?: Record<string, TextParam> }
/** Renders a text in one language. */
export type Say = (text: ShopperText) => string

export const MESSAGE_KEYS = Object.keys(en) as [MessageKey, ...MessageKey[]]

export const SHIPPED_LANGUAGES: Readonly<Record<string, Messages>> = { en, de, fr, es, pt }

export const text = (key: MessageKey, params?: Record<string, TextParam>): ShopperText => (params ? { key, params } : { key })

const PLACEHOLDER = /\{([a-z_]+)\}/g

/** `{name}` replaced by its value; a placeholder without one stays as written, so a gap shows rather than lies. */
export function interpolate(template: string, params: Record<string, TextParam> | undefined, say: Say): string {
  return template.replace(PLACEHOLDER, (whole, name: string) => {
    const value = params?.[name]
    if (value === undefined) return whole
    return typeof value === "object" ? say(value) : String(value)
  })
}

/** The placeholders a message uses (for checking a translation or an override against English). */
export function placeholders(template: string): string[] {
  return [...template.matchAll(PLACEHOLDER)].map((match) => match[1])
}

/** Renders texts in `language`, English where the language (or the store's override of it) lacks a key. */
export function sayIn(language: string, overrides: MessageOverrides = {}): Say {
  const messages: Partial<Messages> = { ...SHIPPED_LANGUAGES[language], ...overrides[language] }
  const say: Say = ({ key, params }) => interpolate(messages[key] ?? en[key], params, say)
  return say
}

/** English, as logs, admins and existing clients read every text. */
export const english: Say = sayIn("en")

/** The languages a store can answer in: those shipped and those its overrides add. */
export function availableLanguages(overrides: MessageOverrides = {}): string[] {
  return [...new Set([...Object.keys(SHIPPED_LANGUAGES), ...Object.keys(overrides)])]
}

const isKey = (value: unknown): value is MessageKey => typeof value === "string" && Object.prototype.hasOwnProperty.call(en, value)

function isText(value: unknown, depth = 0): value is ShopperText {
  if (!value || typeof value !== "object" || depth > 3) return false
  const { key, params } = value as { key?: unknown; params?: unknown }
  if (!isKey(key)) return false
  if (params === undefined) return true
  if (!params || typeof params !== "object") return false
  return Object.values(params).every((param) => typeof param === "string" || typeof param === "number" || isText(param, depth + 1))
}

/**
 * An error a shopper may read, with its text kept beside the English message: an own property, so it
 * survives the workflow engine's serialization of a step's error and the store's error handler can answer
 * it in the shopper's language.
 */
export function withShopperText<E extends Error>(error: E, shopperText: ShopperText): E {
  return Object.assign(error, { shopper_text: shopperText })
}

export function shopperError(type: (typeof MedusaError.Types)[keyof typeof MedusaError.Types], shopperText: ShopperText): MedusaError {
  return withShopperText(new MedusaError(type, english(shopperText)), shopperText)
}

/** The text an error (or its serialized copy) carries for the shopper, if it is a well-formed one. */
export function shopperTextOf(error: unknown): ShopperText | undefined {
  const carried = error && typeof error === "object" ? (error as { shopper_text?: unknown }).shopper_text : undefined
  return isText(carried) ? carried : undefined
}
