import type { MedusaNextFunction, MedusaRequest, MedusaResponse } from "@medusajs/framework/http"
import { ContainerRegistrationKeys } from "@medusajs/framework/utils"
import { english, sayToShopper, shopperTextOf, type Say } from "../lib/i18n"
import { storeMessages } from "../lib/provider-registry"

/** The shopper's language per request, once the middleware below has chosen it. */
const languages = new WeakMap<MedusaRequest, Say>()

/**
 * Chooses once per request the language a shopper is answered in: the request's `locale` when the store has
 * that language, else the best of `Accept-Language`, else English; the store's `messages` override or add.
 * Runs on the store routes where the plugin answers, so that an error thrown deep inside is answered in
 * that language at the boundary (`shopperMessage`, in the plugin's error handler). A `locale` that is no
 * language tag (Medusa takes `?locale=` or `x-medusa-locale` into `req.locale` as sent, e.g. `en_US`) is
 * passed over, never refused: this runs on Medusa's own checkout routes, for every payment provider.
 */
export function chooseShopperLanguage(req: MedusaRequest, _res: MedusaResponse, next: MedusaNextFunction) {
  try {
    languages.set(req, sayToShopper(req.locale, req.get("accept-language"), storeMessages(req.scope.resolve(ContainerRegistrationKeys.CONFIG_MODULE))))
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
