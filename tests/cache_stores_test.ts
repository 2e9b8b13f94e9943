// The stores that outlive a process: DenoKvCacheStore on a KV file (with a
// second process writing into it) and RedisCacheStore on a real
// redis-server, through both client packages (node-redis and ioredis), with
// a second process sharing the server.

import assert from "node:assert/strict";
import { createClient } from "redis";
import { DenoKvCacheStore, HttpCache, RedisCacheStore } from "../cache.ts";
import { HttpClient, HttpClientConfigBuilder, HttpClientException } from "../mod.ts";
import { assertEntry, bytes, checkRedisStore, entry, sharedEntry } from "./cache_store_checks.ts";
import { startRedis } from "./redis_server.ts";

const CHILD = new URL("./cache_stores_child.ts", import.meta.url).pathname;

/** Runs the child (cache_stores_child.ts) with `args`; fails unless it wrote. */
async function runChild(flags: readonly string[], args: readonly string[]): Promise<void> {
  const { code, stdout, stderr } = await new Deno.Command("sh", {
    args: [
      "-c",
      'exec "$0" run --quiet --no-prompt "$@"',
      Deno.execPath(),
      ...flags,
      CHILD,
      ...args,
    ],
    stdin: "null",
  }).output();
  const out = new TextDecoder().decode(stdout) + new TextDecoder().decode(stderr);
  assert.equal(code, 0, `the child failed: ${out}`);
  assert.match(out, /done/);
}

/** A cache key as long as they come, 512 characters of 3 bytes each in UTF-8. */
const LONG_KEY = "€".repeat(512);

/** Every key under `prefix` in `kv`. */
async function kvKeys(kv: Deno.Kv, prefix: Deno.KvKey): Promise<Deno.KvKey[]> {
  const keys: Deno.KvKey[] = [];
  for await (const { key } of kv.list({ prefix })) keys.push(key);
  return keys;
}

Deno.test("DenoKvCacheStore on a KV file", async (t) => {
  const dir = await Deno.makeTempDir({ prefix: "fetchline-kv-" });
  const path = `${dir}/cache.sqlite`;
  try {
    using kv = await Deno.openKv(path);
    const store = new DenoKvCacheStore(kv);

    await t.step("a round trip, and undefined for a key never stored", async () => {
      const small = entry(bytes(1000));
      await store.set("GET http://127.0.0.1/a", small, 60_000);
      assertEntry(await store.get("GET http://127.0.0.1/a"), small);
      assert.equal(await store.get("GET http://127.0.0.1/none"), undefined);
      const empty = { meta: {}, body: new Uint8Array(0) };
      await store.set("empty", empty, 60_000);
      assertEntry(await store.get("empty"), empty);
    });

    await t.step(
      "a body of several chunks comes back byte for byte",
      async () => {
        const large = entry(bytes(200 * 1024, 3));
        await store.set("large", large, 60_000);
        assertEntry(await store.get("large"), large);
        // The head holds the first 60 KiB; three chunks under it the rest.
        assert.equal((await kvKeys(kv, ["fetchline-cache", "large"])).length, 3);
        // 2 MiB: 35 chunks, written in three commits, under the longest
        // key (512 characters, of 3 bytes each in UTF-8).
        const larger = entry(bytes(2 * 2 ** 20, 5));
        await store.set(LONG_KEY, larger, 60_000);
        assertEntry(await store.get(LONG_KEY), larger);
      },
    );

    await t.step(
      "a set replacing an entry deletes the replaced chunks; delete removes head and chunks",
      async () => {
        await store.set("large", entry(bytes(130 * 1024, 9)), 60_000);
        assert.equal((await kvKeys(kv, ["fetchline-cache", "large"])).length, 2);
        assertEntry(await store.get("large"), entry(bytes(130 * 1024, 9)));
        await store.delete("large");
        await store.delete(LONG_KEY);
        await store.delete("never stored");
        assert.equal(await store.get("large"), undefined);
        assert.deepEqual(await kvKeys(kv, ["fetchline-cache", "large"]), []);
        assert.deepEqual(await kvKeys(kv, ["fetchline-cache", LONG_KEY]), []);
      },
    );

    await t.step(
      "an entry past its time to live is refused before KV deletes it; a ttl of 0 deletes",
      async () => {
        await store.set("short", entry(bytes(10)), 100);
        assert.ok(await store.get("short"));
        await new Promise((resolve) => setTimeout(resolve, 150));
        assert.equal(await store.get("short"), undefined);
        await store.set("a", entry(bytes(1)), 0);
        assert.equal(await store.get("a"), undefined);
        await store.set("b", entry(bytes(1)), Infinity);
        assert.ok(await store.get("b"), "a ttl past KV's limit is kept for KV's longest");
      },
    );

    await t.step("garbage throws an HttpClientException; a missing chunk is a miss", async () => {
      await kv.set(["fetchline-cache", "garbage"], "not a head");
      await assert.rejects(store.get("garbage"), HttpClientException);
      const head = { id: "x", chunks: 1, until: Date.now() + 60_000, bytes: bytes(40) };
      await kv.set(["fetchline-cache", "bad bytes"], head);
      await assert.rejects(
        store.get("bad bytes"),
        /DenoKvCacheStore: a stored value is not a cache entry/,
      );
      await store.set("chunked", entry(bytes(100_000)), 60_000);
      const [chunkKey, ...others] = await kvKeys(kv, ["fetchline-cache", "chunked"]);
      assert.ok(chunkKey !== undefined && others.length === 0);
      await kv.set(chunkKey, "not bytes");
      await assert.rejects(store.get("chunked"), HttpClientException);
      await kv.delete(chunkKey);
      assert.equal(await store.get("chunked"), undefined);
      // A set over garbage replaces it.
      await store.set("garbage", entry(bytes(5)), 60_000);
      assertEntry(await store.get("garbage"), entry(bytes(5)));
    });

    await t.step("an entry a second process wrote into the file is read back", async () => {
      await runChild(
        ["--unstable-kv", `--allow-read=${dir}`, `--allow-write=${dir}`],
        ["kv", path, "from the child"],
      );
      assertEntry(await store.get("from the child"), sharedEntry("from the child"));
    });

    await t.step("the prefix keeps stores apart", async () => {
      const other = new DenoKvCacheStore(kv, { prefix: ["other", 1] });
      await other.set("GET http://127.0.0.1/a", entry(bytes(2)), 60_000);
      assertEntry(await other.get("GET http://127.0.0.1/a"), entry(bytes(2)));
      assertEntry(await store.get("GET http://127.0.0.1/a"), entry(bytes(1000)));
      assert.deepEqual(other.prefix, ["other", 1]);
    });
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("DenoKvCacheStore and RedisCacheStore refuse bad input with a TypeError naming the field", () => {
  const kv = { get: () => {}, getMany: () => {}, atomic: () => {} } as never;
  assert.throws(() => new DenoKvCacheStore({} as never), /Invalid kv: expected a Deno\.Kv/);
  assert.throws(() => new DenoKvCacheStore(kv, { prefix: "x" as never }), /Invalid prefix/);
  assert.throws(() => new DenoKvCacheStore(kv, { prefix: [{}] as never }), /Invalid prefix/);
  assert.throws(() => new DenoKvCacheStore(kv, { prefx: [] } as never), /unknown key "prefx"/);
  assert.throws(() => new RedisCacheStore({} as never), /Invalid redis: expected a client/);
  assert.throws(() => new RedisCacheStore(null as never), /Invalid redis/);
  const redis = { sendCommand: () => Promise.resolve(null) };
  assert.throws(() => new RedisCacheStore(redis, { prefix: 1 as never }), /Invalid prefix/);
  assert.throws(() => new RedisCacheStore(redis, { ttl: 1 } as never), /unknown key "ttl"/);
});

Deno.test("RedisCacheStore on a real redis-server, through node-redis here and ioredis in a second process", async (t) => {
  await using server = await startRedis();
  const redis = await createClient({ url: server.url }).connect();
  try {
    await t.step(
      "node-redis: round trips of binary bodies, PX expiry, delete, garbage",
      async () => {
        await checkRedisStore(
          new RedisCacheStore(redis, { prefix: "node-redis:" }),
          (...args) => redis.sendCommand(args),
        );
      },
    );

    await t.step(
      "ioredis, in a second process: the same checks, and each process reads what the other wrote",
      async () => {
        const store = new RedisCacheStore(redis);
        await store.set("from the parent", sharedEntry("from the parent"), 60_000);
        await runChild(["--allow-net=127.0.0.1", "--allow-env", "--allow-read"], [
          "redis",
          server.url,
          "from the child",
          "from the parent",
        ]);
        assertEntry(await store.get("from the child"), sharedEntry("from the child"));
      },
    );
  } finally {
    await redis.close();
  }
});

/** A server whose answers (`size` bytes) quote the credentials each request sent; `served()` counts them. */
function echoServer(size = 100) {
  let count = 0;
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, (request) => {
    count++;
    return new Response(new Uint8Array(size).fill(7), {
      headers: {
        "Cache-Control": "private, max-age=600",
        "X-Echoed": `you sent ${request.headers.get("authorization")}`,
        "X-Echo-Key": request.headers.get("x-api-key") ?? "none",
        "Set-Cookie": "session=s3cr3t-cookie; Path=/",
      },
    });
  });
  return Object.assign(server, {
    url: `http://127.0.0.1:${server.addr.port}`,
    served: () => count,
  });
}

/** A client of `base` with `cache`, no retries. */
function clientOf(base: string, cache: HttpCache): HttpClient {
  return new HttpClient(
    new HttpClientConfigBuilder().withBaseUrl(base).withCache(cache).withRetry({ maxRetries: 0 })
      .build(),
  );
}

Deno.test("RedisCacheStore: no credential, echoed or not, and no fragment reaches redis", async () => {
  await using server = await startRedis();
  await using origin = echoServer();
  const redis = await createClient({ url: server.url }).connect();
  try {
    const cache = new HttpCache({ store: new RedisCacheStore(redis) });
    const client = clientOf(origin.url, cache);
    try {
      const credentials = { Authorization: "Bearer t0ken-echoed", "X-API-Key": "k3y-echoed" };
      const first = await client.get("/me", { headers: credentials });
      assert.equal(first.header("x-echo-key"), "k3y-echoed");
      await client.get("/ui#access_token=fr4gment-t0ken");
      await cache.whenIdle();
      const hit = await client.get("/me", { headers: credentials });
      assert.equal(hit.header("cache-status"), "fetchline; hit");
      assert.ok(!hit.header("x-echoed")!.includes("t0ken-echoed"), hit.header("x-echoed"));
      assert.equal(hit.header("set-cookie"), undefined);
      // The fragment is no part of the key: the URL without it is the same entry.
      assert.equal((await client.get("/ui")).header("cache-status"), "fetchline; hit");
    } finally {
      await client.close();
    }
    const keys = await redis.sendCommand(["KEYS", "*"]) as string[];
    assert.equal(keys.length, 2, `keys ${keys}`);
    let dump = keys.join("\n");
    for (const key of keys) dump += `\n${await redis.sendCommand(["GET", key])}`;
    for (
      const secret of ["t0ken-echoed", "k3y-echoed", "fr4gment-t0ken", "access_token", "s3cr3t"]
    ) {
      assert.ok(!dump.includes(secret), `${secret} reached redis`);
    }
  } finally {
    await redis.close();
  }
});

Deno.test("DenoKvCacheStore: close() waits for the cache's last write, so kv.close() next loses nothing", async () => {
  const dir = await Deno.makeTempDir({ prefix: "fetchline-kv-" });
  const path = `${dir}/cache.sqlite`;
  await using origin = echoServer();
  try {
    for (const run of [1, 2]) {
      const kv = await Deno.openKv(path);
      const errors: unknown[] = [];
      const cache = new HttpCache({
        store: new DenoKvCacheStore(kv),
        onError: (error) => errors.push(error),
      });
      const client = clientOf(origin.url, cache);
      try {
        const page = await client.get("/page");
        const expected = run === 1 ? "fetchline; fwd=miss; stored" : "fetchline; hit";
        assert.equal(page.header("cache-status"), expected, `run ${run}`);
      } finally {
        await client.close();
        kv.close();
      }
      assert.deepEqual(errors, [], `run ${run}`);
    }
    assert.equal(origin.served(), 1, "the second run reads what the first wrote");
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
