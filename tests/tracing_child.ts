// A script run under Deno's built-in OpenTelemetry (`OTEL_DENO=true deno run
// tracing_child.ts <url>`): inside a span of its own, it sends one GET that
// fails once with a 503 and is retried, with a bearer token in a header and
// another in the query, then prints the status and its span's ids as JSON.
// Deno exports the spans when the script ends.

import { HttpClient, HttpClientConfigBuilder, HttpRequest } from "../mod.ts";

const url = Deno.args[0] ?? "";
const config = new HttpClientConfigBuilder()
  .withBaseUrl(url)
  // A real wait (up to 10 ms): the retry must still run in the caller's context.
  .withRetry({ maxRetries: 1, backoff: 0.01 })
  .build();
await using client = new HttpClient(config);
/** The part of OpenTelemetry's `Tracer` the script uses (Deno types its provider as `any`). */
interface Tracer {
  startActiveSpan<T>(
    name: string,
    run: (span: { spanContext(): { traceId: string; spanId: string }; end(): void }) => T,
  ): T;
}

// Deno's tracer provider is the one `npm:@opentelemetry/api` would hand out.
const tracer: Tracer = Deno.telemetry.tracerProvider.getTracer("fetchline-tracing-test");
const result = await tracer.startActiveSpan("user operation", async (span) => {
  try {
    const request = new HttpRequest("GET", "/flaky?token=query-secret&page=2", {
      headers: { Authorization: "Bearer header-secret" },
    });
    const response = await client.request(request);
    const { traceId, spanId } = span.spanContext();
    return { status: response.statusCode, traceId, spanId };
  } finally {
    span.end();
  }
});
console.log(JSON.stringify(result));
