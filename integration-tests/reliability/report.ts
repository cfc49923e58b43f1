import { closeSync, existsSync, mkdirSync, openSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from "node:fs"
import path from "node:path"
import type { SecretWatchCounts } from "../helpers/secret-watch"

/**
 * The reliability suite's figures go to bench/RESULTS.md, beside the benchmarks': each spec owns
 * one or more `## heading` sections and rewrites them on every run, so the document always holds the
 * last run's figures and never a section twice.
 */
export const RESULTS_PATH = path.resolve(__dirname, "../../bench/RESULTS.md")

const TITLE = "# Results\n\nFigures from the last run of the benchmarks and the reliability suite (`npm test`).\n"

/** A lock file around read-modify-write: several test processes may report at once. */
function withLock<T>(run: () => T): T {
  const lock = `${RESULTS_PATH}.lock`
  mkdirSync(path.dirname(RESULTS_PATH), { recursive: true })
  const deadline = Date.now() + 10_000
  for (;;) {
    try {
      closeSync(openSync(lock, "wx"))
      break
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error
      // A lock left by a killed process is stale after a few seconds.
      try {
        if (Date.now() - statSync(lock).mtimeMs > 5_000) rmSync(lock, { force: true })
      } catch {
        /* removed meanwhile */
      }
      if (Date.now() > deadline) throw new Error(`Could not lock ${RESULTS_PATH}`)
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 25)
    }
  }
  try {
    return run()
  } finally {
    rmSync(lock, { force: true })
  }
}

type Section = { start: number; end: number }

/** Where `## heading` starts and ends (the next `## ` heading or the end), by line. */
function findSection(lines: string[], heading: string): Section | undefined {
  const start = lines.findIndex((line) => line.trim() === `## ${heading}`)
  if (start < 0) return undefined
  let end = start + 1
  while (end < lines.length && !/^## /.test(lines[end])) end++
  return { start, end }
}

function read(): string {
  return existsSync(RESULTS_PATH) ? readFileSync(RESULTS_PATH, "utf8") : TITLE
}

function write(text: string) {
  const temporary = `${RESULTS_PATH}.${process.pid}.tmp`
  writeFileSync(temporary, text.replace(/\n{3,}/g, "\n\n").replace(/\n*$/, "\n"))
  renameSync(temporary, RESULTS_PATH)
}

/** The body of a section (without its heading), or undefined. */
export function readReportSection(heading: string): string | undefined {
  const lines = read().split("\n")
  const section = findSection(lines, heading)
  return section ? lines.slice(section.start + 1, section.end).join("\n").trim() : undefined
}

/** Rewrites a section from its current body (undefined when missing), under the lock. */
function updateSection(heading: string, update: (body: string | undefined) => string): void {
  withLock(() => {
    const lines = read().split("\n")
    const section = findSection(lines, heading)
    const current = section ? lines.slice(section.start + 1, section.end).join("\n").trim() : undefined
    const body = ["", ...update(current).trim().split("\n"), ""]
    if (section) lines.splice(section.start + 1, section.end - section.start - 1, ...body)
    else lines.push("", `## ${heading}`, ...body)
    write(lines.join("\n"))
  })
}

/** Replaces the `## heading` section's body with `markdown`, or appends the section. */
export function writeReportSection(heading: string, markdown: string): void {
  updateSection(heading, () => markdown)
}

/**
 * Keeps one row per key in a section holding a single table (e.g. one row per spec file), replacing
 * the key's row and leaving the other rows as the last run of their file wrote them.
 */
export function upsertReportTableRow(
  heading: string,
  { intro, columns, cells }: { intro: string; columns: string[]; cells: string[] }
): void {
  updateSection(heading, (existing = "") => {
    const rows = new Map<string, string>()
    for (const line of existing.split("\n")) {
      const match = /^\| (.+?) \|/.exec(line)
      if (!match || line.startsWith("| ---") || match[1] === columns[0]) continue
      rows.set(match[1], line)
    }
    rows.set(cells[0], `| ${cells.join(" | ")} |`)
    const table = [
      `| ${columns.join(" | ")} |`,
      `| ${columns.map(() => "---").join(" | ")} |`,
      ...[...rows.keys()].sort().map((key) => rows.get(key)!),
    ]
    return `${intro.trim()}\n\n${table.join("\n")}`
  })
}

/** 12345 -> "12,345": figures as a reader reads them. */
export function figure(value: number): string {
  return value.toLocaleString("en-US")
}

/** Generated requests by kind: how many were sent and what the app answered. */
export type Tally = Map<string, { sent: number; statuses: Map<number, number> }>

export function tallyOf(tally: Tally, kind: string, status: number) {
  const entry = tally.get(kind) ?? { sent: 0, statuses: new Map() }
  entry.sent += 1
  entry.statuses.set(status, (entry.statuses.get(status) ?? 0) + 1)
  tally.set(kind, entry)
}

/** One row per kind: `| kind | sent | 400 × 12, 404 × 3 |`, headed by what a kind is (`notification`, `input`). */
export function tallyTable(tally: Tally, what: string): string {
  const rows = [...tally.entries()].map(
    ([kind, { sent, statuses }]) =>
      `| ${kind} | ${figure(sent)} | ${[...statuses.entries()]
        .sort(([a], [b]) => a - b)
        .map(([status, count]) => `${status} × ${figure(count)}`)
        .join(", ")} |`
  )
  return [`| ${what} | sent | answers |`, "| --- | --- | --- |", ...rows].join("\n")
}

/**
 * For `watchSecrets({ onClean: reportSecrets("webhook-attacks") })`: one row per spec in the
 * "Reliability: secrets" section, written only after the file's scan found no leak.
 */
export function reportSecrets(spec: string) {
  return (counts: SecretWatchCounts) =>
    upsertReportTableRow("Reliability: secrets", {
      intro:
        "Every spec of the reliability suite runs under `integration-tests/helpers/secret-watch.ts`: it captures every " +
        "line the Medusa logger handled (at every level, printed or not), every console call and every write to " +
        "stdout/stderr, and the tests pass it every response (status, headers, body) and error they get, plus the " +
        "sandbox's log of what the plugin sent upstream (paths, queries, bodies). It looks for the private key in plain " +
        "text (any case), URL-encoded, JSON-escaped, hex, base64/base64url at every alignment, the raw bytes of the key " +
        "and any 16-character piece of it. A spec's row is written only when its scan found nothing.",
      columns: ["spec", "logger lines", "console lines", "stdout/stderr lines", "responses", "errors", "other values", "characters scanned", "leaks"],
      cells: [
        spec,
        figure(counts.loggerLines),
        figure(counts.consoleLines),
        figure(counts.streamLines),
        figure(counts.responses),
        figure(counts.errors),
        figure(counts.values),
        figure(counts.characters),
        "0",
      ],
    })
}
