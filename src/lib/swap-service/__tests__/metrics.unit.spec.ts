import { RequestMetricsRecorder, type RequestMetric } from ".."

const metric = (fields: Partial<RequestMetric>): RequestMetric => ({
  method: "GET",
  pathTemplate: "/v2/shifts/:id",
  status: 200,
  durationMs: 10,
  attempt: 1,
  ...fields,
})

describe("RequestMetricsRecorder", () => {
  it("keeps only the most recent attempts, oldest first", () => {
    const recorder = new RequestMetricsRecorder(3)
    for (const durationMs of [1, 2, 3, 4, 5]) recorder.record(metric({ durationMs }))
    expect(recorder.recent().map((m) => m.durationMs)).toEqual([3, 4, 5])
  })

  it("summarises count, error rate and p50/p95 latency per endpoint", () => {
    const recorder = new RequestMetricsRecorder()
    for (let durationMs = 1; durationMs <= 20; durationMs++) recorder.record(metric({ durationMs }))
    recorder.record(metric({ method: "POST", pathTemplate: "/v2/quotes", status: 500, durationMs: 7 }))
    recorder.record(metric({ method: "POST", pathTemplate: "/v2/quotes", status: "timeout", durationMs: 100, errorCode: "TIMEOUT" }))
    recorder.record(metric({ method: "POST", pathTemplate: "/v2/quotes", status: 201, durationMs: 3 }))
    recorder.record(metric({ method: "POST", pathTemplate: "/graphql", status: 200, durationMs: 5, errorCode: "GRAPHQL_ERROR" }))

    const summary = recorder.summary()
    expect(summary).toMatchObject({ count: 24, errors: 3, errorRate: 3 / 24 })
    expect(summary.byEndpoint["GET /v2/shifts/:id"]).toEqual({ count: 20, errors: 0, errorRate: 0, p50Ms: 10, p95Ms: 19 })
    expect(summary.byEndpoint["POST /v2/quotes"]).toEqual({ count: 3, errors: 2, errorRate: 2 / 3, p50Ms: 7, p95Ms: 100 })
    expect(summary.byEndpoint["POST /graphql"]).toMatchObject({ errors: 1 })
  })

  it("summarises nothing as zeros", () => {
    expect(new RequestMetricsRecorder().summary()).toEqual({ count: 0, errors: 0, errorRate: 0, p50Ms: 0, p95Ms: 0, byEndpoint: {} })
  })
})
