import { Router, type Request, type Response } from "express"
import { allAssets, isPairAvailable } from "../catalogue"
import { createCheckoutShift, findCheckout } from "../checkouts"
import type { SandboxRuntime } from "../runtime"
import { forbidden, ServiceError } from "../service-error"
import { setRefundAddress } from "../shifts"
import type { Checkout } from "../state"
import { callerIp } from "./guards"
import { renderCheckoutNotFound, renderPayPage, type DepositOption } from "./pay-page-html"

/** Every coin and network that can pay the checkout with a fixed-rate shift. */
function depositOptions(checkout: Checkout): DepositOption[] {
  return allAssets()
    .filter((deposit) => isPairAvailable(deposit, checkout.settle, "fixed"))
    .map((deposit) => ({
      value: `${deposit.coin.coin.toLowerCase()}-${deposit.network}`,
      label: `${deposit.coin.name} (${deposit.coin.coin}) on ${deposit.network}`,
    }))
}

const formField = (req: Request, name: string): string | undefined => {
  const value = (req.body as Record<string, unknown> | undefined)?.[name]
  return typeof value === "string" && value.trim() ? value.trim() : undefined
}

/** `GET /checkout/{id}` and the form posts behind it: the payer's side of the hosted checkout. */
export function payPageRoutes(runtime: SandboxRuntime): Router {
  const router = Router()

  const render = (res: Response, checkout: Checkout, error?: ServiceError) => {
    const latest = checkout.shiftIds[0]
    const shift = latest === undefined ? undefined : runtime.shiftView(latest)
    res
      .status(error?.status ?? 200)
      .type("html")
      .send(renderPayPage({ checkout, shift, depositOptions: depositOptions(checkout), error: error?.message }))
  }

  /** Runs a payer action, then shows the page again: redirected on success, with the message on failure. */
  const action = (act: (req: Request, checkout: Checkout) => void) => (req: Request, res: Response) => {
    const checkout = findCheckout(runtime, req.params.id)
    try {
      act(req, checkout)
      res.redirect(303, `/checkout/${encodeURIComponent(checkout.id)}`)
    } catch (error) {
      if (!(error instanceof ServiceError)) {
        throw error
      }
      render(res, checkout, error)
    }
  }

  router.get("/:id", (req, res) => {
    render(res, findCheckout(runtime, req.params.id))
  })

  router.post(
    "/:id/shifts",
    action((req, checkout) => {
      if (runtime.settings.blockedIps.has(callerIp(req))) {
        throw forbidden("Access denied")
      }
      createCheckoutShift(runtime, checkout, formField(req, "deposit") ?? "", formField(req, "refundAddress"))
    })
  )

  router.post(
    "/:id/simulate-deposit",
    action((_req, checkout) => {
      runtime.simulateDeposit(checkout.shiftIds[0] ?? "", {})
    })
  )

  router.post(
    "/:id/refund-address",
    action((req, checkout) => {
      setRefundAddress(runtime, checkout.shiftIds[0] ?? "", { address: formField(req, "address") ?? "" })
    })
  )

  // An unknown checkout is a page too.
  router.use((error: unknown, _req: Request, res: Response, next: (error: unknown) => void) => {
    if (error instanceof ServiceError && error.status === 404) {
      res.status(404).type("html").send(renderCheckoutNotFound())
      return
    }
    next(error)
  })

  return router
}
