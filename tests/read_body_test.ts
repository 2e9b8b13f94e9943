// The shared buffering layer over a transport's body: a native read of a
// body whose Content-Length is within the limit still fails a body that
// brings more, and a stream's chunk that passes the limit is refused, with
// nothing read after it.

import assert from "node:assert/strict";
import { HttpClient, HttpClientConfigBuilder, HttpClientException } from "../mod.ts";
import { readBody } from "../src/transport/body.ts";
import { Failure, isFailure } from "../src/transport/failures.ts";
import type { WireResponse } from "../src/transport/types.ts";
import { rejectsWith } from "./helpers.ts";

Deno.test("a withFetch response bringing more than its Content-Length still fails past maxResponseBytes", async () => {
  const http = new HttpClient(
    new HttpClientConfigBuilder()
      .withFetch(() =>
        Promise.resolve(new Response("0123456789", { headers: { "content-length": "4" } }))
      )
      .withMaxResponseBytes(5)
      .withRetry({ maxRetries: 0 })
      .build(),
  );
  await rejectsWith(
    http.get("http://127.0.0.1:9/"),
    HttpClientException,
    /exceeds maxResponseBytes \(5\)/,
  );
});

/** A response whose body stream gives `chunks`, then fails with `failure` when given; `pulled` counts its reads. */
function streaming(chunks: string[], failure?: Error, headers: Record<string, string> = {}) {
  const state = { pulled: 0 };
  let at = 0;
  const response: WireResponse = {
    status: 200,
    headers,
    location: null,
    body: new ReadableStream<Uint8Array>({
      pull(controller) {
        state.pulled++;
        if (at < chunks.length) controller.enqueue(new TextEncoder().encode(chunks[at++]));
        else if (failure !== undefined) controller.error(failure);
        else controller.close();
      },
    }, { highWaterMark: 0 }),
  };
  return { response, state };
}

Deno.test("readBody() joins the chunks of a stream, of unknown and of known length", async () => {
  const unknown = streaming(["ab", "cd", "ef"]);
  assert.equal(new TextDecoder().decode(await readBody(unknown.response, 6)), "abcdef");
  const known = streaming(["ab", "cd", "ef"], undefined, { "content-length": "6" });
  assert.equal(new TextDecoder().decode(await readBody(known.response, 6)), "abcdef");
});

Deno.test("readBody() refuses the chunk that passes the limit, and reads nothing after", async () => {
  const { response, state } = streaming(["abc", "def", "g"]);
  const error = await rejectsWith(readBody(response, 5), Failure, /exceeds 5 bytes/);
  assert.equal((error as Failure).kind, "too-large");
  assert.equal((error as Failure).detail, "5");
  assert.equal(state.pulled, 2);
});

Deno.test("readBody() gives no body for a response without one", async () => {
  const response: WireResponse = {
    status: 204,
    headers: { "content-length": "10" },
    location: null,
    body: null,
  };
  assert.equal((await readBody(response, 100)).byteLength, 0);
});

Deno.test("readBody() passes the stream's failure through unchanged", async () => {
  const failure = new Error("Connection reset");
  const { response } = streaming(["abc"], failure);
  await assert.rejects(readBody(response, 100), (error) => error === failure);
});

Deno.test("readBody() reads a body of known length within the limit with readAll(), asking for no stream", async () => {
  // On Deno, asking a fetch Response for its body makes a stream, and a
  // client with no deadline wraps it in another: a read whole needs neither.
  const response: WireResponse = {
    status: 200,
    headers: new Headers({ "content-length": "3" }),
    location: null,
    get body(): ReadableStream<Uint8Array> | null {
      throw new Error("The body stream was asked for");
    },
    readAll: () => Promise.resolve(new Uint8Array([1, 2, 3])),
  };
  assert.deepEqual(await readBody(response, 100), new Uint8Array([1, 2, 3]));
});

Deno.test("readBody() still refuses a Content-Length past the limit before reading, and gives a missing body as empty", async () => {
  let cancelled: unknown;
  const over: WireResponse = {
    status: 200,
    headers: { "content-length": "10" },
    location: null,
    body: new ReadableStream({ cancel: (reason) => void (cancelled = reason) }),
    readAll: () => Promise.reject(new Error("readAll() was called")),
  };
  await assert.rejects(readBody(over, 5), (error) => isFailure(error, "too-large"));
  assert.ok(isFailure(cancelled, "too-large"));
  // A HEAD's Content-Length past the limit: no body, nothing refused.
  const head: WireResponse = { ...over, body: null };
  assert.equal((await readBody(head, 5)).byteLength, 0);
});

Deno.test("a buffered body of unknown length comes as bytes of a fixed-length buffer, which Web APIs take", async () => {
  // A spec-conforming TextDecoder, Blob or crypto (a browser's) refuses a view
  // of a resizable ArrayBuffer, the one a body of unknown length grows in.
  const pieces = ['{"a": ', "1}"].map((piece) => new TextEncoder().encode(piece));
  const http = new HttpClient(
    new HttpClientConfigBuilder().withFetch(() =>
      Promise.resolve(new Response(ReadableStream.from(pieces)))
    ).build(),
  );
  await using _ = http;
  const { content } = await http.get("http://127.0.0.1:9/unsized");
  const { buffer } = content as Uint8Array<ArrayBuffer> & { buffer: { resizable?: boolean } };
  assert.equal(buffer.resizable, false);
  assert.equal(buffer.byteLength, content.byteLength, "no reserved room past the body");
  assert.equal(new TextDecoder().decode(content), '{"a": 1}');
});
