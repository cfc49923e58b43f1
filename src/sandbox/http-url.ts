/** Redirect and webhook targets must be absolute http(s) URLs. */
export function isHttpUrl(text: string): boolean {
  try {
    const url = new URL(text)
    return url.protocol === "http:" || url.protocol === "https:"
  } catch {
    return false
  }
}
