// The read timeout of a streamed body on the npm build under Node: one
// timer for the body, not one per chunk, and still each wait for the next
// chunk bounded on its own.

import assert from "node:assert/strict";
import { test } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import { fixture } from "./server.mjs";
import { settles, singleAttemptClient } from "./helpers.mjs";

/** Runs `fn` counting the timers set for `ms` milliseconds. */
async function countingTimers(ms, fn) {
  const original = globalThis.setTimeout;
  let count = 0;
  globalThis.setTimeout = (handler, delay, ...args) => {
    if (delay === ms) count++;
    return original(handler, delay, ...args);
  };
  try {
    await fn();
  } finally {
    globalThis.setTimeout = original;
  }
  return count;
}

test("a streamed body of many chunks arms its read timeout once, not once a chunk", async (t) => {
  const server = await fixture(t);
  const size = 4 * 1024 * 1024;
  server.route("/big", (_req, res) => {
    res.writeHead(200, { "content-length": String(size) });
    res.end(Buffer.alloc(size, 1));
  });
  const http = singleAttemptClient(t, server, (b) => b.withReadTimeout(7));
  let chunks = 0;
  let bytes = 0;
  const armed = await countingTimers(7000, async () => {
    const response = await http.stream("GET", "/big");
    for await (const chunk of response.body) {
      chunks++;
      bytes += chunk.byteLength;
    }
  });
  assert.equal(bytes, size);
  assert.ok(chunks >= 32, `read in ${chunks} chunks`);
  assert.ok(armed <= 2, `the read timeout was armed ${armed} times for ${chunks} chunks`);
});

test("readTimeout bounds each wait for a chunk, not the body: chunks slower in total pass", async (t) => {
  const server = await fixture(t);
  server.route("/slow", async (_req, res) => {
    res.writeHead(200);
    res.flushHeaders();
    // Six chunks 150 ms apart: 0.9 s in all, three times the timeout, no wait near it.
    for (let i = 0; i < 6; i++) {
      await sleep(150);
      res.write(`${i}`);
    }
    res.end();
  });
  const http = singleAttemptClient(t, server, (b) => b.withReadTimeout(0.3));
  const response = await http.stream("GET", "/slow");
  assert.equal((await settles(response.read())).text, "012345");
});
