import { defineMiddlewares } from "@medusajs/framework/http"
import { attachCustomerIp } from "./middlewares/attach-customer-ip"

export default defineMiddlewares({
  routes: [
    {
      matcher: "/store/payment-collections/:id/payment-sessions",
      method: ["POST"],
      middlewares: [attachCustomerIp],
    },
  ],
})
