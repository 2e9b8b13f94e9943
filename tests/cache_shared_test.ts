// One cache for many processes: a second process stores a response through
// HttpCache in a Deno KV file or a Redis server, and this one, with a
// client and a store of its own on the same file or server, is served it
// without reaching the server; another caller's credentials never are.

import assert from "node:assert/strict";
import { createClient } from "redis";
import { HttpClient, HttpClientConfigBuilder } from "../mod.ts";
import { type CacheStore, DenoKvCacheStore, HttpCache, RedisCacheStore } from "../cache.ts";
import { startRedis } from "./redis_server.ts";

const CHILD = new URL("./cache_shared_child.ts", import.meta.url).pathname;

/** Runs the child with `args` and gives its one line. */
async function child(args: readonly string[]): Promise<string> {
  const { code, stdout, stderr } = await new Deno.Command("sh", {
    args: [
      "-c",
      'exec "$0" run --quiet --no-prompt "$@"',
      Deno.execPath(),
      "--unstable-kv",
      "--allow-net=127.0.0.1",
      "--allow-read",
      "--allow-write",
      "--allow-env",
      CHILD,
      ...args,
    ],
    stdin: "null",
  }).output();
  const out = new TextDecoder().decode(stdout).trim();
  assert.equal(code, 0, `the child failed: ${out} ${new TextDecoder().decode(stderr)}`);
  return out;
}

/** A server answering a private response fresh for a minute, naming the caller; `count` its requests. */
function origin() {
  let count = 0;
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, (request) => {
    count++;
    // Which caller, by a number: the tokens never appear in a body.
    const caller = request.headers.get("authorization") === "Bearer alice" ? 1 : 2;
    return new Response(`profile ${caller}`, {
      headers: { "Cache-Control": "private, max-age=60" },
    });
  });
  return {
    url: `http://127.0.0.1:${server.addr.port}/profile`,
    get count() {
      return count;
    },
    [Symbol.asyncDispose]: () => server.shutdown(),
  };
}

/** The parent's GET of `url` as `token`, through a cache over `store`. */
async function get(store: CacheStore, url: string, token: string) {
  const cache = new HttpCache({ store });
  await using client = new HttpClient(
    new HttpClientConfigBuilder().withHeaders({ Authorization: `Bearer ${token}` }).withCache(cache)
      .build(),
  );
  const response = await client.get(url);
  await cache.whenIdle();
  return `${response.header("cache-status")} | ${response.text}`;
}

/**
 * The second process (its `args` before the URL and token) stores alice's
 * response; this one, through `store`, is served it, and bob is not.
 */
async function shared(args: string[], store: CacheStore, server: ReturnType<typeof origin>) {
  assert.equal(
    await child([...args, server.url, "alice"]),
    "fetchline; fwd=miss; stored | profile 1",
  );
  assert.equal(await get(store, server.url, "alice"), "fetchline; hit | profile 1");
  assert.equal(server.count, 1);
  assert.equal(await get(store, server.url, "bob"), "fetchline; fwd=miss; stored | profile 2");
  assert.equal(server.count, 2);
}

Deno.test("two processes share one cache through a Deno KV file", async () => {
  const dir = await Deno.makeTempDir({ prefix: "fetchline-cache-kv-" });
  try {
    await using server = origin();
    const path = `${dir}/cache.sqlite`;
    using kv = await Deno.openKv(path);
    await shared(["kv", path], new DenoKvCacheStore(kv), server);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("two processes share one cache through Redis", async () => {
  await using redisServer = await startRedis();
  await using server = origin();
  const redis = await createClient({ url: redisServer.url }).connect();
  try {
    await shared(["redis", redisServer.url], new RedisCacheStore(redis), server);
    // No credential in what Redis holds, keys or values.
    const keys = await redis.keys("*");
    assert.equal(keys.length, 2);
    for (const key of keys) {
      const held = `${key} ${await redis.get(key)}`;
      for (const secret of ["alice", "bob"]) assert.ok(!held.includes(secret), held);
    }
  } finally {
    await redis.quit();
  }
});
