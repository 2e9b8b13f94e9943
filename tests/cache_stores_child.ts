// The second process of tests/cache_stores_test.ts.
// `deno run cache_stores_child.ts kv <file> <key>` writes sharedEntry(key)
// into the Deno KV file. `… redis <url> <key> <parent's key>` runs the
// RedisCacheStore checks through ioredis (which reads the whole environment
// when it loads: the suite's --allow-env list does not grant that, this
// process has --allow-env), reads the parent's entry and writes
// sharedEntry(key). It prints "done" when all went well.

import { DenoKvCacheStore, RedisCacheStore } from "../cache.ts";
import { assertEntry, checkRedisStore, sharedEntry } from "./cache_store_checks.ts";

const [kind, where, key, parentKey] = Deno.args;
if (where === undefined || key === undefined) throw new Error("usage: kv|redis <where> <key>");
if (kind === "kv") {
  using kv = await Deno.openKv(where);
  await new DenoKvCacheStore(kv).set(key, sharedEntry(key), 60_000);
} else {
  const { Redis } = await import("ioredis");
  const redis = new Redis(where);
  try {
    await checkRedisStore(
      new RedisCacheStore(redis, { prefix: "ioredis:" }),
      (name, ...args) => redis.call(name, ...args),
    );
    const store = new RedisCacheStore(redis);
    assertEntry(await store.get(parentKey ?? ""), sharedEntry(parentKey ?? ""));
    await store.set(key, sharedEntry(key), 60_000);
  } finally {
    await redis.quit();
  }
}
console.log("done");
