import { defineMiddlewares, validateAndTransformBody } from "@medusajs/framework/http"
import { registerWebhookSchema } from "./admin/crypto-swap/validators"
import { attachCustomerIp } from "./middlewares/attach-customer-ip"
import { checkSessionData } from "./middlewares/check-session-data"
import { answerWaitingCompletion } from "./middlewares/answer-waiting-completion"

export default defineMiddlewares({
  routes: [
    {
      matcher: "/store/payment-collections/:id/payment-sessions",
      method: ["POST"],
      middlewares: [attachCustomerIp, checkSessionData],
    },
    {
      matcher: "/store/carts/:id/complete",
      method: ["POST"],
      middlewares: [answerWaitingCompletion],
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
