// The cache on the npm build under Node, for what the shared suite
// (tests/shared/cache.mjs) leaves out: a streamed miss of 1 GiB, larger
// than maxEntryBytes, passes to the caller whole, is not stored, and is not
// buffered on the way (the process's RSS grows far less than the body).

import assert from "node:assert/strict";
import { createServer } from "node:http";
import { test } from "node:test";
import { HttpClient, HttpClientConfigBuilder } from "@fetchline/fetchline";
import { HttpCache, MemoryCacheStore } from "@fetchline/fetchline/cache";
import { rssGrowth } from "./helpers.mjs";

const MiB = 2 ** 20;
const SIZE = 1024 * MiB;
// A body kept whole would grow the process by at least its size. Measured:
// 88 MiB on Node 22, 92 on Node 24; the same read with no cache, 52 on Node 22.
const BOUND = 256 * MiB;

test("a streamed miss larger than maxEntryBytes passes unstored and unbuffered (1 GiB)", async () => {
  const chunk = Buffer.alloc(MiB, 7);
  const server = createServer((req, res) => {
    req.resume();
    res.writeHead(200, {
      "cache-control": "max-age=60",
      "content-type": "application/octet-stream",
    });
    let sent = 0;
    const more = () => {
      while (sent < SIZE) {
        sent += chunk.length;
        if (!res.write(chunk)) return void res.once("drain", more);
      }
      res.end();
    };
    more();
  });
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  const store = new MemoryCacheStore({ maxBytes: 2 ** 31 });
  const cache = new HttpCache({ store, maxEntryBytes: 4 * MiB });
  const client = new HttpClient(
    new HttpClientConfigBuilder().withBaseUrl(`http://127.0.0.1:${server.address().port}`)
      .withTimeout(120).withCache(cache).build(),
  );
  try {
    const response = await client.stream("GET", "/big");
    assert.match(response.header("cache-status"), /^fetchline; fwd=miss/);
    const { result: read, growth } = await rssGrowth(async () => {
      let read = 0;
      for await (const part of response.body) read += part.byteLength;
      return read;
    }, 20);
    assert.equal(read, SIZE);
    await cache.whenIdle();
    assert.equal(store.size, 0, "entries stored");
    assert.ok(growth < BOUND, `RSS grew by ${(growth / MiB).toFixed(0)} MiB`);
    console.log(`1 GiB streamed miss: RSS grew by ${(growth / MiB).toFixed(1)} MiB`);
  } finally {
    await client.close();
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
});
