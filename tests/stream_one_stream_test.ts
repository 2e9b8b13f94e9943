// What a streamed call costs: a small body of known length is read in one
// native read, with no reader of the transport's stream, and the read
// timeout still bounds that wait.

import assert from "node:assert/strict";
import { HttpClient, HttpClientConfigBuilder, TimeoutException } from "../mod.ts";
import { type FixtureServer, startFixtureServer } from "./fixture_server.ts";
import { rejectsWith, settles } from "./helpers.ts";

function streamClient(server: FixtureServer, readTimeout: number): HttpClient {
  const config = new HttpClientConfigBuilder().withBaseUrl(server.url).withTimeout(5)
    .withReadTimeout(readTimeout).withRetry({ maxRetries: 0 }).build();
  return new HttpClient(config);
}

/** Runs `fn` counting the readers taken of any stream with `getReader()`. */
async function countingReaders(fn: () => Promise<void>): Promise<number> {
  const original = ReadableStream.prototype.getReader;
  let count = 0;
  ReadableStream.prototype.getReader = function (this: ReadableStream, ...args: unknown[]) {
    count++;
    return (original as (...args: unknown[]) => ReadableStreamDefaultReader).apply(this, args);
  } as typeof original;
  try {
    await fn();
  } finally {
    ReadableStream.prototype.getReader = original;
  }
  return count;
}

Deno.test("a small streamed body of known length comes whole, with no reader of the transport's stream", async () => {
  await using server = startFixtureServer();
  server.route("/small", () => new Response("x".repeat(1000)));
  await using client = streamClient(server, 5);
  const chunks: number[] = [];
  const readers = await countingReaders(async () => {
    await using response = await client.stream("GET", "/small");
    for await (const chunk of response.body) chunks.push(chunk.byteLength);
  });
  assert.deepEqual(chunks, [1000]);
  assert.equal(readers, 0, `${readers} reader(s) taken`);
});

Deno.test("a small body of known length that stalls fails with the read timeout", async () => {
  await using server = startFixtureServer();
  let controller!: ReadableStreamDefaultController<Uint8Array>;
  const body = new ReadableStream<Uint8Array>({ start: (c) => void (controller = c) });
  server.route("/stall", () => new Response(body, { headers: { "content-length": "10" } }));
  await using client = streamClient(server, 0.2);
  await using response = await client.stream("GET", "/stall");
  controller.enqueue(new Uint8Array(5));
  const reader = response.body.getReader();
  await rejectsWith(settles(reader.read()), TimeoutException, /readTimeout/);
  controller.close();
});
