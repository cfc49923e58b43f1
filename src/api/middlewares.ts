import { defineMiddlewares, validateAndTransformBody } from "@medusajs/framework/http"
import { registerWebhookSchema } from "./admin/crypto-swap/validators"
import { attachCustomerIp } from "./middlewares/attach-customer-ip"
import { checkSessionData } from "./middlewares/check-session-data"
import { reuseWaitingSession } from "./middlewares/reuse-waiting-session"
import { answerWaitingCompletion } from "./middlewares/answer-waiting-completion"
import { throttlePaymentSessions, throttleSessionShifts, throttleTopUps } from "./middlewares/throttle-shift-creation"
import { throttleEstimates, throttlePermissions } from "./middlewares/throttle-service-reads"
import { tooManyRequestsErrorHandler } from "./middlewares/too-many-requests"
import { chooseShopperLanguage } from "./shopper-language"

export default defineMiddlewares({
  // The service's 429 (a session, a requote, an estimate) is answered 429 with Retry-After; the rest as Medusa
  // does; a shopper's refusal in their language.
  errorHandler: tooManyRequestsErrorHandler,
  routes: [
    {
      // Medusa runs a wildcard's middlewares before those of the routes under it: the language is chosen first.
      matcher: "/store/crypto-swap/*",
      middlewares: [chooseShopperLanguage],
    },
    {
      matcher: "/store/payment-collections/:id/payment-sessions",
      method: ["POST"],
      // A session asked for again is answered first (it costs nothing, and its shift is already counted in
      // the variable pool); then the checks, then the throttles: a request refused for its data spends no budget.
      middlewares: [chooseShopperLanguage, attachCustomerIp, reuseWaitingSession, checkSessionData, throttlePaymentSessions],
    },
    {
      matcher: "/store/crypto-swap/payment-sessions/:id/requote",
      method: ["POST"],
      middlewares: [throttleSessionShifts],
    },
    {
      matcher: "/store/crypto-swap/payment-sessions/:id/top-up",
      method: ["POST"],
      middlewares: [throttleTopUps],
    },
    {
      matcher: "/store/crypto-swap/estimate",
      method: ["GET"],
      middlewares: [throttleEstimates],
    },
    {
      matcher: "/store/crypto-swap/permissions",
      method: ["GET"],
      middlewares: [throttlePermissions],
    },
    {
      matcher: "/store/carts/:id/complete",
      method: ["POST"],
      middlewares: [chooseShopperLanguage, answerWaitingCompletion],
    },
    {
      // Notifications are small; anything larger is refused before it is parsed.
      matcher: "/hooks/crypto-swap/:token",
      method: ["POST"],
      bodyParser: { sizeLimit: "32kb" },
      middlewares: [],
    },
    {
      matcher: "/admin/crypto-swap/webhooks",
      method: ["POST"],
      middlewares: [validateAndTransformBody(registerWebhookSchema)],
    },
  ],
})
