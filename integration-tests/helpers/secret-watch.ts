import { inspect } from "node:util"
import { onLoggerLines } from "./logger-lines"

/**
 * Watches a test file for the account's private key leaking out of the app: every log line (the
 * Medusa logger at every level, whatever LOG_LEVEL prints, console.* calls and raw stdout/stderr
 * writes), and every response, error or value a test passes to `check`. The key is looked for in
 * plain text and in the encodings a leak would take (URL-encoded, JSON-escaped, base64 and base64url
 * at any alignment, hex, the raw bytes of a hex key in base64, and any 16-character piece of it).
 *
 * Call it at the top of a spec, next to `useSandbox()` (which sets CRYPTO_SWAP_PRIVATE_KEY): capture
 * starts at once, so the app's boot is watched too, and afterAll fails the file on a leak. The key
 * legitimately goes to the service in its header; the sandbox's own request log keeps header names
 * only, so passing `await env.control.requests()` to `check` proves it never went in a URL or body.
 *
 *   const watch = watchSecrets()
 *   const answer = watch.check(await api.post(url, body))            // a response: status, headers, body
 *   watch.check(await failing(api.post(url, body)))                  // a refused one
 *   watch.check(error)                                               // an error raised
 *   watch.counts()                                                   // what was checked, for the report
 */
export type SecretWatchCounts = {
  /** Lines the Medusa logger handled (every level, printed or not). */
  loggerLines: number
  /** console.* calls. */
  consoleLines: number
  /** Lines written to process.stdout / process.stderr. */
  streamLines: number
  /** Responses passed to check (status, headers and body). */
  responses: number
  /** Errors passed to check (message, stack, cause, own fields, response if any). */
  errors: number
  /** Anything else passed to check. */
  values: number
  /** Characters scanned in all. */
  characters: number
}

export type SecretWatch = {
  /** Scans what the app answered or raised; throws at once (failing the test) if it carries the key. Returns it. */
  check<T>(subject: T, label?: string): T
  /** What was watched so far. */
  counts(): SecretWatchCounts
  /** Every captured log line so far (logger, console, streams). */
  lines(): readonly string[]
  /** Scans everything captured so far; throws on a leak. Runs in afterAll by itself. */
  assertClean(): void
}

export type SecretWatchOptions = {
  /** The secrets to look for; default the configured private key. Read lazily: the sandbox sets it in beforeAll. */
  secrets?: () => Array<string | undefined>
  /** Called in afterAll after a clean scan, e.g. to write the counts to the report. */
  onClean?: (counts: SecretWatchCounts) => void | Promise<void>
}

const MIN_PIECE = 16

/**
 * Inside a larger encoded blob, bytes encode differently depending on their offset modulo 3: for each
 * alignment, the base64 and base64url characters that depend on these bytes alone.
 */
function alignedBase64(bytes: Buffer): string[] {
  const forms: string[] = []
  for (const encoding of ["base64", "base64url"] as const) {
    for (let pad = 0; pad < 3; pad++) {
      const encoded = Buffer.concat([Buffer.alloc(pad, 0x20), bytes]).toString(encoding).replace(/=+$/, "")
      const start = Math.ceil((pad * 4) / 3)
      const end = Math.floor(((pad + bytes.length) * 8 - 6) / 6) + 1
      if (end - start >= MIN_PIECE) forms.push(encoded.slice(start, end))
    }
  }
  return forms
}

/** The shapes a secret takes when it leaks: plain, encoded, or a piece of it. */
export function secretForms(secret: string): { caseless: string[]; exact: string[] } {
  const bytes = Buffer.from(secret, "utf8")
  const caseless = new Set<string>([
    secret,
    encodeURIComponent(secret),
    encodeURIComponent(encodeURIComponent(secret)),
    JSON.stringify(secret).slice(1, -1),
    bytes.toString("hex"),
  ])
  for (let i = 0; i + MIN_PIECE <= secret.length; i++) caseless.add(secret.slice(i, i + MIN_PIECE))
  const exact = new Set<string>(alignedBase64(bytes))
  // A hex key's raw bytes, encoded.
  if (/^(?:[0-9a-f]{2})+$/i.test(secret)) for (const form of alignedBase64(Buffer.from(secret, "hex"))) exact.add(form)
  return { caseless: [...caseless].filter((form) => form.length >= MIN_PIECE).map((form) => form.toLowerCase()), exact: [...exact] }
}

const formCache = new Map<string, ReturnType<typeof secretForms>>()
function formsOf(secret: string) {
  let forms = formCache.get(secret)
  if (!forms) formCache.set(secret, (forms = secretForms(secret)))
  return forms
}

/** Which form of which secret the text carries, if any (without repeating the secret). */
export function findSecret(text: string, secrets: string[]): string | undefined {
  const lower = text.toLowerCase()
  for (const [index, secret] of secrets.entries()) {
    const { caseless, exact } = formsOf(secret)
    const plain = caseless.findIndex((form) => lower.includes(form))
    if (plain >= 0) return `secret #${index + 1} (form ${plain + 1}, case-insensitive)`
    const encoded = exact.findIndex((form) => text.includes(form))
    if (encoded >= 0) return `secret #${index + 1} (base64 form ${encoded + 1})`
  }
  return undefined
}

function safeJson(value: unknown): string {
  const seen = new WeakSet<object>()
  try {
    return JSON.stringify(value, (_key, item) => {
      if (typeof item === "bigint") return item.toString()
      if (item && typeof item === "object") {
        if (seen.has(item)) return "[circular]"
        seen.add(item)
      }
      return item
    }) ?? String(value)
  } catch {
    return inspect(value, { depth: 10, maxStringLength: Infinity, maxArrayLength: Infinity, breakLength: Infinity })
  }
}

type Response = { status: number; headers?: unknown; data?: unknown; body?: unknown; text?: unknown }

function isResponse(value: unknown): value is Response {
  return (
    typeof value === "object" &&
    value !== null &&
    typeof (value as Response).status === "number" &&
    ("data" in value || "body" in value || "text" in value || "headers" in value)
  )
}

function isError(value: unknown): value is Error & Record<string, unknown> {
  return (
    value instanceof Error ||
    (typeof value === "object" && value !== null && typeof (value as Error).message === "string" && typeof (value as Error).stack === "string")
  )
}

function headersText(headers: unknown): string {
  if (!headers) return ""
  if (typeof (headers as { forEach?: unknown }).forEach === "function" && !(headers instanceof Map)) {
    // fetch's Headers
    const pairs: string[] = []
    ;(headers as Headers).forEach((value, name) => pairs.push(`${name}: ${value}`))
    if (pairs.length) return pairs.join("\n")
  }
  return safeJson(headers)
}

function responseText(response: Response): string {
  const body = response.data ?? response.body ?? response.text
  return [`status ${response.status}`, headersText(response.headers), typeof body === "string" ? body : safeJson(body)].join("\n")
}

function errorText(error: Error & Record<string, unknown>): { text: string; response?: Response } {
  // Our own request (axios' `config`, `request`) is not the app's output: leave it out.
  const { config: _config, request: _request, response, ...own } = error as Record<string, unknown>
  const parts = [String(error.name), error.message, String(error.stack ?? ""), safeJson(own)]
  if (error.cause !== undefined) parts.push(inspect(error.cause, { depth: 6, maxStringLength: Infinity }))
  return { text: parts.join("\n"), response: isResponse(response) ? response : undefined }
}

export function watchSecrets(options: SecretWatchOptions = {}): SecretWatch {
  const secrets = () =>
    (options.secrets?.() ?? [process.env.CRYPTO_SWAP_PRIVATE_KEY]).filter((secret): secret is string => Boolean(secret))
  const captured: string[] = []
  /** Checked texts not yet scanned because no secret was known yet. */
  const pending: Array<{ label: string; text: string }> = []
  const counts: SecretWatchCounts = {
    loggerLines: 0,
    consoleLines: 0,
    streamLines: 0,
    responses: 0,
    errors: 0,
    values: 0,
    characters: 0,
  }
  let scannedLines = 0
  const restore: Array<() => void> = []

  const capture = (source: "loggerLines" | "consoleLines" | "streamLines", text: string) => {
    const lines = text.split("\n").filter((line) => line.length > 0)
    counts[source] += lines.length
    for (const line of lines) captured.push(line)
  }

  // 1. The Medusa logger, every level, printed or not.
  restore.push(onLoggerLines(({ formatted, info }) => capture("loggerLines", formatted ?? safeJson(info))))

  // 2. console.* (Jest's console does not go through process.stdout).
  for (const method of ["log", "info", "warn", "error", "debug", "trace"] as const) {
    const original = console[method]
    console[method] = (...args: unknown[]) => {
      capture("consoleLines", args.map((arg) => (typeof arg === "string" ? arg : inspect(arg, { depth: 6 }))).join(" "))
      return original.apply(console, args as [])
    }
    restore.push(() => (console[method] = original))
  }

  // 3. Raw writes to the process's streams (winston's console transport, libraries writing directly).
  for (const stream of [process.stdout, process.stderr]) {
    const original = stream.write
    stream.write = function (this: NodeJS.WriteStream, chunk: unknown, ...rest: unknown[]) {
      capture("streamLines", typeof chunk === "string" ? chunk : Buffer.isBuffer(chunk) ? chunk.toString("utf8") : String(chunk))
      return (original as (...args: unknown[]) => boolean).call(this, chunk, ...rest)
    } as typeof stream.write
    restore.push(() => (stream.write = original))
  }

  const scan = (label: string, text: string) => {
    const known = secrets()
    if (!known.length) {
      pending.push({ label, text })
      return
    }
    const found = findSecret(text, known)
    if (found) throw new Error(`The private key leaked: ${found} appears in ${label}`)
  }

  const watch: SecretWatch = {
    check(subject, label) {
      let text: string
      let kind: "responses" | "errors" | "values"
      if (isError(subject)) {
        const { text: errorBody, response } = errorText(subject)
        kind = "errors"
        text = response ? `${errorBody}\n${responseText(response)}` : errorBody
        if (response) counts.responses += 1
      } else if (isResponse(subject)) {
        kind = "responses"
        text = responseText(subject)
      } else {
        kind = "values"
        text = typeof subject === "string" ? subject : safeJson(subject)
      }
      counts[kind] += 1
      counts.characters += text.length
      scan(label ?? kind.slice(0, -1), text)
      return subject
    },
    counts: () => ({ ...counts }),
    lines: () => captured,
    assertClean() {
      const known = secrets()
      if (!known.length) throw new Error("secret-watch: no secret to look for (is CRYPTO_SWAP_PRIVATE_KEY set?)")
      for (const { label, text } of pending.splice(0)) scan(label, text)
      for (; scannedLines < captured.length; scannedLines++) {
        const line = captured[scannedLines]
        counts.characters += line.length
        const found = findSecret(line, known)
        if (found) throw new Error(`The private key leaked: ${found} appears in log line ${scannedLines + 1}`)
      }
    },
  }

  afterAll(async () => {
    // Logs written while the app shut down are in by now; stop capturing before the last scan.
    for (const undo of restore.splice(0).reverse()) undo()
    watch.assertClean()
    await options.onClean?.(watch.counts())
  })
  return watch
}
