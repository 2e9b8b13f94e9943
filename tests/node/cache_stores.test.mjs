// RedisCacheStore from the npm build on a real redis-server
// (redis_server.mjs), through both client packages, which
// scripts/test_npm.ts installs beside the package.

import assert from "node:assert/strict";
import { test } from "node:test";
import { RedisCacheStore } from "@fetchline/fetchline/cache";
import { HttpClientException } from "@fetchline/fetchline";
import { skip, startRedis } from "./redis_server.mjs";

test("RedisCacheStore round trips binary bodies through node-redis and ioredis, with a PX expiry", {
  skip,
}, async () => {
  const server = await startRedis();
  try {
    const url = `redis://127.0.0.1:${server.port}`;
    const { createClient } = await import("redis");
    const { Redis } = await import("ioredis");
    const nodeRedis = await createClient({ url }).connect();
    const ioredis = new Redis(url);
    try {
      await checkStores(nodeRedis, ioredis);
    } finally {
      // The clients before their server: each fails loudly when it goes first.
      await nodeRedis.close();
      await ioredis.quit();
    }
  } finally {
    await server.stop();
  }
});

/** The checks, through a connected client of each package. */
async function checkStores(nodeRedis, ioredis) {
  const body = new Uint8Array(300_000).map((_, i) => i % 256);
  const entry = { meta: { status: 200, note: "é 😀" }, body };
  const viaNodeRedis = new RedisCacheStore(nodeRedis);
  const viaIoredis = new RedisCacheStore(ioredis);
  await viaNodeRedis.set("GET http://127.0.0.1/a", entry, 60_000);
  for (const store of [viaNodeRedis, viaIoredis]) {
    const read = await store.get("GET http://127.0.0.1/a");
    assert.deepEqual(read.meta, entry.meta);
    assert.deepEqual(new Uint8Array(read.body), body);
  }
  const pttl = await ioredis.pttl("fetchline-cache:GET http://127.0.0.1/a");
  assert.ok(pttl > 55_000 && pttl <= 60_000, `PTTL ${pttl}`);
  await viaIoredis.set("b", { meta: {}, body: new Uint8Array([0, 255]) }, 60_000);
  assert.deepEqual(new Uint8Array((await viaNodeRedis.get("b")).body), new Uint8Array([0, 255]));
  await viaIoredis.delete("b");
  assert.equal(await viaNodeRedis.get("b"), undefined);
  await ioredis.set("fetchline-cache:garbage", "not an entry");
  await assert.rejects(viaNodeRedis.get("garbage"), HttpClientException);
  await assert.rejects(viaIoredis.get("garbage"), HttpClientException);
}
