// rateLimit() and RedisTrafficStore from the npm build on Node: a bucket
// on a real redis-server (redis_server.mjs) shared by a node-redis and an
// ioredis client, and a client's calls paced by it against the fixture.

import assert from "node:assert/strict";
import { test } from "node:test";
import { HttpClient, HttpClientConfigBuilder } from "@fetchline/fetchline";
import { rateLimit, RedisTrafficStore } from "@fetchline/fetchline/traffic";
import { fixture } from "./server.mjs";
import { skip, startRedis } from "./redis_server.mjs";

test("RedisTrafficStore: one bucket through node-redis and ioredis, paced calls", {
  skip,
}, async (t) => {
  const server = await fixture(t);
  const redis = await startRedis();
  try {
    const url = `redis://127.0.0.1:${redis.port}`;
    const { createClient } = await import("redis");
    const { Redis } = await import("ioredis");
    const nodeRedis = await createClient({ url }).connect();
    const ioredis = new Redis(url);
    try {
      const viaNodeRedis = new RedisTrafficStore(nodeRedis);
      const viaIoredis = new RedisTrafficStore(ioredis);
      const before = performance.now();
      assert.equal((await viaNodeRedis.take("k", 1000, 2)).waitMs, 0);
      assert.equal((await viaIoredis.take("k", 1000, 2)).waitMs, 0);
      const third = await viaNodeRedis.take("k", 1000, 2);
      // The third waits for the first token's refill, 1000 ms after the first take (the
      // server's clock): no less than 1000 ms less the time the three takes took here.
      const taking = performance.now() - before;
      assert.ok(
        third.waitMs >= Math.floor(1000 - taking) - 1 && third.waitMs <= 1000,
        `${third.waitMs} ms after ${taking.toFixed(0)} ms of takes`,
      );

      // 6 calls, 3 at once then one every 50 ms: the sixth takes its token 150 ms after the first.
      const limit = rateLimit({ requests: 3, perSeconds: 0.15, store: viaNodeRedis });
      const client = new HttpClient(
        new HttpClientConfigBuilder().withBaseUrl(server.url).withMiddleware(limit).build(),
      );
      const arrivals = [];
      server.route("/paced", (_req, res) => {
        arrivals.push(performance.now());
        res.end("ok");
      });
      const started = performance.now();
      try {
        const responses = await Promise.all(Array.from({ length: 6 }, () => client.get("/paced")));
        assert.deepEqual(responses.map((response) => response.statusCode), [
          200,
          200,
          200,
          200,
          200,
          200,
        ]);
      } finally {
        client.close();
      }
      assert.equal(arrivals.length, 6);
      const took = arrivals[5] - started;
      assert.ok(took >= 145, `the sixth came ${took.toFixed(0)} ms after the calls began`);
      assert.deepEqual((await ioredis.keys("fetchline-rate:*")).sort(), [
        `fetchline-rate:${server.url}`,
        "fetchline-rate:k",
      ]);
    } finally {
      // The clients before their server: each fails loudly when it goes first.
      await nodeRedis.close();
      await ioredis.quit();
    }
  } finally {
    await redis.stop();
  }
});
