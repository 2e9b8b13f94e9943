// telemetry() (API.md "Timings and telemetry") with the OpenTelemetry SDK's
// in-memory exporters: the span trees of a retry, a redirect, a 401
// refresh, a failure and a streamed call; every attribute scanned for the
// secrets the call sent; the metrics; W3C trace context, never two.

import assert from "node:assert/strict";
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  type ReadableSpan,
  SimpleSpanProcessor,
} from "@opentelemetry/sdk-trace-base";
import { MeterProvider, MetricReader } from "@opentelemetry/sdk-metrics";
import { SpanKind, SpanStatusCode } from "@opentelemetry/api";
import { HttpClient, HttpClientConfigBuilder, TokenData, TokenManager } from "../mod.ts";
import { telemetry, type TelemetryOptions } from "../telemetry.ts";
import { startFixtureServer } from "./fixture_server.ts";

const TOKEN = "s3cret-bearer-token";
const COOKIE = "sid=s3cret-cookie-value";
const KEY = "s3cret-query-key";
const PASSWORD = "s3cret-password";

/** A metric reader that collects when asked. */
class TestReader extends MetricReader {
  protected onForceFlush(): Promise<void> {
    return Promise.resolve();
  }
  protected onShutdown(): Promise<void> {
    return Promise.resolve();
  }
}

function sdk() {
  const exporter = new InMemorySpanExporter();
  const tracerProvider = new BasicTracerProvider({
    spanProcessors: [new SimpleSpanProcessor(exporter)],
  });
  const reader = new TestReader();
  const meterProvider = new MeterProvider({ readers: [reader] });
  return {
    options: { tracerProvider, meterProvider },
    spans: () => exporter.getFinishedSpans(),
    async metric(name: string) {
      const { resourceMetrics } = await reader.collect();
      return resourceMetrics.scopeMetrics.flatMap((scope) => scope.metrics)
        .find((metric) => metric.descriptor.name === name);
    },
  };
}

function clientOf(
  url: string,
  options: TelemetryOptions,
  configure = (b: HttpClientConfigBuilder) => b,
): HttpClient {
  return new HttpClient(
    configure(new HttpClientConfigBuilder().withBaseUrl(url).withMiddleware(telemetry(options)))
      .build(),
  );
}

/** The call's INTERNAL span and its CLIENT children, in order. */
function tree(spans: readonly ReadableSpan[]) {
  const calls = spans.filter((span) => span.kind === SpanKind.INTERNAL);
  assert.equal(calls.length, 1, "one span for the logical call");
  const call = calls[0]!;
  const children = spans.filter((span) =>
    span.kind === SpanKind.CLIENT && span.parentSpanContext?.spanId === call.spanContext().spanId
  ).sort((a, b) => a.startTime[0] - b.startTime[0] || a.startTime[1] - b.startTime[1]);
  assert.equal(children.length, spans.length - 1, "every CLIENT span is the call's child");
  for (const child of children) {
    assert.equal(child.spanContext().traceId, call.spanContext().traceId);
  }
  return { call, children };
}

Deno.test("a retried call is one INTERNAL span with a CLIENT span per attempt, the resend counted", async () => {
  await using server = startFixtureServer();
  let calls = 0;
  server.route("/flaky", () => new Response("x", { status: ++calls === 1 ? 503 : 200 }));
  const otel = sdk();
  await using client = clientOf(server.url, otel.options, (b) => b.withRetry({ backoff: 0.01 }));
  assert.equal((await client.get("/flaky")).statusCode, 200);
  const { call, children } = tree(otel.spans());
  assert.equal(call.name, "GET");
  assert.equal(call.attributes["http.response.status_code"], 200);
  assert.equal(children.length, 2);
  const [first, second] = children;
  assert.equal(first!.attributes["http.response.status_code"], 503);
  assert.equal(first!.attributes["error.type"], "503");
  assert.equal(first!.status.code, SpanStatusCode.ERROR);
  assert.equal(first!.attributes["http.request.resend_count"], undefined);
  assert.equal(second!.attributes["http.request.resend_count"], 1);
  assert.equal(second!.attributes["fetchline.exchange.reason"], "retry");
  assert.equal(second!.attributes["http.request.method"], "GET");
  assert.equal(second!.attributes["server.address"], "127.0.0.1");
  assert.equal(second!.attributes["server.port"], Number(new URL(server.url).port));
  const timings = second!.events.find((event) => event.name === "fetchline.timings")!;
  assert.ok((timings.attributes!["fetchline.timings.waitMs"] as number) >= 0);
  assert.ok((timings.attributes!["fetchline.timings.totalMs"] as number) >= 0);
});

Deno.test("a redirect is a second CLIENT span under the same call", async () => {
  await using server = startFixtureServer();
  server.route("/moved", () => new Response(null, { status: 302, headers: { location: "/echo" } }));
  const otel = sdk();
  await using client = clientOf(server.url, otel.options);
  assert.equal((await client.get("/moved")).statusCode, 200);
  const { call, children } = tree(otel.spans());
  assert.deepEqual(children.map((s) => s.attributes["http.response.status_code"]), [302, 200]);
  assert.equal(children[1]!.attributes["fetchline.exchange.reason"], "redirect");
  assert.ok(String(children[1]!.attributes["url.full"]).endsWith("/echo"));
  assert.equal(call.status.code, SpanStatusCode.UNSET);
});

Deno.test("a 401 refresh is a resend under the same call", async () => {
  await using server = startFixtureServer();
  server.route(
    "/api",
    (request) =>
      request.headers.get("authorization") === "Bearer tok-2"
        ? new Response("ok")
        : new Response("expired", { status: 401 }),
  );
  let issued = 0;
  const manager = new TokenManager([{
    name: "counter",
    fetch: () => Promise.resolve(new TokenData({ accessToken: `tok-${++issued}` })),
  }]);
  const otel = sdk();
  await using client = clientOf(
    server.url,
    otel.options,
    (b) => b.withTokenAuth({ tokenManager: manager }),
  );
  assert.equal((await client.get("/api")).statusCode, 200);
  const { children } = tree(otel.spans());
  assert.deepEqual(children.map((s) => s.attributes["http.response.status_code"]), [401, 200]);
  assert.equal(children[1]!.attributes["fetchline.exchange.reason"], "auth");
  assert.equal(children[1]!.attributes["http.request.resend_count"], 1);
  const text = JSON.stringify(otel.spans().map((s) => [s.attributes, s.events]));
  assert.ok(!text.includes("tok-1") && !text.includes("tok-2"), "no token in any attribute");
});

Deno.test("a failed call ends both spans with error.type, the exception's class", async () => {
  await using server = startFixtureServer();
  const otel = sdk();
  await using client = clientOf(
    server.dropUrl,
    otel.options,
    (b) => b.withRetry({ maxRetries: 0 }),
  );
  await assert.rejects(client.get("/x"));
  const { call, children } = tree(otel.spans());
  assert.equal(children.length, 1);
  for (const span of [call, children[0]!]) {
    assert.equal(span.attributes["error.type"], "ConnectionException");
    assert.equal(span.status.code, SpanStatusCode.ERROR);
  }
});

Deno.test("a streamed call's spans end once its body was read, with the download in the timings", async () => {
  await using server = startFixtureServer();
  server.route("/stream", () => new Response("streamed body"));
  const otel = sdk();
  await using client = clientOf(server.url, otel.options);
  const response = await client.stream("GET", "/stream");
  await new Promise((resolve) => setTimeout(resolve, 20));
  assert.equal(otel.spans().length, 0, "nothing ended before the body");
  assert.equal((await response.read()).text, "streamed body");
  const { children } = tree(otel.spans());
  const timings = children[0]!.events.find((event) => event.name === "fetchline.timings")!;
  assert.ok((timings.attributes!["fetchline.timings.downloadMs"] as number) >= 0);
});

Deno.test("no attribute or event of a call holds a credential it sent: url.full redacted", async () => {
  await using server = startFixtureServer();
  const otel = sdk();
  const base = server.url.replace("http://", `http://user:${PASSWORD}@`);
  await using client = clientOf(base, otel.options);
  await client.post(`/echo?api_key=${KEY}&page=2`, {
    headers: { Authorization: `Bearer ${TOKEN}`, Cookie: COOKIE },
    data: { password: PASSWORD },
  });
  const spans = otel.spans();
  assert.ok(spans.length >= 2);
  const text = JSON.stringify(spans.map((s) => [s.name, s.attributes, s.events]));
  for (const secret of [TOKEN, "s3cret-cookie-value", KEY, PASSWORD]) {
    assert.ok(!text.includes(secret), `no ${secret}`);
  }
  const client_ = spans.find((s) => s.kind === SpanKind.CLIENT)!;
  assert.equal(
    client_.attributes["url.full"],
    `${server.url}/echo?api_key=REDACTED&page=2`,
  );
});

Deno.test("each request carries its exchange span's traceparent, once", async () => {
  await using server = startFixtureServer();
  const otel = sdk();
  await using client = clientOf(server.url, otel.options);
  await client.get("/echo");
  const sent = server.last().headers["traceparent"]!;
  const span = otel.spans().find((s) => s.kind === SpanKind.CLIENT)!;
  const { traceId, spanId } = span.spanContext();
  assert.equal(sent, `00-${traceId}-${spanId}-01`);
  const own = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01";
  await client.get("/echo", { headers: { traceparent: own } });
  assert.equal(server.last().headers["traceparent"], own, "a traceparent of the caller's stays");
  await using quiet = clientOf(server.url, { ...otel.options, propagate: false });
  await quiet.get("/echo");
  assert.equal(server.last().headers["traceparent"], undefined);
});

Deno.test("the duration and active-requests metrics count each exchange", async () => {
  await using server = startFixtureServer();
  const otel = sdk();
  await using client = clientOf(server.url, otel.options);
  await client.get("/echo");
  await client.get("/status/404").catch(() => {});
  const duration = await otel.metric("http.client.request.duration");
  assert.equal(duration?.descriptor.unit, "s");
  const points = duration!.dataPoints as {
    attributes: Record<string, unknown>;
    value: { count: number };
  }[];
  assert.equal(points.reduce((sum, point) => sum + point.value.count, 0), 2);
  assert.ok(points.some((point) => point.attributes["error.type"] === "404"));
  for (const point of points) assert.equal(point.attributes["url.full"], undefined);
  const active = await otel.metric("http.client.active_requests");
  const values = (active!.dataPoints as { value: number }[]).map((point) => point.value);
  assert.ok(values.every((value) => value === 0));
});

Deno.test("telemetry() refuses an unknown option and a provider that is not one", () => {
  assert.throws(() => telemetry({ tracer: 1 } as never), TypeError);
  assert.throws(() => telemetry({ tracerProvider: {} as never }), /tracerProvider/);
  assert.throws(() => telemetry({ propagate: "yes" as never }), /propagate/);
});

Deno.test("with the global no-op providers a call goes as without telemetry()", async () => {
  await using server = startFixtureServer();
  await using client = clientOf(server.url, {});
  assert.equal((await client.get("/echo")).statusCode, 200);
  assert.equal(server.last().headers["traceparent"], undefined, "a no-op span is not propagated");
});
