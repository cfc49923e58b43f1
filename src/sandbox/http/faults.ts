import type { Request, RequestHandler, Response } from "express"
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
 * Holds back the answer a handler writes: `hold` gets a `release` that sends it as written, or may
 * write another answer instead (the held one is then dropped).
 */
function holdAnswer(res: Response, hold: (release: () => void) => void): void {
  const end = res.end
  res.end = function (this: Response, ...args: unknown[]) {
    res.end = end
    hold(() => (end as (...written: unknown[]) => Response).apply(res, args))
    return res
  } as Response["end"]
}

/**
 * Injected failures for client tests: a delay, a chosen status, headers and raw body (malformed ones
 * included), or a connection reset. By default the fault answers before the sandbox sees the request
 * (it did nothing); with `afterHandling` the sandbox acts first and the fault falls on its answer (the
 * work was done, the answer lost or mangled on the way back). The oldest matching fault answers;
 * control paths are never affected.
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

  /** Removes one fault, leaving the others (tests faulting several paths at once); false if it is gone. */
  remove(id: string): boolean {
    const before = this.faults.length
    this.faults = this.faults.filter((fault) => fault.id !== id)
    return this.faults.length < before
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
    if (fault.afterHandling) {
      holdAnswer(res, (release) => setTimeout(() => answer(fault, req, res, release), fault.delayMs ?? 0))
      next()
      return
    }
    setTimeout(() => answer(fault, req, res, next), fault.delayMs ?? 0)
  }
}

/** What the fault does once its delay is over; `proceed` lets the sandbox's own answer through. */
function answer(fault: Fault, req: Request, res: Response, proceed: () => void): void {
  if (fault.reset) {
    req.socket.destroy()
  } else if (fault.status === undefined) {
    proceed()
  } else {
    // A handled request has set its own headers (length, type): the injected answer replaces them all.
    for (const name of res.getHeaderNames()) res.removeHeader(name)
    res
      .status(fault.status)
      .set(fault.headers ?? {})
      .type(fault.contentType ?? "application/json")
      .send(fault.body ?? DEFAULT_FAULT_BODY)
  }
}
