import type { MedusaNextFunction, MedusaRequest, MedusaResponse } from "@medusajs/framework/http"

const PROVIDER_PREFIX = "pp_crypto-swap_"

/** IPv4 clients reach a dual-stack socket as `::ffff:a.b.c.d`; the service wants the plain address. */
function plainIp(ip: string): string {
  return ip.startsWith("::ffff:") && ip.includes(".") ? ip.slice("::ffff:".length) : ip
}

/**
 * The swap service must learn the shopper's IP (`x-user-ip`). It is taken from the request on the
 * server (`req.ip` honours Express's trusted-proxy setting), and whatever the client sent in its
 * place is dropped.
 */
export function attachCustomerIp(req: MedusaRequest, _res: MedusaResponse, next: MedusaNextFunction) {
  const body = req.body as { provider_id?: unknown; data?: unknown } | undefined
  if (body && typeof body.provider_id === "string" && body.provider_id.startsWith(PROVIDER_PREFIX)) {
    const data: Record<string, unknown> =
      body.data && typeof body.data === "object" && !Array.isArray(body.data) ? { ...(body.data as object) } : {}
    delete data.customer_ip
    if (req.ip) data.customer_ip = plainIp(req.ip)
    body.data = data
  }
  next()
}
