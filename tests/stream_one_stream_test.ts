// What a streamed call costs: a small body of known length read whole
// (`read()`) is read in one native read, with no reader of the transport's
// stream, and the read timeout still bounds that wait; a stream the caller
// takes gets each chunk as it comes (stream_test.ts: a trickled body).

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

Deno.test("a small streamed body of known length read whole comes in one native read, with no reader of the transport's stream", async () => {
  await using server = startFixtureServer();
  server.route("/small", () => new Response("x".repeat(1000)));
  await using client = streamClient(server, 5);
  let size = 0;
  const readers = await countingReaders(async () => {
    await using response = await client.stream("GET", "/small");
    size = (await response.read()).content.byteLength;
  });
  assert.equal(size, 1000);
  // read() takes its own stream and a reader of it (2); a reader of the transport's stream would
  // be a third (3 with the native read turned off).
  assert.equal(readers, 2, `${readers} reader(s) taken`);
});

Deno.test("a small body of known length that stalls fails with the read timeout, read whole or as a stream", async () => {
  await using server = startFixtureServer();
  const controllers: ReadableStreamDefaultController<Uint8Array>[] = [];
  server.route("/stall", () => {
    const body = new ReadableStream<Uint8Array>({ start: (c) => void controllers.push(c) });
    return new Response(body, { headers: { "content-length": "10" } });
  });
  await using client = streamClient(server, 0.2);
  {
    await using response = await client.stream("GET", "/stall");
    controllers[0]!.enqueue(new Uint8Array(5));
    await rejectsWith(settles(response.read()), TimeoutException, /readTimeout/);
  }
  {
    await using response = await client.stream("GET", "/stall");
    controllers[1]!.enqueue(new Uint8Array(5));
    const reader = response.body.getReader();
    // The 5 bytes that came are the caller's at once; the wait for the rest times out.
    assert.equal((await settles(reader.read())).value?.byteLength, 5);
    await rejectsWith(settles(reader.read()), TimeoutException, /readTimeout/);
  }
  // The client cancelled both bodies: their streams are closed already.
  for (const controller of controllers) {
    try {
      controller.close();
    } catch {
      // Closed by the cancel.
    }
  }
});
