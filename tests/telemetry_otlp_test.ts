// telemetry() under Deno's own exporter (API.md "Timings and telemetry"): a
// child `deno run` with `OTEL_DENO=true` and `OTEL_EXPORTER_OTLP_PROTOCOL=
// http/json` exports to an OTLP/HTTP receiver this test starts on loopback;
// the call's INTERNAL span, its exchange's CLIENT span and Deno's own fetch
// span arrive nested, and the server gets one traceparent, Deno's.

import assert from "node:assert/strict";
import { startFixtureServer } from "./fixture_server.ts";

/** An OTLP JSON span, as far as the test reads it. */
interface OtlpSpan {
  traceId: string;
  spanId: string;
  parentSpanId: string;
  name: string;
  kind: number;
  attributes: { key: string; value: Record<string, unknown> }[];
}

/** OTLP's SpanKind numbers (one more than the API's). */
const INTERNAL = 1;
const CLIENT = 3;

/** An OTLP/HTTP JSON receiver on 127.0.0.1, keeping every trace export it gets. */
function startReceiver() {
  const exports: unknown[] = [];
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen() {} },
    async (request) => {
      const { pathname } = new URL(request.url);
      if (request.method !== "POST") return new Response(null, { status: 405 });
      const body = await request.text();
      if (pathname === "/v1/traces") exports.push(JSON.parse(body));
      // Deno exports its metrics and the script's console output too.
      else if (pathname !== "/v1/metrics" && pathname !== "/v1/logs") {
        return new Response(null, { status: 404 });
      }
      return Response.json({});
    },
  );
  return {
    url: `http://127.0.0.1:${server.addr.port}`,
    exports,
    [Symbol.asyncDispose]: () => server.shutdown(),
  };
}

/** The spans of every export in `exports`, with their scope's name. */
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

Deno.test("under OTEL_DENO=true telemetry()'s call span, its exchange span and Deno's fetch span export nested, and the server gets one traceparent", async () => {
  await using server = startFixtureServer();
  await using receiver = startReceiver();
  server.route("/traced", () => new Response("ok"));

  const output = await new Deno.Command("sh", {
    args: [
      "-c",
      'exec "$0" run --quiet --allow-net=127.0.0.1 "$1" "$2"',
      Deno.execPath(),
      new URL("./telemetry_otlp_child.ts", import.meta.url).pathname,
      server.url,
    ],
    env: {
      OTEL_DENO: "true",
      OTEL_EXPORTER_OTLP_PROTOCOL: "http/json",
      OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
      OTEL_SERVICE_NAME: "fetchline-otlp-test",
    },
    stdout: "piped",
    stderr: "piped",
  }).output();
  const text = new TextDecoder().decode(output.stdout).trim();
  assert.ok(output.success, `${text} ${new TextDecoder().decode(output.stderr)}`);
  const result = JSON.parse(text.split("\n").at(-1) ?? "");
  assert.equal(result.status, 200);

  const spans = spansOf(receiver.exports);
  const ours = spans.filter(({ scope }) => scope === "@fetchline/fetchline").map((s) => s.span);
  const call = ours.find((span) => span.kind === INTERNAL);
  const exchange = ours.find((span) => span.kind === CLIENT);
  assert.ok(call, `the call's INTERNAL span arrived: ${JSON.stringify(spans)}`);
  assert.ok(exchange, "the exchange's CLIENT span arrived");
  assert.equal(ours.length, 2, "one call span and one exchange span");
  const fetches = spans.filter(({ scope, span }) => scope === "deno" && span.kind === CLIENT)
    .map((s) => s.span);
  assert.equal(fetches.length, 1, "Deno's one fetch span");
  const fetch = fetches[0]!;

  for (const span of [call, exchange, fetch]) {
    assert.equal(span.traceId, result.traceId, `${span.name} is in the caller's trace`);
  }
  assert.equal(call.parentSpanId, result.spanId, "the call span is under the caller's");
  assert.equal(exchange.parentSpanId, call.spanId, "the exchange span is under the call's");
  assert.equal(fetch.parentSpanId, exchange.spanId, "Deno's fetch span is under the exchange's");
  const url = exchange.attributes.find(({ key }) => key === "url.full")?.value;
  assert.deepEqual(url, { stringValue: `${server.url}/traced?page=2` });

  const seen = server.requests.filter((recorded) => recorded.path === "/traced");
  assert.equal(seen.length, 1);
  assert.equal(
    seen[0]!.headers["traceparent"],
    `00-${fetch.traceId}-${fetch.spanId}-01`,
    "one traceparent, Deno's fetch span's (telemetry() sends none of its own)",
  );
});
