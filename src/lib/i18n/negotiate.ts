import { z } from "@medusajs/framework/zod"
import { availableLanguages, sayIn, type MessageOverrides, type Say } from "./catalogue"

/** A BCP 47 language tag as a storefront sends it (`de`, `pt-BR`, `zh-Hant-TW`); its language is the first part. */
export const languageTagSchema = z
  .string()
  .max(35)
  .regex(/^[A-Za-z]{2,3}(-[A-Za-z0-9]{1,8}){0,3}$/, "must be a language tag, such as de or pt-BR")

/** A language the store may add or override (`messages` option): the tag's language part, lower case. */
export const languageSchema = z.string().regex(/^[a-z]{2,3}$/)

/** More than any browser sends: the rest of a longer header is ignored rather than parsed. */
const MAX_RANGES = 20
const RANGE = /^\s*([A-Za-z]{1,8}(?:-[A-Za-z0-9]{1,8})*|\*)\s*(?:;\s*q\s*=\s*(0(?:\.\d{0,3})?|1(?:\.0{0,3})?))?\s*$/

const languageOf = (tag: string) => tag.split("-")[0].toLowerCase()

/** The languages an `Accept-Language` header asks for, most wanted first; malformed ranges are skipped. */
export function acceptedLanguages(header: string | undefined): string[] {
  if (!header) return []
  const ranges = header
    .slice(0, 1024)
    .split(",")
    .slice(0, MAX_RANGES)
    .flatMap((range, order) => {
      const match = RANGE.exec(range)
      if (!match || match[1] === "*") return []
      const quality = match[2] === undefined ? 1 : Number(match[2])
      return quality > 0 ? [{ language: languageOf(match[1]), quality, order }] : []
    })
  ranges.sort((a, b) => b.quality - a.quality || a.order - b.order)
  return ranges.map((range) => range.language)
}

/**
 * The language to answer a shopper in: the one the request names (`?locale=`, checked beforehand) when the
 * store has it, else the first of `Accept-Language` it has (`de-CH` is `de`), else English.
 */
export function negotiateLanguage(named: string | undefined, acceptLanguage: string | undefined, available: readonly string[]): string {
  const candidates = [...(named ? [languageOf(named)] : []), ...acceptedLanguages(acceptLanguage)]
  return candidates.find((language) => available.includes(language)) ?? "en"
}

/**
 * How to speak to a shopper: in the language `locale` names when the store has it (a locale that is no
 * language tag, e.g. `en_US` as Medusa passes it on, is passed over, never refused), else the best of
 * `Accept-Language`, else English; the store's `messages` override and add. The store routes and the
 * notifications choose alike.
 */
export function sayToShopper(locale: unknown, acceptLanguage: string | undefined, overrides: MessageOverrides): Say {
  const named = languageTagSchema.safeParse(locale)
  return sayIn(negotiateLanguage(named.success ? named.data : undefined, acceptLanguage, availableLanguages(overrides)), overrides)
}
