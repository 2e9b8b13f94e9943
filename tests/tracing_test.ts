// Deno's built-in OpenTelemetry (`OTEL_DENO=true`) traces every fetch, so it
// traces the client with no setup: a script run with it exports its spans as
// OTLP JSON (`OTEL_EXPORTER_OTLP_PROTOCOL=http/json`) to the fixture, which
// serves both the script's calls and the OTLP receiver.

import assert from "node:assert/strict";
import { type FixtureServer, startFixtureServer } from "./fixture_server.ts";

/** An OTLP JSON attribute: one typed value. */
interface OtlpAttribute {
  key: string;
  value: { stringValue?: string; intValue?: string | number; boolValue?: boolean };
}

/** An OTLP JSON span, as far as the test reads it. */
interface OtlpSpan {
  traceId: string;
  spanId: string;
  parentSpanId: string;
  name: string;
  kind: number;
  attributes: OtlpAttribute[];
  status: { code: number };
}

/** The SpanKind of a client span in OTLP. */
const CLIENT = 3;

/** The spans of every export `exports` holds, with their scope's name. */
function spansOf(exports: readonly unknown[]): { scope: string; span: OtlpSpan }[] {
  type Export = {
    resourceSpans: { scopeSpans: { scope: { name: string }; spans: OtlpSpan[] }[] }[];
  };
  return (exports as Export[]).flatMap((batch) =>
    batch.resourceSpans.flatMap((resource) =>
      resource.scopeSpans.flatMap(({ scope, spans }) =>
        spans.map((span) => ({ scope: scope.name, span }))
      )
    )
  );
}

/** A span's attributes as plain values (Deno gives the status code as a string). */
function attributesOf(span: OtlpSpan): Record<string, unknown> {
  return Object.fromEntries(
    span.attributes.map(({ key, value }) => [key, Object.values(value)[0]]),
  );
}

/** Routes the OTLP receiver's paths on `server`, keeping every trace export it gets. */
function receiveOtlp(server: FixtureServer): unknown[] {
  const exports: unknown[] = [];
  const decoder = new TextDecoder();
  server.route("/v1/traces", (_request, recorded) => {
    exports.push(JSON.parse(decoder.decode(recorded.body)));
    return Response.json({});
  });
  // Deno exports its metrics and the script's console output too.
  server.route("/v1/metrics", () => Response.json({}));
  server.route("/v1/logs", () => Response.json({}));
  return exports;
}

/** Runs tracing_child.ts against `server` under Deno's OpenTelemetry, returning what it printed. */
async function runTracedChild(server: FixtureServer): Promise<Record<string, unknown>> {
  const output = await new Deno.Command("sh", {
    args: [
      "-c",
      'exec "$0" run --quiet --allow-net=127.0.0.1 "$1" "$2"',
      Deno.execPath(),
      new URL("./tracing_child.ts", import.meta.url).pathname,
      server.url,
    ],
    env: {
      OTEL_DENO: "true",
      OTEL_EXPORTER_OTLP_PROTOCOL: "http/json",
      OTEL_EXPORTER_OTLP_ENDPOINT: server.url,
      OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: `${server.url}/v1/traces`,
      OTEL_SERVICE_NAME: "fetchline-tracing-test",
    },
    stdout: "piped",
    stderr: "piped",
  }).output();
  const text = new TextDecoder().decode(output.stdout).trim();
  assert.ok(output.success, `${text} ${new TextDecoder().decode(output.stderr)}`);
  return JSON.parse(text.split("\n").at(-1) ?? "");
}

Deno.test("under OTEL_DENO=true each attempt of a retried call is a client span under the caller's span, and its traceparent reaches the server", async () => {
  await using server = startFixtureServer();
  const exports = receiveOtlp(server);
  let calls = 0;
  server.route("/flaky", () => new Response("ok", { status: ++calls === 1 ? 503 : 200 }));

  const result = await runTracedChild(server);
  assert.equal(result.status, 200);
  const attempts = spansOf(exports).filter(({ scope, span }) =>
    scope === "deno" && span.kind === CLIENT
  ).map(({ span }) => span);
  assert.equal(attempts.length, 2, "one client span for the 503 and one for the retry");
  const url = `${server.url}/flaky?token=query-secret&page=2`;
  assert.deepEqual(attempts.map((span) => [span.name, attributesOf(span)]), [
    ["GET", {
      "http.request.method": "GET",
      // The whole URL as sent, query included: a secret in the query is in the trace.
      "url.full": url,
      "url.scheme": "http",
      "url.path": "/flaky",
      "url.query": "token=query-secret&page=2",
      "http.response.status_code": "503",
      "error.type": "503",
    }],
    ["GET", {
      "http.request.method": "GET",
      "url.full": url,
      "url.scheme": "http",
      "url.path": "/flaky",
      "url.query": "token=query-secret&page=2",
      "http.response.status_code": "200",
    }],
  ]);
  assert.deepEqual(attempts.map((span) => span.status.code), [2, 0], "the 503 is an error span");
  for (const span of attempts) {
    assert.equal(span.traceId, result.traceId, "the attempt is in the caller's trace");
    assert.equal(span.parentSpanId, result.spanId, "the attempt is a child of the caller's span");
    assert.ok(!JSON.stringify(span).includes("header-secret"), "no header is in the span");
  }
  const seen = server.requests.filter((recorded) => recorded.path === "/flaky");
  assert.deepEqual(
    seen.map((recorded) => recorded.headers["traceparent"]),
    attempts.map((span) => `00-${span.traceId}-${span.spanId}-01`),
    "each attempt carries its own span's traceparent",
  );
});
