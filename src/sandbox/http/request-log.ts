import type { RequestHandler } from "express"
import type { SandboxClock } from "../clock"

/** One API request as received. Header names only: values (the account secret above all) are never kept. */
export type LoggedRequest = {
  method: string
  path: string
  query: unknown
  /** null when the connection was reset before an answer. */
  status: number | null
  headers: string[]
  userIp?: string
  body?: unknown
  receivedAt: string
}

/** Body parsers leave `{}` on requests without a body; the log keeps only bodies that were sent. */
const hasContent = (body: unknown) => typeof body === "object" && body !== null && Object.keys(body).length > 0

/** Lets tests count what reached the "upstream" service, and prints one line per request. */
export class RequestLog {
  readonly entries: LoggedRequest[] = []

  constructor(
    private readonly clock: SandboxClock,
    private readonly log: (line: string) => void
  ) {}

  readonly middleware: RequestHandler = (req, res, next) => {
    const startedAt = Date.now()
    const entry: LoggedRequest = {
      method: req.method,
      path: req.path,
      query: req.query,
      status: null,
      headers: Object.keys(req.headers),
      userIp: req.header("x-user-ip"),
      receivedAt: this.clock.now().toISOString(),
    }
    // Counted on arrival, completed on answer: a client that got its response always finds it here.
    this.entries.push(entry)
    let answered = false
    const complete = (status: number | null) => {
      answered = true
      entry.status = status
      entry.body = hasContent(req.body) ? req.body : undefined
      this.log(`${entry.method} ${entry.path} -> ${status ?? "connection reset"} (${Date.now() - startedAt} ms)`)
    }
    res.once("finish", () => complete(res.statusCode))
    res.once("close", () => answered || complete(null))
    next()
  }

  clear(): void {
    this.entries.length = 0
  }
}
