// What a streamed call costs on the npm build under Node: undici feeds the
// body into the transport's byte stream, which the call's stream reads (two
// streams, as on every runtime, and no third), and the chunks are plain
// Uint8Arrays as on Deno.

import assert from "node:assert/strict";
import { test } from "node:test";
import { fixture } from "./server.mjs";
import { singleAttemptClient } from "./helpers.mjs";

/** Runs `fn` counting the `ReadableStream`s made through the global constructor. */
async function countingStreams(fn) {
  const Original = globalThis.ReadableStream;
  let count = 0;
  globalThis.ReadableStream = class extends Original {
    constructor(...args) {
      super(...args);
      count++;
    }
  };
  try {
    await fn();
  } finally {
    globalThis.ReadableStream = Original;
  }
  return count;
}

for (
  const [name, headers] of [["Content-Length", { "content-length": "200000" }], ["chunked", {}]]
) {
  test(`a streamed body (${name}) is the call's Web stream over the transport's, of plain Uint8Arrays`, async (t) => {
    const server = await fixture(t);
    server.route("/body", (_req, res) => {
      res.writeHead(200, headers);
      res.end(Buffer.alloc(200000, 7));
    });
    const http = singleAttemptClient(t, server, (b) => b.withReadTimeout(5));
    let bytes = 0;
    const streams = await countingStreams(async () => {
      const response = await http.stream("GET", "/body");
      for await (const chunk of response.body) {
        assert.equal(Object.getPrototypeOf(chunk), Uint8Array.prototype);
        assert.ok(chunk.every((byte) => byte === 7));
        bytes += chunk.byteLength;
      }
    });
    assert.equal(bytes, 200000);
    assert.equal(streams, 2, `${streams} streams made for one streamed call`);
  });
}
