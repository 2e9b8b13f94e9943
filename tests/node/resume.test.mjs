// Resumed bodies and the shared breaker and budget from the npm build on
// Node (undici's body streams fail otherwise than Deno's on a reset): a raw
// server that cuts a body after K bytes and answers byte ranges, buffered
// and streamed, byte-exact; a breaker and a budget through ioredis on a
// real redis-server.

import assert from "node:assert/strict";
import { createServer } from "node:net";
import { test } from "node:test";
import { HttpClient, HttpClientConfigBuilder } from "@fetchline/fetchline";
import {
  circuitBreaker,
  CircuitOpenException,
  RedisTrafficStore,
  retryBudget,
} from "@fetchline/fetchline/traffic";
import { skip, startRedis } from "./redis_server.mjs";

function content(size) {
  const bytes = new Uint8Array(size);
  for (let i = 0; i < size; i++) bytes[i] = (i * 7 + (i >> 8)) & 0xff;
  return bytes;
}

/** A raw server whose first answers break off at `cuts`, in turn; it answers byte ranges. */
async function cuttingServer(t, size, cuts) {
  const body = Buffer.from(content(size));
  const ranges = [];
  let answers = 0;
  const server = createServer((socket) => {
    socket.on("error", () => {});
    let head = "";
    socket.on("data", (data) => {
      head += data.toString("latin1");
      if (!head.includes("\r\n\r\n")) return;
      const range = /range: bytes=(\d+)-/i.exec(head);
      head = "";
      ranges.push(range?.[1]);
      const from = range === null ? 0 : Number(range[1]);
      const cut = cuts[answers++];
      const part = body.subarray(from);
      socket.write([
        range === null ? "HTTP/1.1 200 OK" : "HTTP/1.1 206 Partial Content",
        `Content-Length: ${part.length}`,
        "Accept-Ranges: bytes",
        'ETag: "v1"',
        ...(range === null ? [] : [`Content-Range: bytes ${from}-${size - 1}/${size}`]),
        "",
        "",
      ].join("\r\n"));
      if (cut === undefined) socket.write(part);
      else {socket.write(part.subarray(0, cut), () =>
          setTimeout(() =>
            socket.resetAndDestroy(), 20));}
    });
  });
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  t.after(() => new Promise((resolve) => server.close(resolve)));
  return { url: `http://127.0.0.1:${server.address().port}/file`, ranges };
}

test("resume: a buffered and a streamed body cut after their heads are read whole", async (t) => {
  const size = 200_000;
  const client = new HttpClient(
    new HttpClientConfigBuilder().withRetry({ maxRetries: 3, backoff: 0.001 }).build(),
  );
  try {
    const buffered = await cuttingServer(t, size, [40_000, 60_000]);
    assert.deepEqual((await client.get(buffered.url)).content, content(size));
    assert.deepEqual(buffered.ranges, [undefined, "40000", "100000"]);

    const streamed = await cuttingServer(t, size, [70_000]);
    const response = await client.stream("GET", streamed.url);
    const chunks = [];
    for await (const chunk of response.body) chunks.push(chunk);
    assert.deepEqual(new Uint8Array(Buffer.concat(chunks)), content(size));
    assert.deepEqual(streamed.ranges, [undefined, "70000"]);
  } finally {
    await client.close();
  }
});

test("RedisTrafficStore: a shared breaker and budget through ioredis", { skip }, async () => {
  const redis = await startRedis();
  const { Redis } = await import("ioredis");
  const connection = new Redis(`redis://127.0.0.1:${redis.port}`);
  let served = 0;
  const { createServer: createHttpServer } = await import("node:http");
  const http = createHttpServer((_req, res) => (served++, res.writeHead(503).end("down")));
  await new Promise((resolve) => http.listen(0, "127.0.0.1", resolve));
  const origin = `http://127.0.0.1:${http.address().port}`;
  try {
    const store = new RedisTrafficStore(connection);
    const budget = retryBudget({ ratio: 0, minPerSecond: 0.1, store });
    const breaker = circuitBreaker({ store, minimumCalls: 3, failureRatio: 1 });
    const client = new HttpClient(
      new HttpClientConfigBuilder().withRetry({ maxRetries: 3, backoff: 0.001, budget })
        .withMiddleware(breaker).build(),
    );
    const first = await client.get(origin);
    assert.equal(first.context.metadata.retryBudgetExhausted, true);
    assert.equal(served, 2, "one retry a window");
    await client.get(origin).catch(() => {});
    const other = new HttpClient(
      new HttpClientConfigBuilder().withRetry({ maxRetries: 0 }).withMiddleware(
        circuitBreaker({ store: new RedisTrafficStore(connection), minimumCalls: 3 }),
      ).build(),
    );
    await assert.rejects(other.get(origin), CircuitOpenException);
    await client.close();
    await other.close();
  } finally {
    connection.disconnect();
    await new Promise((resolve) => http.close(resolve));
    await redis.stop();
  }
});
