import TransportStream from "winston-transport"
import { logger } from "@medusajs/framework/logger"

export type LoggerLine = {
  level: string
  /** The line as the logger's format wrote it, when it has run. */
  formatted?: string
  /** Everything the line carries. */
  info: Record<string | symbol, unknown>
}

const MESSAGE = Symbol.for("message")

/**
 * Calls `onLine` with every line the app's Medusa logger handles, at every level, whatever LOG_LEVEL prints
 * (a transport of its own at the lowest level). Returns a function that stops listening.
 */
export function onLoggerLines(onLine: (line: LoggerLine) => void): () => void {
  const loggerInstance = (logger as unknown as { loggerInstance_?: { add(t: unknown): void; remove(t: unknown): void } }).loggerInstance_
  if (!loggerInstance) throw new Error("The Medusa logger has no winston instance to listen to")
  const transport = new TransportStream({
    level: "silly",
    log(info: Record<string | symbol, unknown>, callback: () => void) {
      const formatted = typeof info[MESSAGE] === "string" ? (info[MESSAGE] as string) : undefined
      onLine({ level: String(info.level), formatted, info })
      callback()
    },
  } as ConstructorParameters<typeof TransportStream>[0])
  loggerInstance.add(transport)
  return () => loggerInstance.remove(transport)
}
