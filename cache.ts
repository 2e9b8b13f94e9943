/**
 * Caching: {@linkcode HttpCache}, a private HTTP cache (RFC 9111) that a
 * client plugs in as middleware (`withMiddleware(cache)` or
 * `withCache(cache)`), and the stores it keeps responses in:
 * {@linkcode MemoryCacheStore} in memory, {@linkcode DenoKvCacheStore} in a
 * Deno KV, {@linkcode RedisCacheStore} in Redis, or any
 * {@linkcode CacheStore}. `mod.ts` never loads this module: a client without
 * a cache never loads its code.
 *
 * For: not paying twice for the same answer. Guide:
 * [docs/caching.md](./docs/caching.md).
 *
 * @example A store in memory
 * ```ts
 * import { MemoryCacheStore } from "@fetchline/fetchline/cache";
 * import assert from "node:assert/strict";
 *
 * const store = new MemoryCacheStore({ maxEntries: 100 });
 * store.set("a", { meta: {}, body: new Uint8Array(3) }, 60_000);
 * assert.equal(store.get("a")?.body.byteLength, 3);
 * ```
 *
 * @module
 */

export { MemoryCacheStore } from "./src/cache/store.ts";
export type { CacheEntry, CacheStore, MemoryCacheStoreOptions } from "./src/cache/store.ts";
export { HttpCache } from "./src/cache/http_cache.ts";
export type { HttpCacheOptions } from "./src/cache/http_cache.ts";
export { DenoKvCacheStore } from "./src/cache/deno_kv_store.ts";
export type {
  DenoKvAtomicLike,
  DenoKvCacheStoreOptions,
  DenoKvLike,
  KvKeyPart,
} from "./src/cache/deno_kv_store.ts";
export { RedisCacheStore } from "./src/cache/redis_store.ts";
export type {
  IoRedisLike,
  NodeRedisLike,
  RedisCacheStoreOptions,
} from "./src/cache/redis_store.ts";
