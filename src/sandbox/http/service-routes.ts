import { Router } from "express"
import { assertAffiliate, createAccount } from "../accounts"
import { coinsListing, parseCoinNetwork } from "../catalogue"
import { checkoutView } from "../checkout-view"
import { createCheckout, findCheckout } from "../checkouts"
import { pairsAmong, pairView } from "../pairs"
import { createQuote } from "../quotes"
import {
  cancelOrderRequestSchema,
  checkoutRequestSchema,
  fixedShiftRequestSchema,
  pairQuerySchema,
  parseRequest,
  quoteRequestSchema,
  refundAddressRequestSchema,
  variableShiftRequestSchema,
} from "../request-schemas"
import type { SandboxRuntime } from "../runtime"
import { badUserInput } from "../service-error"
import { shiftView, quoteView } from "../shift-view"
import type { Shift } from "../state"
import { cancelOrder, createFixedShift, createVariableShift, findOwnShift, findShift, setRefundAddress } from "../shifts"
import { accountOf, assertValidUserIp, authenticated, callerIp, endUserAllowed, withinRateLimit } from "./guards"

/** `a,b,c` from a query parameter. */
function listParameter(value: unknown): string[] {
  return typeof value === "string" ? value.split(",").map((item) => item.trim()).filter(Boolean) : []
}

/** `/create-account` (unversioned) and the `/v2` REST interface. */
export function serviceRoutes(runtime: SandboxRuntime): Router {
  const router = Router()
  const v2 = Router()
  router.post("/create-account", (_req, res) => {
    res.status(201).json(createAccount(runtime.state))
  })
  router.use("/v2", v2)

  const auth = authenticated(runtime)
  const endUser = endUserAllowed(runtime)
  const view = (shift: Shift) => shiftView(shift, runtime.clock.now())

  v2.get("/coins", (_req, res) => {
    res.json(coinsListing())
  })

  v2.get("/permissions", (req, res) => {
    const ip = callerIp(req)
    if (req.header("x-user-ip") !== undefined) {
      assertValidUserIp(ip)
    }
    res.json({ createShift: !runtime.settings.blockedIps.has(ip) })
  })

  v2.get("/pair/:from/:to", auth, (req, res) => {
    const query = parseRequest(pairQuerySchema, req.query)
    assertAffiliate(runtime.state, query.affiliateId)
    res.json(pairView(parseCoinNetwork(req.params.from, "deposit"), parseCoinNetwork(req.params.to, "settle"), query.commissionRate, query.amount))
  })

  v2.get("/pairs", auth, (req, res) => {
    const query = parseRequest(pairQuerySchema, req.query)
    assertAffiliate(runtime.state, query.affiliateId)
    const coins = listParameter(req.query.pairs)
    if (coins.length < 2) {
      throw badUserInput("pairs must list at least two coins, e.g. pairs=btc-bitcoin,usdc-ethereum")
    }
    res.json(pairsAmong(coins.map((coin) => parseCoinNetwork(coin, "deposit")), query.commissionRate))
  })

  v2.post("/quotes", withinRateLimit(runtime, "quotes"), auth, endUser, (req, res) => {
    res.status(201).json(quoteView(createQuote(runtime, parseRequest(quoteRequestSchema, req.body))))
  })

  const shiftLimit = withinRateLimit(runtime, "shifts")
  v2.post("/shifts/fixed", shiftLimit, auth, endUser, (req, res) => {
    res.status(201).json(view(createFixedShift(runtime, accountOf(res), parseRequest(fixedShiftRequestSchema, req.body))))
  })

  v2.post("/shifts/variable", shiftLimit, auth, endUser, (req, res) => {
    res.status(201).json(view(createVariableShift(runtime, accountOf(res), parseRequest(variableShiftRequestSchema, req.body))))
  })

  // Bulk read: unknown ids are left out.
  v2.get("/shifts", (req, res) => {
    const ids = listParameter(req.query.ids)
    if (ids.length === 0) {
      throw badUserInput("ids must list at least one shift id")
    }
    res.json(ids.flatMap((id) => (runtime.state.shifts.has(id) ? [view(findShift(runtime, id))] : [])))
  })

  v2.get("/shifts/:id", (req, res) => {
    res.json(view(findShift(runtime, req.params.id)))
  })

  // The account acts here, not the shopper's order page (the pay page's own form needs no secret).
  v2.post("/shifts/:id/set-refund-address", auth, (req, res) => {
    const { id } = findOwnShift(runtime, accountOf(res).id, req.params.id)
    res.status(201).json(view(setRefundAddress(runtime, id, parseRequest(refundAddressRequestSchema, req.body))))
  })

  v2.post("/cancel-order", auth, (req, res) => {
    const { orderId } = parseRequest(cancelOrderRequestSchema, req.body)
    cancelOrder(runtime, findOwnShift(runtime, accountOf(res).id, orderId).id)
    res.status(204).end()
  })

  v2.post("/checkout", auth, endUser, (req, res) => {
    const checkout = createCheckout(runtime, accountOf(res), parseRequest(checkoutRequestSchema, req.body))
    res.status(201).json(checkoutView(checkout, runtime.state, false))
  })

  v2.get("/checkout/:id", (req, res) => {
    res.json(checkoutView(findCheckout(runtime, req.params.id), runtime.state, true))
  })

  return router
}
