/**
 * How long a wait may take on a slow, loaded machine before it counts as a failure. Never reached when
 * things work, so it costs nothing on a fast one; below the suites' Jest timeouts, so the failure
 * names what was awaited.
 */
const PATIENCE_MS = 60_000

/**
 * Polls `read` until `check` holds and returns that value. Waits on the condition, never on a number of
 * tries: after `timeoutMs` it fails naming `what` it waited for, with the last value it read.
 */
export async function waitFor<T>(
  what: string,
  read: () => Promise<T> | T,
  check: (value: T) => boolean,
  { timeoutMs = PATIENCE_MS, intervalMs = 100 } = {}
): Promise<T> {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    const value = await read()
    if (check(value)) return value
    if (Date.now() > deadline) {
      throw new Error(`Still waiting after ${timeoutMs / 1000} s for ${what}; last value: ${JSON.stringify(value)?.slice(0, 2000)}`)
    }
    await new Promise((resolve) => setTimeout(resolve, intervalMs))
  }
}
