// telemetry() while the global tracer is OpenTelemetry's no-op one (no SDK
// registered): no span work and nothing bound to the `fetchline:request`
// channel (which would make every call of the process run its store), yet
// a real meter still gets the metrics; an SDK registered later is used.
// Its own file: the channel's binding lasts for the process.

import assert from "node:assert/strict";
import { tracingChannel } from "node:diagnostics_channel";
import { SpanKind, trace } from "@opentelemetry/api";
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  SimpleSpanProcessor,
} from "@opentelemetry/sdk-trace-base";
import { MeterProvider, MetricReader } from "@opentelemetry/sdk-metrics";
import { HttpClient, HttpClientConfigBuilder } from "../mod.ts";
import { telemetry } from "../telemetry.ts";
import { startFixtureServer } from "./fixture_server.ts";

/** A metric reader that collects when asked. */
class TestReader extends MetricReader {
  protected onForceFlush(): Promise<void> {
    return Promise.resolve();
  }
  protected onShutdown(): Promise<void> {
    return Promise.resolve();
  }
}

const reader = new TestReader();
const meterProvider = new MeterProvider({ readers: [reader] });

Deno.test("with the global no-op tracer telemetry() binds nothing to fetchline:request and sends no traceparent, and a real meter still counts each exchange", async () => {
  await using server = startFixtureServer();
  await using client = new HttpClient(
    new HttpClientConfigBuilder().withBaseUrl(server.url)
      .withMiddleware(telemetry({ meterProvider })).build(),
  );
  assert.equal((await client.get("/echo")).statusCode, 200);
  await client.get("/status/404").catch(() => {});
  assert.equal(
    tracingChannel("fetchline:request").start.hasSubscribers,
    false,
    "no store is bound to the call channel while nothing is traced",
  );
  assert.equal(server.last().headers["traceparent"], undefined);

  const { resourceMetrics } = await reader.collect();
  const all = resourceMetrics.scopeMetrics.flatMap((scope) => scope.metrics);
  const duration = all.find((metric) => metric.descriptor.name === "http.client.request.duration");
  const points = duration!.dataPoints as {
    attributes: Record<string, unknown>;
    value: { count: number };
  }[];
  assert.equal(points.reduce((sum, point) => sum + point.value.count, 0), 2);
  assert.ok(points.some((point) => point.attributes["error.type"] === "404"));
  assert.ok(points.some((point) => point.attributes["http.response.status_code"] === 200));
  const active = all.find((metric) => metric.descriptor.name === "http.client.active_requests");
  assert.ok((active!.dataPoints as { value: number }[]).every((point) => point.value === 0));
});

Deno.test("an SDK registered after telemetry() was made traces the calls that follow, each under its call's span", async () => {
  await using server = startFixtureServer();
  await using client = new HttpClient(
    new HttpClientConfigBuilder().withBaseUrl(server.url).withMiddleware(telemetry()).build(),
  );
  await client.get("/echo");
  const exporter = new InMemorySpanExporter();
  trace.setGlobalTracerProvider(
    new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] }),
  );
  try {
    for (let i = 0; i < 2; i++) {
      exporter.reset();
      await client.get("/echo");
      const spans = exporter.getFinishedSpans();
      const call = spans.find((span) => span.kind === SpanKind.INTERNAL);
      const exchange = spans.find((span) => span.kind === SpanKind.CLIENT);
      assert.ok(call && exchange, `call ${i + 1}: both spans`);
      assert.equal(exchange.parentSpanContext?.spanId, call.spanContext().spanId);
      const { traceId, spanId } = exchange.spanContext();
      assert.equal(server.last().headers["traceparent"], `00-${traceId}-${spanId}-01`);
    }
    assert.equal(tracingChannel("fetchline:request").start.hasSubscribers, true);
  } finally {
    trace.disable();
  }
});
