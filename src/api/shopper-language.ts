import type { MedusaNextFunction, MedusaRequest, MedusaResponse } from "@medusajs/framework/http"
import { ContainerRegistrationKeys } from "@medusajs/framework/utils"
import { z } from "@medusajs/framework/zod"
import { availableLanguages, english, languageTagSchema, negotiateLanguage, sayIn, shopperTextOf, type Say } from "../lib/i18n"
import { storeMessages } from "../lib/provider-registry"
import { parseInput } from "./parse-input"

/** Medusa takes `?locale=` (or `x-medusa-locale`) off the query into `req.locale` before any route middleware. */
const localeSchema = z.object({ locale: languageTagSchema.optional() })

/** The shopper's language per request, once the middleware below has chosen it. */
const languages = new WeakMap<MedusaRequest, Say>()

/**
 * Chooses once per request the language a shopper is answered in: the request's `locale` when the store has
 * that language, else the best of `Accept-Language`, else English; the store's `messages` override or add.
 * Runs on the store routes where the plugin answers, so that an error thrown deep inside is answered in
 * that language at the boundary (`shopperMessage`, in the plugin's error handler).
 */
export function chooseShopperLanguage(req: MedusaRequest, _res: MedusaResponse, next: MedusaNextFunction) {
  try {
    const { locale } = parseInput(localeSchema, { locale: req.locale })
    const overrides = storeMessages(req.scope.resolve(ContainerRegistrationKeys.CONFIG_MODULE))
    languages.set(req, sayIn(negotiateLanguage(locale, req.get("accept-language"), availableLanguages(overrides)), overrides))
    next()
  } catch (error) {
    next(error)
  }
}

/** Renders texts for this request's shopper (English where no language was chosen). */
export function sayTo(req: MedusaRequest): Say {
  return languages.get(req) ?? english
}

/** An error's shopper text in this request's shopper's language; none where no language was chosen (the admin's). */
export function shopperMessage(error: unknown, req: MedusaRequest): string | undefined {
  const say = languages.get(req)
  const shopperText = shopperTextOf(error)
  return say && shopperText ? say(shopperText) : undefined
}
