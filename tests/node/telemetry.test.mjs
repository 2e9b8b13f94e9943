// Timings, tracing channels and telemetry() on the npm build under Node:
// the phases undici's diagnostics channels tell (a new connection's setup,
// a reused one, the send, the wait for the head), the `fetchline:request`
// and `fetchline:exchange` channels with a subscriber, and a retry's span
// tree with OpenTelemetry's SDK (installed beside the package by
// scripts/test_npm.ts; the test skips, saying why, where it is not).

import assert from "node:assert/strict";
import diagnosticsChannel from "node:diagnostics_channel";
import { test } from "node:test";
import { HttpClient, HttpClientConfigBuilder } from "@fetchline/fetchline";
import { telemetry } from "@fetchline/fetchline/telemetry";
import { fixture } from "./server.mjs";

const SECRET = "s3cret-node-token";

function clientOf(t, url, configure = (builder) => builder) {
  const client = new HttpClient(configure(new HttpClientConfigBuilder().withBaseUrl(url)).build());
  t.after(() => client.close());
  return client;
}

/** Answers `/slow` with its head after 100 ms and the rest of its body 100 ms later. */
function slowRoute(server) {
  server.route("/slow", (_req, res) => {
    setTimeout(() => {
      res.writeHead(200, { "content-type": "text/plain" });
      res.write("first ");
      setTimeout(() => res.end("second"), 100);
    }, 100);
  });
}

test("timings on Node: a new connection's setup, then a reused one; send, wait and download in order", async (t) => {
  const server = await fixture(t);
  slowRoute(server);
  const client = clientOf(t, server.url);
  const first = await client.get("/slow");
  assert.equal(first.text, "first second");
  const { timings } = first;
  assert.ok(Object.isFrozen(timings));
  assert.equal(timings.reused, false);
  assert.ok(timings.connectMs >= 0 && timings.connectMs < 5000, `connectMs ${timings.connectMs}`);
  assert.ok(timings.sendMs >= 0 && timings.sendMs < 5000, `sendMs ${timings.sendMs}`);
  assert.ok(timings.waitMs >= 80 && timings.waitMs < 5000, `waitMs ${timings.waitMs}`);
  assert.ok(timings.downloadMs >= 30 && timings.downloadMs < 5000, `${timings.downloadMs}`);
  assert.ok(
    timings.totalMs >= timings.connectMs + timings.sendMs + timings.waitMs + timings.downloadMs,
  );
  assert.equal(timings.dnsMs, undefined, "undici tells no lookup apart");
  assert.equal(timings.tlsMs, undefined);
  // undici frees the connection a moment after the body's last chunk came.
  await new Promise((resolve) => setTimeout(resolve, 50));
  const second = (await client.get("/slow")).timings;
  assert.equal(second.reused, true);
  assert.equal(second.connectMs, undefined);
  assert.ok(second.waitMs >= 80);
});

test("a streamed response's timings on Node tell the download once the body ended", async (t) => {
  const server = await fixture(t);
  slowRoute(server);
  const response = await clientOf(t, server.url).stream("GET", "/slow");
  assert.equal(response.timings.downloadMs, undefined);
  assert.equal((await response.read()).text, "first second");
  assert.ok(response.timings.downloadMs >= 30, `${response.timings.downloadMs}`);
});

test("the fetchline channels publish each call and exchange with masked views", async (t) => {
  const seen = [];
  for (const name of ["fetchline:request", "fetchline:exchange"]) {
    const channel = diagnosticsChannel.tracingChannel(name);
    const handlers = {
      start: (message) => seen.push([name, "start", message, message.statusCode]),
      end: () => {},
      asyncStart: () => {},
      asyncEnd: (message) => seen.push([name, "asyncEnd", message, message.statusCode]),
      error: (message) => seen.push([name, "error", message, message.statusCode]),
    };
    channel.subscribe(handlers);
    t.after(() => channel.unsubscribe(handlers));
  }
  const server = await fixture(t);
  let calls = 0;
  server.route("/flaky", (_req, res) => {
    res.writeHead(++calls === 1 ? 503 : 200);
    res.end("ok");
  });
  const client = clientOf(t, server.url, (b) => b.withRetry({ maxRetries: 1, backoff: 0.01 }));
  const response = await client.get("/flaky?token=abc", {
    headers: { Authorization: `Bearer ${SECRET}` },
  });
  assert.equal(response.statusCode, 200);
  assert.deepEqual(
    seen.map(([name, event, message, status]) => [name, event, message.attempt, status]),
    [
      ["fetchline:request", "start", undefined, undefined],
      ["fetchline:exchange", "start", 1, undefined],
      ["fetchline:exchange", "asyncEnd", 1, 503],
      ["fetchline:exchange", "start", 2, undefined],
      ["fetchline:exchange", "asyncEnd", 2, 200],
      ["fetchline:request", "asyncEnd", undefined, 200],
    ],
  );
  const text = JSON.stringify(seen.map(([, , message]) => message));
  assert.ok(!text.includes(SECRET));
  assert.ok(!text.includes("token=abc"));
});

async function startSdk() {
  const { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } = await import(
    "@opentelemetry/sdk-trace-base"
  );
  const exporter = new InMemorySpanExporter();
  const tracerProvider = new BasicTracerProvider({
    spanProcessors: [new SimpleSpanProcessor(exporter)],
  });
  return { exporter, tracerProvider };
}

const sdk = await startSdk().catch((error) => error);
const skip = sdk instanceof Error &&
  `the OpenTelemetry SDK is not installed (scripts/test_npm.ts installs it): ${sdk.message}`;

test("telemetry() on Node: a retried call is one INTERNAL span over a CLIENT span per attempt", {
  skip,
}, async (t) => {
  const server = await fixture(t);
  let calls = 0;
  server.route("/flaky", (_req, res) => {
    res.writeHead(++calls === 1 ? 503 : 200);
    res.end("ok");
  });
  const client = clientOf(
    t,
    server.url,
    (b) =>
      b.withRetry({ maxRetries: 1, backoff: 0.01 })
        .withMiddleware(telemetry({ tracerProvider: sdk.tracerProvider })),
  );
  await client.get(`/flaky?api_key=${SECRET}`, { headers: { Authorization: `Bearer ${SECRET}` } });
  const spans = sdk.exporter.getFinishedSpans();
  const call = spans.find((span) => span.kind === 0);
  const exchanges = spans.filter((span) => span.kind === 2);
  assert.equal(exchanges.length, 2);
  for (const span of exchanges) {
    assert.equal(span.parentSpanContext.spanId, call.spanContext().spanId);
  }
  assert.deepEqual(exchanges.map((s) => s.attributes["http.response.status_code"]), [503, 200]);
  assert.equal(exchanges[1].attributes["http.request.resend_count"], 1);
  assert.equal(exchanges[1].attributes["url.full"], `${server.url}/flaky?api_key=REDACTED`);
  assert.ok(!JSON.stringify(spans.map((s) => [s.attributes, s.events])).includes(SECRET));
  const sent = server.requests.at(-1).headers.traceparent;
  assert.equal(
    sent,
    `00-${exchanges[1].spanContext().traceId}-${exchanges[1].spanContext().spanId}-01`,
  );
  const timings = exchanges[0].events.find((event) => event.name === "fetchline.timings");
  assert.equal(timings.attributes["fetchline.timings.reused"], false);
});
