import type { RequestHandler } from "express"

/** The reads browsers make directly (coins, pair, pairs, permissions, shifts): public, as on the service. */
const PUBLIC_READS = [/^\/v2\/coins$/, /^\/v2\/pair\/[^/]+\/[^/]+$/, /^\/v2\/pairs$/, /^\/v2\/permissions$/, /^\/v2\/shifts(\/[^/]+)?$/]

/**
 * CORS on the public reads: any origin, preflights answered here (so they never reach the request log
 * or the faults, as a CDN answers them for the service). Creations stay server-to-server.
 */
export const publicReadCors: RequestHandler = (req, res, next) => {
  const isRead = req.method === "GET" || req.method === "HEAD" || req.method === "OPTIONS"
  if (!isRead || !PUBLIC_READS.some((pattern) => pattern.test(req.path))) {
    next()
    return
  }
  res.set("Access-Control-Allow-Origin", "*")
  if (req.method !== "OPTIONS") {
    next()
    return
  }
  res
    .set({
      "Access-Control-Allow-Methods": "GET, OPTIONS",
      // Whatever the page asks for: pair and pairs need the secret header, permissions x-user-ip.
      "Access-Control-Allow-Headers": req.header("access-control-request-headers") ?? "content-type",
      "Access-Control-Max-Age": "86400",
    })
    .status(204)
    .end()
}
