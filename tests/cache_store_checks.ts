// What the tests of the stores that outlive a process share: entries and
// their comparison, and the checks a RedisCacheStore passes with either
// client package (cache_stores_test.ts runs them with node-redis,
// cache_stores_child.ts with ioredis, in a second process).

import assert from "node:assert/strict";
import type { CacheEntry, RedisCacheStore } from "../cache.ts";
import { HttpClientException } from "../mod.ts";

/** Bytes 0 to 255 over and over, `length` of them, shifted by `seed`. */
export function bytes(length: number, seed = 0): Uint8Array {
  return new Uint8Array(length).map((_, i) => (i + seed) % 256);
}

/** An entry with `body` and metadata as the cache keeps it (non-ASCII text included). */
export function entry(body: Uint8Array): CacheEntry {
  return { meta: { status: 200, headers: [["content-type", "image/png"]], note: "é ü 😀" }, body };
}

/** The entry one process writes under `key` for another to read: 150,000 bytes. */
export function sharedEntry(key: string): CacheEntry {
  return { meta: { key }, body: bytes(150_000, key.length) };
}

/** Asserts that `actual` is `expected`, its body byte for byte. */
export function assertEntry(actual: CacheEntry | undefined, expected: CacheEntry): void {
  assert.ok(actual !== undefined, "the entry is there");
  assert.deepEqual(actual.meta, expected.meta);
  assert.equal(actual.body.byteLength, expected.body.byteLength);
  assert.ok(
    actual.body.every((byte, i) => byte === expected.body[i]),
    "the body is byte for byte the one stored",
  );
}

/**
 * The checks of a RedisCacheStore whose keys start with `prefix`;
 * `command` sends a raw command through the same server.
 */
export async function checkRedisStore(
  store: RedisCacheStore,
  command: (...args: string[]) => Promise<unknown>,
): Promise<void> {
  const { prefix } = store;
  // Binary bodies round trip; a key never stored is undefined.
  for (const length of [0, 1, 256, 1_000_000]) {
    const stored = entry(bytes(length, length));
    await store.set(`GET http://127.0.0.1/${length}`, stored, 60_000);
    assertEntry(await store.get(`GET http://127.0.0.1/${length}`), stored);
  }
  assert.equal(await store.get("never stored"), undefined);

  // The value expires with PX after the time to live; a ttl of 0 deletes.
  await store.set("ttl", entry(bytes(10)), 60_000);
  const pttl = Number(await command("PTTL", `${prefix}ttl`));
  assert.ok(pttl > 55_000 && pttl <= 60_000, `PTTL ${pttl}`);
  await store.set("short", entry(bytes(10)), 100);
  await new Promise((resolve) => setTimeout(resolve, 150));
  assert.equal(await store.get("short"), undefined);
  await store.set("ttl", entry(bytes(10)), 0);
  assert.equal(Number(await command("EXISTS", `${prefix}ttl`)), 0);

  // Delete.
  await store.set("gone", entry(bytes(10)), 60_000);
  await store.delete("gone");
  await store.delete("never stored");
  assert.equal(await store.get("gone"), undefined);
  assert.equal(Number(await command("EXISTS", `${prefix}gone`)), 0);

  // A value that is no entry throws an HttpClientException; a list, the server's error.
  for (const garbage of ["hello", "\x01\x00\x00\x00\x09{}", "\x01\x00\x00\x00\x02[]", ""]) {
    await command("SET", `${prefix}garbage`, garbage);
    await assert.rejects(
      store.get("garbage"),
      (error) => error instanceof HttpClientException && /not a cache entry/.test(error.message),
    );
  }
  await command("DEL", `${prefix}garbage`);
  await command("RPUSH", `${prefix}garbage`, "a list");
  await assert.rejects(store.get("garbage"), /WRONGTYPE/);
  await store.delete("garbage");
  await store.set("garbage", entry(bytes(3)), 60_000);
  assertEntry(await store.get("garbage"), entry(bytes(3)));
}
