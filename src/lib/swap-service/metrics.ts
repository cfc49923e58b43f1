export type RequestMetric = {
  method: string
  /** The path with ids replaced (`/v2/shifts/:id`): shift ids are sensitive and never reported. */
  pathTemplate: string
  status: number | "network_error" | "timeout"
  durationMs: number
  attempt: number
  errorCode?: string
}

type Summary = { count: number; errors: number; errorRate: number; p50Ms: number; p95Ms: number }

function percentile(sorted: number[], p: number): number {
  if (!sorted.length) return 0
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]
}

function summarise(metrics: RequestMetric[]): Summary {
  const durations = metrics.map((m) => m.durationMs).sort((a, b) => a - b)
  const errors = metrics.filter((m) => typeof m.status !== "number" || m.status >= 400).length
  return {
    count: metrics.length,
    errors,
    errorRate: metrics.length ? errors / metrics.length : 0,
    p50Ms: percentile(durations, 50),
    p95Ms: percentile(durations, 95),
  }
}

/** Recent upstream calls in a ring buffer, summarised for the health route. */
export class RequestMetricsRecorder {
  private readonly buffer: RequestMetric[] = []

  constructor(private readonly capacity = 1000) {}

  readonly record = (metric: RequestMetric) => {
    this.buffer.push(metric)
    if (this.buffer.length > this.capacity) this.buffer.shift()
  }

  summary(): Summary & { byPath: Record<string, Summary> } {
    const byPath: Record<string, RequestMetric[]> = {}
    for (const metric of this.buffer) (byPath[`${metric.method} ${metric.pathTemplate}`] ??= []).push(metric)
    return {
      ...summarise(this.buffer),
      byPath: Object.fromEntries(Object.entries(byPath).map(([path, metrics]) => [path, summarise(metrics)])),
    }
  }
}
