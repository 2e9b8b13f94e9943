// A script run under Deno's built-in OpenTelemetry (`OTEL_DENO=true deno run
// telemetry_otlp_child.ts <url>`) with telemetry() from the global
// providers (`@opentelemetry/api`'s, which are Deno's then): inside a span of
// its own it sends one GET, then prints the status and its span's ids as
// JSON. Deno exports the spans when the script ends.

import { trace } from "@opentelemetry/api";
import { HttpClient, HttpClientConfigBuilder } from "../mod.ts";
import { telemetry } from "../telemetry.ts";

const url = Deno.args[0] ?? "";
await using client = new HttpClient(
  new HttpClientConfigBuilder().withBaseUrl(url).withMiddleware(telemetry()).build(),
);
const tracer = trace.getTracer("fetchline-otlp-test");
const result = await tracer.startActiveSpan("user operation", async (span) => {
  try {
    const response = await client.get("/traced?page=2");
    const { traceId, spanId } = span.spanContext();
    return { status: response.statusCode, traceId, spanId };
  } finally {
    span.end();
  }
});
console.log(JSON.stringify(result));
