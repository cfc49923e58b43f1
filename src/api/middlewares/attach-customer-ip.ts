import type { MedusaNextFunction, MedusaRequest, MedusaResponse } from "@medusajs/framework/http"

const PROVIDER_PREFIX = "pp_crypto-swap_"

/**
 * The shopper's IP as the server sees it (`req.ip` honours Express's trusted-proxy setting). IPv4
 * clients reach a dual-stack socket as `::ffff:a.b.c.d`; the service wants the plain address.
 */
export function shopperIp(req: MedusaRequest): string | undefined {
  const ip = req.ip
  if (!ip) return undefined
  return ip.startsWith("::ffff:") && ip.includes(".") ? ip.slice("::ffff:".length) : ip
}

/**
 * The swap service must learn the shopper's IP (`x-user-ip`). It is taken from the request on the
 * server, and whatever the client sent in its place is dropped.
 */
export function attachCustomerIp(req: MedusaRequest, _res: MedusaResponse, next: MedusaNextFunction) {
  const body = req.body as { provider_id?: unknown; data?: unknown } | undefined
  if (body && typeof body.provider_id === "string" && body.provider_id.startsWith(PROVIDER_PREFIX)) {
    const data: Record<string, unknown> =
      body.data && typeof body.data === "object" && !Array.isArray(body.data) ? { ...(body.data as object) } : {}
    delete data.customer_ip
    const ip = shopperIp(req)
    if (ip) data.customer_ip = ip
    body.data = data
  }
  next()
}
