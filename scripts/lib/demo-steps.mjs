// Progress output, timings and child processes for `npm run demo`.
import { spawn } from "node:child_process"

const started = Date.now()
const tty = process.stdout.isTTY
const colour = (code) => (text) => (tty && !process.env.NO_COLOR ? `\x1b[${code}m${text}\x1b[0m` : text)
export const bold = colour("1")
export const dim = colour("2")
export const green = colour("32")
export const red = colour("31")
export const cyan = colour("36")
export const yellow = colour("33")

export const seconds = (ms) => `${(ms / 1000).toFixed(1)}s`
export const elapsed = () => seconds(Date.now() - started)

export function info(line) {
  console.log(`${dim(`[${elapsed().padStart(6)}]`)} ${line}`)
}

/**
 * Runs one step of the demo with its timing. Slow steps print a "still working" line every few
 * seconds (a non-TTY CI log gets lines, not carriage-return spinners).
 */
export async function step(label, fn, { heartbeatMs = 5000 } = {}) {
  const t0 = Date.now()
  info(`${cyan("▸")} ${label}…`)
  const timer = setInterval(() => info(dim(`  … ${label}: ${seconds(Date.now() - t0)} so far`)), heartbeatMs)
  try {
    const result = await fn()
    clearInterval(timer)
    info(`${green("✓")} ${label} ${dim(`(${seconds(Date.now() - t0)})`)}`)
    return result
  } catch (error) {
    clearInterval(timer)
    info(`${red("✗")} ${label} ${dim(`(${seconds(Date.now() - t0)})`)}`)
    throw error
  }
}

/** Runs a command to completion, keeping its output; on failure the error carries the output's tail. */
export function run(command, args, { cwd, env, echo = false } = {}) {
  return new Promise((resolve, reject) => {
    // npm is npm.cmd on Windows, which Node only runs through a shell.
    const windowsShell = process.platform === "win32" && command === "npm"
    const child = spawn(command, args, { cwd, env: { ...process.env, ...env }, stdio: ["ignore", "pipe", "pipe"], shell: windowsShell })
    let output = ""
    const keep = (chunk) => {
      output += chunk
      if (output.length > 200_000) output = output.slice(-100_000)
      if (echo) process.stdout.write(chunk)
    }
    child.stdout.on("data", keep)
    child.stderr.on("data", keep)
    child.on("error", reject)
    child.on("close", (code, signal) => {
      if (code === 0) return resolve(output)
      const tail = output.trim().split("\n").slice(-40).join("\n")
      reject(new Error(`${command} ${args.join(" ")} failed (${signal ?? `exit ${code}`}):\n${tail}`))
    })
  })
}

/** Resolves when `fn` returns a truthy value; polls every `everyMs` until `timeoutMs`. */
export async function waitFor(what, fn, { timeoutMs = 60_000, everyMs = 500 } = {}) {
  const deadline = Date.now() + timeoutMs
  let lastError
  while (Date.now() < deadline) {
    try {
      const value = await fn()
      if (value) return value
    } catch (error) {
      lastError = error
    }
    await new Promise((r) => setTimeout(r, everyMs))
  }
  throw new Error(`Timed out after ${seconds(timeoutMs)} waiting for ${what}${lastError ? `: ${lastError.message}` : ""}`)
}

export const sleep = (ms) => new Promise((r) => setTimeout(r, ms))
