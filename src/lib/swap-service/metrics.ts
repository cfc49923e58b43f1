/** One attempt of one call to the service (a retried call reports each attempt). */
export type RequestMetric = {
  method: string
  /** The path with ids replaced (`/v2/shifts/:id`): shift ids are sensitive and never reported. */
  pathTemplate: string
  status: number | "network_error" | "timeout"
  durationMs: number
  /** 1 for the first try. */
  attempt: number
  /** The failure's code, when the attempt failed. */
  errorCode?: string
}

export type MetricsSummary = {
  count: number
  errors: number
  errorRate: number
  p50Ms: number
  p95Ms: number
}

/** Nearest-rank percentile of ascending values. */
function percentile(ascending: number[], p: number): number {
  if (ascending.length === 0) return 0
  return ascending[Math.max(0, Math.ceil((p / 100) * ascending.length) - 1)]
}

/** A failed attempt: no answer, an error status, or an answer the client refused (malformed, GraphQL errors). */
function failed(metric: RequestMetric): boolean {
  return typeof metric.status !== "number" || metric.status >= 400 || metric.errorCode !== undefined
}

function summarise(metrics: RequestMetric[]): MetricsSummary {
  const durations = metrics.map((metric) => metric.durationMs).sort((a, b) => a - b)
  const errors = metrics.filter(failed).length
  return {
    count: metrics.length,
    errors,
    errorRate: metrics.length ? errors / metrics.length : 0,
    p50Ms: percentile(durations, 50),
    p95Ms: percentile(durations, 95),
  }
}

/** The most recent attempts in a fixed-size ring, summarised per endpoint. Pass `record` as `onMetric`. */
export class RequestMetricsRecorder {
  private readonly ring: RequestMetric[] = []
  private next = 0

  constructor(private readonly capacity = 1000) {}

  readonly record = (metric: RequestMetric): void => {
    this.ring[this.next] = metric
    this.next = (this.next + 1) % this.capacity
  }

  /** Oldest first. */
  recent(): RequestMetric[] {
    return [...this.ring.slice(this.next), ...this.ring.slice(0, this.next)]
  }

  /** All recorded attempts, and per `METHOD pathTemplate`. */
  summary(): MetricsSummary & { byEndpoint: Record<string, MetricsSummary> } {
    const metrics = this.recent()
    const byEndpoint = new Map<string, RequestMetric[]>()
    for (const metric of metrics) {
      const key = `${metric.method} ${metric.pathTemplate}`
      const endpointMetrics = byEndpoint.get(key)
      if (endpointMetrics) endpointMetrics.push(metric)
      else byEndpoint.set(key, [metric])
    }
    return {
      ...summarise(metrics),
      byEndpoint: Object.fromEntries([...byEndpoint].map(([key, endpointMetrics]) => [key, summarise(endpointMetrics)])),
    }
  }
}
