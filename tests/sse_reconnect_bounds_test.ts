// events() and waits longer than a timer can count (about 24.8 days): a
// server's huge `retry`, or a long totalTimeout, must not turn into a timer
// that fires at once (a reconnection loop without a wait, a reader timed out
// at its start).

import assert from "node:assert/strict";
import { HttpClient, HttpClientConfigBuilder } from "../mod.ts";
import { type FixtureServer, type RecordedRequest, startFixtureServer } from "./fixture_server.ts";

const encoder = new TextEncoder();
const SSE = { "content-type": "text/event-stream" };
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function sseClient(server: FixtureServer) {
  const builder = new HttpClientConfigBuilder().withBaseUrl(server.url).withTimeout(5)
    .withRetry({ maxRetries: 0 });
  return new HttpClient(builder.build());
}

Deno.test("events() waits a server's retry longer than a timer counts instead of reconnecting at once", async () => {
  await using server = startFixtureServer();
  const seen: RecordedRequest[] = [];
  server.route("/huge", (_request, recorded) => {
    seen.push(recorded);
    // 4e9 ms, 46 days; the body then ends.
    return new Response("retry: 4000000000\n\n", { headers: SSE });
  });
  await using client = sseClient(server);
  const stream = client.events("/huge", { maxReconnects: 3 });
  const loop = Array.fromAsync(stream).then(() => "ended", (error) => error);
  await sleep(500);
  assert.equal(seen.length, 1, "reconnected without waiting the server's retry");
  await stream.close();
  assert.equal(await loop, "ended");
});

Deno.test("events() with a totalTimeout longer than a timer counts does not time out at its start", async () => {
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
  // 3e6 s, 35 days.
  const stream = client.events("/long", { totalTimeout: 3e6 });
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
