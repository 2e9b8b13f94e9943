// The second process of tests/cache_shared_test.ts: a client with an
// HttpCache over a store the parent shares, `deno run cache_shared_child.ts
// kv <file> <url> <token>` or `… redis <redis url> <url> <token>`, sends one
// GET of <url> with `Authorization: Bearer <token>` and prints its
// Cache-Status line and body.

import { createClient } from "redis";
import { HttpClient, HttpClientConfigBuilder } from "../mod.ts";
import { type CacheStore, DenoKvCacheStore, HttpCache, RedisCacheStore } from "../cache.ts";

const [kind, where, url, token] = Deno.args;
if (where === undefined || url === undefined || token === undefined) {
  throw new Error("usage: kv|redis <where> <url> <token>");
}
const kv = kind === "kv" ? await Deno.openKv(where) : undefined;
const redis = kind === "redis" ? await createClient({ url: where }).connect() : undefined;
try {
  const store: CacheStore = kv !== undefined
    ? new DenoKvCacheStore(kv)
    : new RedisCacheStore(redis!);
  const cache = new HttpCache({ store });
  await using client = new HttpClient(
    new HttpClientConfigBuilder().withHeaders({ Authorization: `Bearer ${token}` }).withCache(cache)
      .build(),
  );
  const response = await client.get(url);
  await cache.whenIdle();
  console.log(`${response.header("cache-status")} | ${response.text}`);
} finally {
  kv?.close();
  await redis?.quit();
}
