// The read timeout of a streamed body: one timer for the body, not one per
// chunk, and still each wait for the next chunk bounded on its own.

import assert from "node:assert/strict";
import { HttpClient, HttpClientConfigBuilder, TimeoutException } from "../mod.ts";
import { type FixtureServer, startFixtureServer } from "./fixture_server.ts";
import { rejectsWith, settles } from "./helpers.ts";

const encoder = new TextEncoder();

function streamClient(server: FixtureServer, readTimeout: number): HttpClient {
  const config = new HttpClientConfigBuilder().withBaseUrl(server.url).withTimeout(5)
    .withReadTimeout(readTimeout).withRetry({ maxRetries: 0 }).build();
  return new HttpClient(config);
}

/** Runs `fn` counting the timers set for `ms` milliseconds. */
async function countingTimers(ms: number, fn: () => Promise<void>): Promise<number> {
  const original = globalThis.setTimeout;
  let count = 0;
  globalThis.setTimeout = ((handler: () => void, delay?: number) => {
    if (delay === ms) count++;
    return original(handler, delay);
  }) as typeof setTimeout;
  try {
    await fn();
  } finally {
    globalThis.setTimeout = original;
  }
  return count;
}

/** A body the test writes: `write()` sends a piece now, `end()` ends it. */
function serverBody() {
  let controller!: ReadableStreamDefaultController<Uint8Array>;
  const stream = new ReadableStream<Uint8Array>({ start: (c) => void (controller = c) });
  return {
    stream,
    write: (text: string) => controller.enqueue(encoder.encode(text)),
    end: () => controller.close(),
  };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

Deno.test("a streamed body of many chunks arms its read timeout once, not once a chunk", async () => {
  await using server = startFixtureServer();
  const size = 4 * 1024 * 1024;
  server.route("/big", () => new Response(new Uint8Array(size).fill(1)));
  await using client = streamClient(server, 7);
  let chunks = 0;
  let bytes = 0;
  const armed = await countingTimers(7000, async () => {
    await using response = await client.stream("GET", "/big");
    for await (const chunk of response.body) {
      chunks++;
      bytes += chunk.byteLength;
    }
  });
  assert.equal(bytes, size);
  assert.ok(chunks >= 32, `read in ${chunks} chunks`);
  assert.ok(armed <= 2, `the read timeout was armed ${armed} times for ${chunks} chunks`);
});

Deno.test("readTimeout bounds each wait for a chunk, not the body: chunks slower in total pass", async () => {
  await using server = startFixtureServer();
  const body = serverBody();
  server.route("/slow", () => new Response(body.stream));
  await using client = streamClient(server, 0.3);
  await using response = await client.stream("GET", "/slow");
  const reading = response.read();
  // Six chunks 150 ms apart: 0.9 s in all, three times the timeout, no wait near it.
  for (let i = 0; i < 6; i++) {
    await sleep(150);
    body.write(`${i}`);
  }
  body.end();
  assert.equal((await settles(reading)).text, "012345");
});

Deno.test("readTimeout counts from each read: a reader that paused, then reads a stalled body, times out", async () => {
  await using server = startFixtureServer();
  const body = serverBody();
  server.route("/stall", () => new Response(body.stream));
  await using client = streamClient(server, 0.2);
  await using response = await client.stream("GET", "/stall");
  const reader = response.body.getReader();
  body.write("one");
  assert.equal((await reader.read()).done, false);
  // No read waits for longer than the timeout: nothing fails.
  await sleep(500);
  body.write("two");
  assert.equal((await reader.read()).done, false);
  const start = performance.now();
  await rejectsWith(settles(reader.read()), TimeoutException, /readTimeout/);
  assert.ok(performance.now() - start >= 150, "timed out from this read's start, not before");
});
