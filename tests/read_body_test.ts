// The shared buffering layer over a transport's whole-body paths: a native
// read of a body whose Content-Length is within the limit still fails a body
// that brings more, and a sink the transport pushes into refuses the chunk
// that passes the limit, gives no body for a response without one, and
// settles once whether the body completes before or after the read began.

import assert from "node:assert/strict";
import { HttpClient, HttpClientConfigBuilder, HttpClientException } from "../mod.ts";
import { readBody } from "../src/transport/body.ts";
import { Failure, isFailure } from "../src/transport/failures.ts";
import type { BodySink, WireResponse } from "../src/transport/types.ts";
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

/** A response whose transport pushes `chunks` into the sink: `later` of them after the read began. */
function pushing(chunks: string[], later = 0, headers: Record<string, string> = {}) {
  const written: boolean[] = [];
  let sink: BodySink | undefined;
  const response: WireResponse = {
    status: 200,
    headers,
    location: null,
    get body(): ReadableStream<Uint8Array> | null {
      throw new Error("The body stream was asked for");
    },
    drainTo(given) {
      sink = given;
      for (const chunk of chunks.slice(0, chunks.length - later)) {
        written.push(given.write(new TextEncoder().encode(chunk)));
      }
      if (later === 0) given.end();
      return true;
    },
  };
  const rest = () => {
    for (const chunk of chunks.slice(chunks.length - later)) {
      written.push(sink!.write(new TextEncoder().encode(chunk)));
    }
    sink!.end();
  };
  return { response, written, rest };
}

Deno.test("readBody() joins the chunks a transport pushes, before and after the read began", async () => {
  const before = pushing(["ab", "cd", "ef"]);
  assert.equal(new TextDecoder().decode(await readBody(before.response, 6)), "abcdef");
  const after = pushing(["ab", "cd", "ef"], 2, { "content-length": "6" });
  const read = readBody(after.response, 6);
  after.rest();
  assert.equal(new TextDecoder().decode(await read), "abcdef");
  assert.deepEqual(after.written, [true, true, true]);
});

Deno.test("readBody() refuses the pushed chunk that passes the limit, and takes nothing after", async () => {
  const pushed = pushing(["abc", "def", "g"], 2);
  const read = readBody(pushed.response, 5);
  pushed.rest();
  const error = await rejectsWith(read, Failure, /exceeds 5 bytes/);
  assert.equal((error as Failure).kind, "too-large");
  assert.equal((error as Failure).detail, "5");
  assert.deepEqual(pushed.written, [true, false, false]);
});

Deno.test("readBody() gives no body, asking for no stream, when drainTo() finds none", async () => {
  const response: WireResponse = {
    status: 204,
    headers: { "content-length": "10" },
    location: null,
    get body(): ReadableStream<Uint8Array> | null {
      throw new Error("The body stream was asked for");
    },
    drainTo: () => false,
  };
  assert.equal((await readBody(response, 100)).byteLength, 0);
});

Deno.test("readBody() passes a pushed failure through unchanged", async () => {
  const failure = new Error("Connection reset");
  const response: WireResponse = {
    status: 200,
    headers: {},
    location: null,
    body: null,
    drainTo(sink) {
      sink.write(new Uint8Array(3));
      queueMicrotask(() => sink.fail(failure));
      return true;
    },
  };
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
