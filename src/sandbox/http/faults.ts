import type { RequestHandler } from "express"
import { newUuid } from "../ids"
import type { FaultSpec } from "../request-schemas"

export type Fault = FaultSpec & { id: string; /** undefined = unlimited */ remaining?: number }

const DEFAULT_FAULT_BODY = JSON.stringify({ error: { message: "Injected fault" } })

/** `/v2/shifts/*`: a `*` stands for any text within one path segment. */
function pathPattern(path: string): RegExp {
  const escaped = path.split("*").map((part) => part.replace(/[.+?^${}()|[\]\\]/g, "\\$&"))
  return new RegExp(`^${escaped.join("[^/]*")}$`)
}

/**
 * Injected failures for client tests: a delay, a chosen status and raw body (malformed ones included),
 * or a connection reset. The oldest matching fault answers; control paths are never affected.
 */
export class FaultInjector {
  private faults: (Fault & { pattern: RegExp })[] = []

  add(spec: FaultSpec): Fault {
    const fault = { ...spec, id: newUuid(), remaining: spec.times }
    this.faults.push({ ...fault, pattern: pathPattern(spec.path) })
    return fault
  }

  list(): Fault[] {
    return this.faults.map(({ pattern: _pattern, ...fault }) => fault)
  }

  clear(): void {
    this.faults = []
  }

  private take(method: string, path: string): Fault | undefined {
    const fault = this.faults.find((candidate) => (!candidate.method || candidate.method.toUpperCase() === method) && candidate.pattern.test(path))
    if (fault?.remaining !== undefined) {
      fault.remaining -= 1
      if (fault.remaining === 0) {
        this.faults = this.faults.filter((candidate) => candidate !== fault)
      }
    }
    return fault
  }

  readonly middleware: RequestHandler = (req, res, next) => {
    const fault = this.take(req.method, req.path)
    if (!fault) {
      next()
      return
    }
    setTimeout(() => {
      if (fault.reset) {
        req.socket.destroy()
      } else if (fault.status === undefined) {
        next()
      } else {
        res.status(fault.status).type(fault.contentType ?? "application/json").send(fault.body ?? DEFAULT_FAULT_BODY)
      }
    }, fault.delayMs ?? 0)
  }
}
