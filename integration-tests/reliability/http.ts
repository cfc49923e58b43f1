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

/**
 * The JSON parser's refusal quotes the start of the body it was sent ('Unexpected token 'x', "…" is
 * not valid JSON'): that is the caller's own input, not ours, and random bytes can look like a path.
 */
function withoutEchoedInput(text: string): string {
  let data: unknown
  try {
    data = JSON.parse(text)
  } catch {
    return text
  }
  const message = (data as { message?: unknown } | null)?.message
  if (typeof message !== "string") return text
  return JSON.stringify({ ...(data as object), message: message.replace(/, "[\s\S]*"(?:\.\.\.)? is not valid JSON$/, ", <input> is not valid JSON") })
}

export function internalDetail(text: string): string | undefined {
  const own = withoutEchoedInput(text)
  for (const [what, pattern] of INTERNAL_DETAIL) {
    const match = pattern.exec(own)
    if (match) return `${what} (${JSON.stringify(match[0].slice(0, 80))})`
  }
  return undefined
}
