/** Raw HTTP to the app under test: any method, content type and body, never throwing on a status. */
export type RawAnswer = { status: number; headers: Record<string, string>; text: string; data: unknown }

export async function send(
  baseUrl: string,
  { method = "POST", path, headers = {}, body }: { method?: string; path: string; headers?: Record<string, string>; body?: string | Buffer }
): Promise<RawAnswer> {
  const response = await fetch(`${baseUrl.replace(/\/+$/, "")}${path}`, {
    method,
    headers,
    // Bytes copied into a plain Uint8Array: what fetch's types take.
    body: method === "GET" || method === "HEAD" || body === undefined ? undefined : typeof body === "string" ? body : new Uint8Array(body),
    redirect: "manual",
    signal: AbortSignal.timeout(60_000),
  })
  const text = await response.text()
  let data: unknown = text
  try {
    data = text ? JSON.parse(text) : undefined
  } catch {
    /* not JSON: kept as text */
  }
  return { status: response.status, headers: Object.fromEntries(response.headers.entries()), text, data }
}

/**
 * What must never reach a client: stack frames, source or dependency paths, SQL and database
 * errors, connection errors. Returns what was found, or undefined.
 */
const INTERNAL_DETAIL: Array<[string, RegExp]> = [
  ["a stack frame", /\bat [^\n]*?\(?(?:\/|[A-Za-z]:\\|node:|file:)[^\s()]*:\d+:\d+\)?/],
  ["a stack", /"stack"\s*:/],
  ["a dependency path", /node_modules/],
  ["a source path", /(?:\/work\/|\/home\/|\/usr\/|[A-Za-z]:\\|\bsrc\/[\w/-]+\.[jt]s\b|\.[jt]s:\d+)/],
  ["SQL", /\b(?:select\s[\s\S]+\sfrom|insert\s+into|update\s+\S+\s+set|delete\s+from)\b/i],
  ["a database error", /\b(?:relation "|violates|duplicate key|syntax error at|MikroORM|knex|postgres|pg_)\w*/i],
  ["a connection error", /\b(?:ECONNREFUSED|ECONNRESET|ETIMEDOUT|EAI_AGAIN|UND_ERR_\w+)\b/],
  ["an internal error type", /\b(?:TypeError|ReferenceError|RangeError|SyntaxError: Unexpected token)\b/],
]

/** The answer with its JSON `message` rewritten; any other answer as it is. */
function withMessage(text: string, rewrite: (message: string) => string): string {
  let data: unknown
  try {
    data = JSON.parse(text)
  } catch {
    return text
  }
  const message = (data as { message?: unknown } | null)?.message
  return typeof message === "string" ? JSON.stringify({ ...(data as object), message: rewrite(message) }) : text
}

/**
 * The JSON parser's refusal quotes the start of the body it was sent ('Unexpected token 'x', "…" is
 * not valid JSON'): that is the caller's own input, not ours, and random bytes can look like a path.
 */
function withoutEchoedInput(text: string): string {
  return withMessage(text, (message) => message.replace(/, "[\s\S]*"(?:\.\.\.)? is not valid JSON$/, ", <input> is not valid JSON"))
}

/** What a request sent: a refusal may name its fields or values back, and those are the caller's words, not ours. */
export type SentRequest = { path?: string; body?: string | Buffer }

function collectWords(value: unknown, into: Set<string>) {
  if (typeof value === "string") into.add(value)
  else if (value && typeof value === "object")
    for (const [key, item] of Object.entries(value)) {
      into.add(key)
      collectWords(item, into)
    }
}

/** The words a request sent: query keys and values, JSON body keys and string values at any depth. */
function sentWords({ path = "", body }: SentRequest): string[] {
  const words = new Set<string>()
  for (const [key, value] of new URLSearchParams(path.split("?")[1] ?? "")) words.add(key).add(value)
  try {
    collectWords(JSON.parse(body === undefined ? "" : typeof body === "string" ? body : body.toString("utf8")), words)
  } catch {
    /* not JSON: nothing quotable */
  }
  // Longest first, so a word is never half-replaced by a shorter one it contains.
  return [...words].filter(Boolean).sort((a, b) => b.length - a.length)
}

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")

/**
 * The answer with each word the request sent replaced where the refusal message quotes it whole, as the
 * routes write them (`unknown field(s): a, b`, `a.b: reason`, `COIN on NETWORK is not …`). Nothing else is
 * spared: a word inside a longer one, or anywhere outside the message, still counts.
 */
function withoutQuotedWords(text: string, sent: SentRequest): string {
  const words = sentWords(sent)
  if (!words.length) return text
  return withMessage(text, (message) =>
    words
      .filter((word) => message.includes(word))
      .reduce((rest, word) => rest.replace(new RegExp(`(^|\\s|\\.)${escapeRegExp(word)}(?=$|\\s|[,;:.])`, "g"), "$1<input>"), message)
  )
}

/**
 * The first internal detail in an answer, or undefined. What the request itself sent, quoted back whole in
 * a refusal, never counts (an attacker's field named `D:\x` is no source path); everything else does.
 */
export function internalDetail(text: string, sent: SentRequest = {}): string | undefined {
  const own = withoutQuotedWords(withoutEchoedInput(text), sent)
  for (const [what, pattern] of INTERNAL_DETAIL) {
    const match = pattern.exec(own)
    if (match) return `${what} (${JSON.stringify(match[0].slice(0, 80))})`
  }
  return undefined
}
