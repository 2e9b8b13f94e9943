// eventSource() and waits longer than a timer can count (about 24.8 days): a
// server's huge `retry`, or a long totalTimeout, must not turn into a timer
// that fires at once (a reconnection loop without a wait, a reader timed out
// at its start); and an event's data or a line past maxResponseBytes ends the
// reader with an HttpClientException instead of growing without bound.

import assert from "node:assert/strict";
import { HttpClient, HttpClientConfigBuilder, HttpClientException } from "../mod.ts";
import { eventSource } from "../sse.ts";
import { type FixtureServer, type RecordedRequest, startFixtureServer } from "./fixture_server.ts";
import { rejectsWith, settles } from "./helpers.ts";

const encoder = new TextEncoder();
const SSE = { "content-type": "text/event-stream" };
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function sseClient(server: FixtureServer, maxResponseBytes = 256 * 1024 * 1024) {
  const builder = new HttpClientConfigBuilder().withBaseUrl(server.url).withTimeout(5)
    .withRetry({ maxRetries: 0 }).withMaxResponseBytes(maxResponseBytes);
  return new HttpClient(builder.build());
}

Deno.test("eventSource() waits a server's retry longer than a timer counts instead of reconnecting at once", async () => {
  await using server = startFixtureServer();
  const seen: RecordedRequest[] = [];
  server.route("/huge", (_request, recorded) => {
    seen.push(recorded);
    // 4e9 ms, 46 days; the body then ends.
    return new Response("retry: 4000000000\n\n", { headers: SSE });
  });
  await using client = sseClient(server);
  const stream = eventSource(client, "/huge", { maxReconnects: 3 });
  const loop = Array.fromAsync(stream).then(() => "ended", (error) => error);
  await sleep(500);
  assert.equal(seen.length, 1, "reconnected without waiting the server's retry");
  await stream.close();
  assert.equal(await loop, "ended");
});

Deno.test("eventSource() with a totalTimeout longer than a timer counts does not time out at its start", async () => {
  await using server = startFixtureServer();
  let cancelled!: () => void;
  const gone = new Promise<void>((resolve) => cancelled = resolve);
  server.route("/long", () => {
    const body = new ReadableStream<Uint8Array>({
      start: (c) => c.enqueue(encoder.encode("data: a\n\n")),
      cancel: () => cancelled(),
    });
    return new Response(body, { headers: SSE });
  });
  await using client = sseClient(server);
  // 35 days.
  const stream = eventSource(client, "/long", { totalTimeout: "840h" });
  const received: string[] = [];
  const loop = (async () => {
    for await (const event of stream) received.push(event.data);
  })().then(() => "ended", (error) => error);
  await sleep(500);
  await stream.close();
  assert.equal(await loop, "ended");
  assert.deepEqual(received, ["a"]);
  await gone;
});

Deno.test("eventSource() ends with HttpClientException at an event's data or a line past maxResponseBytes", async () => {
  await using server = startFixtureServer();
  const cuts: Promise<void>[] = [];
  let sent = 0;
  server.route("/endless", (request) => {
    // Endless: data lines without a blank line, or one line without an end.
    const piece = encoder.encode(
      request.url.endsWith("?line") ? "x".repeat(1500) : "data: 12345678\n".repeat(100),
    );
    let cancelled!: () => void;
    cuts.push(new Promise<void>((resolve) => cancelled = resolve));
    const body = new ReadableStream<Uint8Array>({
      start: (c) => c.enqueue(encoder.encode("data: first\n\n")),
      // A piece every 5 ms, so what was sent tells what was read; ended at
      // 1 MB, so that a reader past its limit still ends.
      pull: async (c) => {
        await new Promise((resolve) => setTimeout(resolve, 5));
        if ((sent += piece.byteLength) > 1_000_000) c.close();
        else c.enqueue(piece);
      },
      cancel: () => cancelled(),
    }, { highWaterMark: 0 });
    return new Response(body, { headers: SSE });
  });
  await using client = sseClient(server, 10_000);
  for (const [query, what] of [["", /event's data/], ["?line", /line/]] as const) {
    sent = 0;
    const received: string[] = [];
    const loop = (async () => {
      for await (const event of eventSource(client, `/endless${query}`, { maxReconnects: 0 })) {
        received.push(event.data);
      }
    })();
    const error = await rejectsWith(
      settles(loop, 10_000),
      HttpClientException,
      /maxResponseBytes \(10000\)/,
    );
    assert.match(error.message, what);
    assert.deepEqual(received, ["first"]);
    await settles(cuts.at(-1)!);
    assert.ok(sent < 50_000, `the server sent ${sent} bytes`);
  }
});
