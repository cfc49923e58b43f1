import os from "node:os"
import { runInNewContext } from "node:vm"
import { figure, writeReportSection } from "../integration-tests/reliability/report"

/**
 * Shared by the benchmarks: sizes (full or `--quick`), statistics, memory sampling and the report.
 * Benchmarks never assert speed; they assert only that their figures are sane (counts match).
 */
export const QUICK = Boolean(process.env.BENCH_QUICK)

/** The full size, or the quick one in `--quick` mode. */
export function size(full: number, quick: number): number {
  return QUICK ? quick : full
}

/** Nearest-rank percentile of a sample (p in 0..100). */
export function percentile(values: number[], p: number): number {
  if (!values.length) throw new Error("percentile of an empty sample")
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]
}

export const median = (values: number[]) => percentile(values, 50)

/** Milliseconds with one decimal, as the tables print them. */
export function ms(value: number): string {
  return `${value.toFixed(1)} ms`
}

export function mb(bytes: number): string {
  return `${(bytes / 1024 / 1024).toFixed(1)} MB`
}

export { figure }

/** Wall time of `run`, in milliseconds. */
export async function timed<T>(run: () => Promise<T>): Promise<{ result: T; ms: number }> {
  const start = performance.now()
  const result = await run()
  return { result, ms: performance.now() - start }
}

/** Runs `run` while sampling this process's RSS every 20 ms; returns the peak seen (and at the end). */
export async function withPeakRss<T>(run: () => Promise<T>): Promise<{ result: T; peakRss: number; rssBefore: number }> {
  const rssBefore = process.memoryUsage.rss()
  let peakRss = rssBefore
  const sampler = setInterval(() => {
    peakRss = Math.max(peakRss, process.memoryUsage.rss())
  }, 20)
  try {
    const result = await run()
    peakRss = Math.max(peakRss, process.memoryUsage.rss())
    return { result, peakRss, rssBefore }
  } finally {
    clearInterval(sampler)
  }
}

/**
 * A full garbage collection. Jest's test context hides `gc` even under --expose-gc; a fresh V8
 * context still reaches the process's collector.
 */
export function collectGarbage(): void {
  const gc = (globalThis as { gc?: () => void }).gc ?? (runInNewContext("typeof gc === 'function' ? gc : undefined") as (() => void) | undefined)
  if (!gc) throw new Error("Run the benchmarks with node --expose-gc (bench/run.mjs does)")
  gc()
  gc()
}

export function machine(): string {
  const cpus = os.cpus()
  return `${cpus.length} cores (${cpus[0]?.model.trim() ?? "unknown CPU"}), ${(os.totalmem() / 1024 ** 3).toFixed(1)} GB RAM, Node ${process.version}, ${os.platform()} ${os.release()}`
}

/** "met" or how far off, for a figure that must stay at or below its target. */
export function verdict(value: number, target: number, unit = ""): string {
  if (value <= target) return `met (${value}${unit} <= ${target}${unit})`
  return `**missed** by ${+(value - target).toFixed(3)}${unit} (${value}${unit} against <= ${target}${unit}, ${((value / target - 1) * 100).toFixed(0)}% over)`
}

export type BenchReport = {
  /** What was measured and how (seeding included), in a few sentences. */
  method: string
  /** Rows of [figure, value]. */
  figures: Array<[string, string]>
  /** Targets and verdicts, and why a missed one was missed. */
  findings: string[]
}

/**
 * Prints a benchmark's figures and, in a full run, writes them to bench/RESULTS.md as the
 * `## Benchmarks: {name}` section with the machine, the date and the exact command.
 */
export function reportBenchmark(name: string, { method, figures, findings }: BenchReport): void {
  const body = [
    `Machine: ${machine()}. Date: ${new Date().toISOString()}. Command: \`${process.env.BENCH_COMMAND ?? "npm run bench"}\`.`,
    "",
    method.trim(),
    "",
    "| figure | value |",
    "| --- | --- |",
    ...figures.map(([label, value]) => `| ${label} | ${value} |`),
    "",
    ...findings.map((finding) => `- ${finding}`),
  ].join("\n")
  process.stdout.write(`\n## Benchmarks: ${name}${QUICK ? " (--quick: not written to RESULTS.md)" : ""}\n\n${body}\n\n`)
  if (!QUICK) writeReportSection(`Benchmarks: ${name}`, body)
}
