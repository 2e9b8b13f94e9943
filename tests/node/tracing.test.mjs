// OpenTelemetry's undici instrumentation on the npm build. The client sends
// with undici's dispatch(), whose core Request publishes the diagnostics
// channel events the instrumentation reads (undici:request:create, then
// :headers, :trailers or :error), so each attempt is a client span with no
// setup of the client's own. The OpenTelemetry packages are this test's
// alone: scripts/test_npm.ts installs them beside the package, and the test
// skips, saying why, where they could not be installed.

import assert from "node:assert/strict";
import diagnosticsChannel from "node:diagnostics_channel";
import { test } from "node:test";
import {
  ConnectionException,
  HttpClient,
  HttpClientConfigBuilder,
  HttpRequest,
} from "@fetchline/fetchline";
import { fixture, startServer } from "./server.mjs";
import { rejectsWith } from "./helpers.mjs";

/** A client span's kind in OpenTelemetry's API (SpanKind.CLIENT). */
const CLIENT = 2;

/**
 * A tracer provider recording into memory, with the context manager and W3C
 * propagator an application's OpenTelemetry setup registers, and the undici
 * instrumentation on it.
 */
async function startTracing() {
  const { context, propagation, trace } = await import("@opentelemetry/api");
  const { AsyncLocalStorageContextManager } = await import("@opentelemetry/context-async-hooks");
  const { W3CTraceContextPropagator } = await import("@opentelemetry/core");
  const { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } = await import(
    "@opentelemetry/sdk-trace-base"
  );
  const { UndiciInstrumentation } = await import("@opentelemetry/instrumentation-undici");
  const exporter = new InMemorySpanExporter();
  const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  propagation.setGlobalPropagator(new W3CTraceContextPropagator());
  trace.setGlobalTracerProvider(provider);
  // Enabled by the test that reads its spans, not by loading this file.
  const instrumentation = new UndiciInstrumentation();
  instrumentation.setTracerProvider(provider);
  instrumentation.disable();
  return { exporter, instrumentation, tracer: provider.getTracer("fetchline-tracing-test") };
}

const tracing = await startTracing().catch((error) => error);
const skip = tracing instanceof Error &&
  `the OpenTelemetry packages are not installed (scripts/test_npm.ts installs them from the npm registry): ${tracing.message}`;

/** The channels the undici instrumentation reads. */
const CHANNELS = [
  "undici:request:create",
  "undici:client:sendHeaders",
  "undici:request:headers",
  "undici:request:trailers",
  "undici:request:error",
];

/** A client on `url` retrying once after a real wait of up to 10 ms, closed when `t` ends. */
function retryingClient(t, url) {
  const config = new HttpClientConfigBuilder()
    .withBaseUrl(url)
    // A real wait: the retry must still run in the caller's context.
    .withRetry({ maxRetries: 1, backoff: 0.01 })
    .build();
  const client = new HttpClient(config);
  t.after(() => client.close());
  return client;
}

/** Answers `/flaky` with a 503 the first time, then 200. */
function flakyRoute(server) {
  let calls = 0;
  server.route("/flaky", (_req, res) => {
    res.writeHead(++calls === 1 ? 503 : 200);
    res.end("ok");
  });
}

test("dispatch() publishes undici's request events for each attempt, which tracing reads: create, headers sent, response head, end or error", async (t) => {
  const events = [];
  for (const name of CHANNELS) {
    const listener = ({ request, response, error }) => {
      const event = [name.slice("undici:".length), request.method, request.origin + request.path];
      if (response !== undefined) event.push(response.statusCode);
      if (error !== undefined) event.push(error.code);
      events.push(event);
    };
    diagnosticsChannel.subscribe(name, listener);
    t.after(() => diagnosticsChannel.unsubscribe(name, listener));
  }
  const server = await fixture(t);
  flakyRoute(server);
  const response = await retryingClient(t, server.url).get("/flaky?page=2");
  assert.equal(response.statusCode, 200);
  const closed = await startServer();
  await closed.close();
  const refused = new HttpClient(
    new HttpClientConfigBuilder().withBaseUrl(closed.url).withRetry({ maxRetries: 0 }).build(),
  );
  t.after(() => refused.close());
  await rejectsWith(refused.get("/gone"), ConnectionException, /GET/);

  const flaky = `${server.url}/flaky?page=2`;
  assert.deepEqual(events, [
    ["request:create", "GET", flaky],
    ["client:sendHeaders", "GET", flaky],
    ["request:headers", "GET", flaky, 503],
    ["request:trailers", "GET", flaky],
    ["request:create", "GET", flaky],
    ["client:sendHeaders", "GET", flaky],
    ["request:headers", "GET", flaky, 200],
    ["request:trailers", "GET", flaky],
    ["request:create", "GET", `${closed.url}/gone`],
    ["request:error", "GET", `${closed.url}/gone`, "ECONNREFUSED"],
  ]);
});

/** The attributes of `span` the test pins. */
function pinned(span) {
  const keys = [
    "http.request.method",
    "url.full",
    "url.path",
    "url.query",
    "server.address",
    "http.response.status_code",
    "error.type",
  ];
  return Object.fromEntries(
    keys.filter((key) => key in span.attributes).map((key) => [
      key,
      span.attributes[key],
    ]),
  );
}

test(
  "the undici instrumentation makes each attempt of a retried call a client span under the caller's span, and its traceparent reaches the server",
  {
    skip,
  },
  async (t) => {
    const { exporter, instrumentation, tracer } = tracing;
    instrumentation.enable();
    t.after(() => instrumentation.disable());
    const server = await fixture(t);
    flakyRoute(server);
    const client = retryingClient(t, server.url);

    const { response, caller } = await tracer.startActiveSpan("user operation", async (span) => {
      try {
        const request = new HttpRequest("GET", "/flaky?token=query-secret&page=2", {
          headers: { Authorization: "Bearer header-secret" },
        });
        return { response: await client.request(request), caller: span.spanContext() };
      } finally {
        span.end();
      }
    });
    assert.equal(response.statusCode, 200);
    const attempts = exporter.getFinishedSpans().filter((span) => span.kind === CLIENT);
    assert.equal(attempts.length, 2, "one client span for the 503 and one for the retry");
    const url = `${server.url}/flaky?token=query-secret&page=2`;
    const common = {
      "http.request.method": "GET",
      // The whole URL as sent, query included: a secret in the query is in the trace.
      "url.full": url,
      "url.path": "/flaky",
      "url.query": "?token=query-secret&page=2",
      "server.address": "127.0.0.1",
    };
    assert.deepEqual(attempts.map((span) => [span.name, pinned(span)]), [
      ["GET", { ...common, "http.response.status_code": 503, "error.type": "503" }],
      ["GET", { ...common, "http.response.status_code": 200 }],
    ]);
    for (const span of attempts) {
      assert.equal(
        span.spanContext().traceId,
        caller.traceId,
        "the attempt is in the caller's trace",
      );
      assert.equal(
        span.parentSpanContext?.spanId,
        caller.spanId,
        "the attempt's parent is the caller's span",
      );
      assert.ok(
        !JSON.stringify(span.attributes).includes("header-secret"),
        "no header is in the span",
      );
    }
    const seen = server.requests.filter((recorded) => recorded.path === "/flaky");
    assert.deepEqual(
      seen.map((recorded) => recorded.headers.traceparent),
      attempts.map((span) => `00-${span.spanContext().traceId}-${span.spanContext().spanId}-01`),
      "each attempt carries its own span's traceparent",
    );
  },
);
