// rateLimit() (API.md "Traffic control"): what reaches a real server and
// when, the wait that the call's signal, close() and timeout end, the
// stores (in memory, failing, Redis shared by two processes whose clocks
// disagree) and bad input.

import assert from "node:assert/strict";
import FakeTimers from "@sinonjs/fake-timers";
import { createClient } from "redis";
import {
  HttpClient,
  HttpClientConfigBuilder,
  HttpClientException,
  TimeoutException,
} from "../mod.ts";
import { HttpCache, MemoryCacheStore } from "../cache.ts";
import {
  MemoryRateLimitStore,
  rateLimit,
  type RateLimitOptions,
  type RateLimitStore,
  RedisTrafficStore,
} from "../traffic.ts";
import type { Middleware } from "../interfaces.ts";
import { recordingLogger, rejectsWith, settles } from "./helpers.ts";
import { startRedis } from "./redis_server.ts";

/** The real timers, kept before a test fakes them. */
const realSetTimeout = globalThis.setTimeout;
const sleep = (ms: number) => new Promise((resolve) => realSetTimeout(resolve, ms));

/** Waits (on the real clock, at most 5 s) until `done()` holds. */
async function until(done: () => boolean, what: string): Promise<void> {
  for (let waited = 0; !done(); waited += 5) {
    if (waited > 5000) throw new Error(`not within 5 s: ${what}`);
    await sleep(5);
  }
}

/** A server that records when each request came (`performance.now()`) and from which caller. */
function recordingServer() {
  const arrivals: { at: number; caller: string; path: string }[] = [];
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, (request) => {
    const caller = request.headers.get("x-caller") ?? "parent";
    arrivals.push({ at: performance.now(), caller, path: new URL(request.url).pathname });
    return new Response("ok");
  });
  return {
    arrivals,
    origin: `http://127.0.0.1:${server.addr.port}`,
    [Symbol.asyncDispose]: () => server.shutdown(),
  };
}

function clientWith(
  middleware: Middleware,
  configure = (builder: HttpClientConfigBuilder) => builder,
) {
  return new HttpClient(
    configure(new HttpClientConfigBuilder().withMiddleware(middleware)).build(),
  );
}

/**
 * Checks that `times` (ms, any order) fit a bucket of `burst` tokens that
 * refills one every `intervalMs`: no run of calls came faster. `slackMs`
 * allows for the time between a token's take and the server's arrival.
 */
function assertWithinBucket(times: number[], burst: number, intervalMs: number, slackMs: number) {
  const sorted = [...times].sort((a, b) => a - b);
  for (let i = 0; i < sorted.length; i++) {
    for (let j = i + burst; j < sorted.length; j++) {
      const allowed = burst + Math.floor((sorted[j]! - sorted[i]! + slackMs) / intervalMs);
      assert.ok(
        j - i + 1 <= allowed,
        `${j - i + 1} calls within ${(sorted[j]! - sorted[i]!).toFixed(1)} ms (at most ${allowed})`,
      );
    }
  }
}

Deno.test("rateLimit(): the server gets the burst at once, then one call a token (fake clock)", async () => {
  await using server = recordingServer();
  const clock = FakeTimers.install({ toFake: ["setTimeout", "clearTimeout", "performance"] });
  const limit = rateLimit({ requests: 2, perSeconds: 1 }); // a token every 500 ms, 2 at once
  const client = clientWith(limit, (builder) => builder.withTimeout(null));
  try {
    const calls = Array.from({ length: 6 }, (_, i) => client.get(`${server.origin}/${i}`));
    const count = () => server.arrivals.length;
    await until(() => count() === 2, "the burst");
    await sleep(30);
    assert.equal(count(), 2);
    assert.deepEqual(limit.state(), {
      [server.origin]: { tokens: 0, nextTokenMs: 500, queued: 4 },
    });
    clock.tick(499);
    await sleep(30);
    assert.equal(count(), 2, "no token before 500 ms");
    clock.tick(1);
    await until(() => count() === 3, "the third at 500 ms");
    clock.tick(499);
    await sleep(30);
    assert.equal(count(), 3);
    clock.tick(1);
    await until(() => count() === 4, "the fourth at 1000 ms");
    clock.tick(1000);
    await until(() => count() === 6, "the fifth and sixth at 1500 and 2000 ms");
    await Promise.all(calls);
    assert.deepEqual(server.arrivals.map((arrival) => arrival.path), [
      "/0",
      "/1",
      "/2",
      "/3",
      "/4",
      "/5",
    ], "first come, first served");
    assert.deepEqual(limit.state(), {
      [server.origin]: { tokens: 0, nextTokenMs: 500, queued: 0 },
    });
    clock.tick(1000);
    assert.deepEqual(limit.state(), {}, "a full bucket with nothing waiting is left out");
  } finally {
    clock.uninstall();
    await client.close();
  }
});

Deno.test("rateLimit(): twenty calls through 5 per 100 ms take 300 ms and never pass a server's own limit", async () => {
  const interval = 20;
  let tat = 0;
  let refused = 0;
  // The server's own GCRA, 5 at once and one every 20 ms, with two tokens' time of slack for the loopback.
  await using server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, () => {
    const now = performance.now();
    const next = Math.max(tat, now) + interval;
    if (next - 5 * interval > now + 2 * interval) {
      return refused++, new Response("slow down", { status: 429 });
    }
    tat = next;
    return new Response("ok");
  });
  await using client = clientWith(rateLimit({ requests: 5, perSeconds: 0.1 }));
  const started = performance.now();
  const responses = await Promise.all(
    Array.from({ length: 20 }, () => client.get(`http://127.0.0.1:${server.addr.port}/`)),
  );
  const took = performance.now() - started;
  assert.equal(refused, 0);
  assert.deepEqual(new Set(responses.map((response) => response.statusCode)), new Set([200]));
  assert.ok(took >= 15 * interval - 2 && took < 2000, `took ${took.toFixed(0)} ms`);
});

Deno.test("rateLimit(): the call's timeout, signal and close() end its wait, leaving no place or timer", async () => {
  await using server = recordingServer();
  // Fake timers, to count them: the clients below set none of their own but the 0.2 s timeout.
  const clock = FakeTimers.install({ toFake: ["setTimeout", "clearTimeout", "performance"] });
  const limit = rateLimit({ requests: 1, perSeconds: 60 });
  const queued = () => limit.state()[server.origin]?.queued;
  const timed = clientWith(
    limit,
    (builder) => builder.withTimeout(0.2).withRetry({ maxRetries: 0 }),
  );
  const client = clientWith(
    limit,
    (builder) => builder.withTimeout(null).withRetry({ maxRetries: 0 }),
  );
  try {
    await client.get(server.origin);
    assert.equal(clock.countTimers(), 0);
    const timing = timed.get(server.origin);
    await until(() => queued() === 1, "the call waits");
    assert.equal(clock.countTimers(), 2, "the call's timeout and the limit's timer");
    clock.tick(200);
    await rejectsWith(
      timing,
      TimeoutException,
      /timed out after 0\.2 s waiting in the rate limit: GET/,
    );
    assert.equal(queued(), 0);
    assert.equal(clock.countTimers(), 0, "the limit's timer is cleared");
    const controller = new AbortController();
    const aborted = client.get(server.origin, { signal: controller.signal });
    await until(() => queued() === 1, "the call waits");
    assert.equal(clock.countTimers(), 1, "the limit's timer");
    controller.abort();
    await rejectsWith(aborted, HttpClientException, /Request was aborted/);
    assert.equal(queued(), 0);
    assert.equal(clock.countTimers(), 0);
    const closing = client.get(server.origin);
    await until(() => queued() === 1, "the call waits");
    await client.close();
    await rejectsWith(closing, HttpClientException, /Client was closed/);
    assert.equal(queued(), 0);
    assert.equal(clock.countTimers(), 0);
    assert.equal(server.arrivals.length, 1, "only the first call was sent");
  } finally {
    clock.uninstall();
    await timed.close();
    await client.close();
  }
});

Deno.test("rateLimit(): a call that leaves the queue lets the ones behind it keep their order", async () => {
  await using server = recordingServer();
  const limit = rateLimit({ requests: 1, perSeconds: 0.03 });
  await using client = clientWith(limit);
  const controller = new AbortController();
  const calls = [0, 1, 2, 3, 4].map((i) =>
    client.get(`${server.origin}/${i}`, i === 2 ? { signal: controller.signal } : {})
  );
  await until(() => limit.state()[server.origin]?.queued === 4, "four wait");
  controller.abort();
  const settled = await Promise.allSettled(calls);
  assert.deepEqual(settled.map((result) => result.status), [
    "fulfilled",
    "fulfilled",
    "rejected",
    "fulfilled",
    "fulfilled",
  ]);
  assert.deepEqual(server.arrivals.map((arrival) => arrival.path), ["/0", "/1", "/3", "/4"]);
});

Deno.test("MemoryRateLimitStore: a full bucket gives its token, whatever the rounding of the interval", () => {
  const store = new MemoryRateLimitStore();
  for (const intervalMs of [1000 / 3, 30 * 86400 * 1000]) {
    for (let i = 0; i < 200; i++) {
      assert.equal(store.take(`fresh-${intervalMs}-${i}`, intervalMs, 1).waitMs, 0);
    }
  }
});

Deno.test("rateLimit(): a token more than 24.8 days away is waited for on a timer that fits, not asked for every millisecond", async () => {
  await using server = recordingServer();
  let takes = 0;
  const memory = new MemoryRateLimitStore();
  const store: RateLimitStore = {
    take: (key, intervalMs, burst) => (takes++, memory.take(key, intervalMs, burst)),
  };
  // One call a month: the next token is about 2.6e9 ms away, past a timer's 2^31 - 1.
  const limit = rateLimit({ requests: 1, perSeconds: "720h", store });
  await using client = clientWith(
    limit,
    (builder) => builder.withTimeout(0.3).withRetry({ maxRetries: 0 }),
  );
  await client.get(server.origin);
  await rejectsWith(client.get(server.origin), TimeoutException, /waiting in the rate limit/);
  assert.equal(takes, 2, "one take for each call, none while the second waited");
});

Deno.test("rateLimit(): a bucket per origin by default, one for the client with scope client", async () => {
  await using first = recordingServer();
  await using second = recordingServer();
  const perOrigin = rateLimit({ requests: 1, perSeconds: 60 });
  const perClient = rateLimit({ requests: 1, perSeconds: 60, scope: "client", key: "my-api" });
  {
    await using client = clientWith(perOrigin);
    await client.get(first.origin);
    await client.get(second.origin);
    assert.deepEqual(Object.keys(perOrigin.state()).sort(), [first.origin, second.origin].sort());
  }
  await using client = clientWith(perClient, (builder) => builder.withTimeout(0.1));
  await client.get(first.origin);
  await rejectsWith(settles(client.get(second.origin)), TimeoutException, /in the rate limit/);
  assert.deepEqual(Object.keys(perClient.state()), ["my-api"]);
  assert.equal(first.arrivals.length, 2);
  assert.equal(second.arrivals.length, 1);
});

Deno.test("rateLimit(): a retry is an exchange of its own and takes a token of its own", async () => {
  let served = 0;
  await using server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen() {} },
    () => new Response(null, { status: served++ === 0 ? 503 : 200 }),
  );
  const store = new MemoryRateLimitStore();
  const taken: string[] = [];
  const counting: RateLimitStore = {
    take: (key, intervalMs, burst) => (taken.push(key), store.take(key, intervalMs, burst)),
  };
  await using client = clientWith(
    rateLimit({ requests: 10, perSeconds: 1, store: counting }),
    (builder) => builder.withRetry({ maxRetries: 1, backoff: 0 }),
  );
  const response = await client.get(`http://127.0.0.1:${server.addr.port}/`);
  assert.equal(response.statusCode, 200);
  assert.equal(taken.length, 2);
});

Deno.test("rateLimit(): a store that fails, hangs or answers garbage lets the call through and warns the logger, masked", async () => {
  await using server = recordingServer();
  const stores: [RateLimitStore, RegExp][] = [
    [{ take: () => Promise.reject(new Error("down at redis://u:hunter2@h")) }, /down at/],
    [{ take: () => new Promise<never>(() => {}) }, /did not answer within 50 ms/],
    [{ take: () => ({ waitMs: "soon" }) as never }, /answered Object, not \{ waitMs, fullInMs \}/],
    [{
      take() {
        throw new Error("thrown");
      },
    }, /thrown/],
  ];
  for (const [store, message] of stores) {
    const { logger, lines } = recordingLogger();
    await using client = clientWith(
      rateLimit({ requests: 1, perSeconds: 60, store, storeTimeout: 0.05 }),
      (builder) => builder.withLogging({ logger }),
    );
    assert.equal((await client.get(server.origin)).statusCode, 200);
    const warnings = lines.filter(([level]) => level === "warn").map(([, line]) => line);
    assert.equal(warnings.length, 1, String(message));
    assert.match(
      warnings[0]!,
      /^fetchline rate limit: the store failed, the call goes without a token/,
    );
    assert.match(warnings[0]!, message);
    assert.doesNotMatch(warnings[0]!, /hunter2/);
  }
  assert.equal(server.arrivals.length, stores.length);
});

/**
 * A server whose resources carry an ETag (`"v1"`) and `max-age=0`: a
 * request with that tag in `If-None-Match` is answered 304 (after
 * `notModifiedDelayMs`), any other with the body. Counts both.
 */
function etagServer(notModifiedDelayMs = 0) {
  const seen = { full: 0, notModified: 0 };
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, async (request) => {
    const headers = { ETag: '"v1"', "Cache-Control": "max-age=0" };
    if (request.headers.get("if-none-match") === '"v1"') {
      seen.notModified++;
      await sleep(notModifiedDelayMs);
      return new Response(null, { status: 304, headers });
    }
    seen.full++;
    return new Response("body", { headers });
  });
  return {
    seen,
    origin: `http://127.0.0.1:${server.addr.port}`,
    [Symbol.asyncDispose]: () => server.shutdown(),
  };
}

Deno.test("rateLimit({ countNotModified: false }): a conditional request answered 304 gives its token back", async () => {
  await using server = etagServer();
  const conditional = { headers: { "If-None-Match": '"v1"' } };
  // Two tokens, the next a minute away: a third counted call times out.
  const options = { requests: 1, perSeconds: 60, burst: 2 };
  {
    const limit = rateLimit({ ...options, countNotModified: false });
    await using client = clientWith(limit, (builder) => builder.withTimeout(0.2));
    assert.equal((await client.get(server.origin)).statusCode, 200);
    for (let i = 0; i < 5; i++) {
      assert.equal((await client.get(server.origin, conditional)).statusCode, 304);
    }
    assert.equal(limit.state()[server.origin]?.tokens, 1, "the 304s took none");
    // A conditional request answered with the body counts.
    const changed = { headers: { "If-None-Match": '"v0"' } };
    assert.equal((await client.get(server.origin, changed)).statusCode, 200);
    await rejectsWith(settles(client.get(server.origin)), TimeoutException, /in the rate limit/);
    assert.deepEqual(server.seen, { full: 2, notModified: 5 });
  }
  // By default every exchange counts, a 304 too.
  const counting = rateLimit(options);
  await using client = clientWith(counting, (builder) => builder.withTimeout(0.2));
  await client.get(server.origin);
  await client.get(server.origin, conditional);
  await rejectsWith(
    settles(client.get(server.origin, conditional)),
    TimeoutException,
    /in the rate limit/,
  );
});

Deno.test("rateLimit({ countNotModified: false }): a call waiting for a token goes as soon as a 304 gives one back", async () => {
  await using server = etagServer(100);
  const limit = rateLimit({ requests: 1, perSeconds: 60, countNotModified: false });
  await using client = clientWith(limit, (builder) => builder.withTimeout(5));
  const started = performance.now();
  const revalidation = client.get(server.origin, { headers: { "If-None-Match": '"v1"' } });
  await until(() => limit.state()[server.origin]?.tokens === 0, "the token taken");
  const waiting = client.get(`${server.origin}/other`);
  await until(() => limit.state()[server.origin]?.queued === 1, "the second call waits");
  assert.equal((await revalidation).statusCode, 304);
  assert.equal((await waiting).statusCode, 200);
  assert.ok(performance.now() - started < 2000, "not a minute: the 304's token");
  assert.deepEqual(server.seen, { full: 1, notModified: 1 });
});

Deno.test("rateLimit({ countNotModified: false }) behind the cache: revalidating stale copies costs no token", async () => {
  await using server = etagServer();
  const cache = new HttpCache({ store: new MemoryCacheStore() });
  // Three tokens for the first fetches and one that each revalidation borrows and gives back.
  const limit = rateLimit({ requests: 1, perSeconds: 60, burst: 4, countNotModified: false });
  await using client = new HttpClient(
    new HttpClientConfigBuilder().withCache(cache).withMiddleware(limit).withTimeout(0.5).build(),
  );
  for (let round = 0; round < 4; round++) {
    for (const path of ["/a", "/b", "/c"]) {
      const response = await client.get(server.origin + path);
      assert.equal(response.text, "body");
      assert.match(response.header("cache-status")!, round === 0 ? /fwd=miss/ : /fwd-status=304/);
    }
  }
  assert.deepEqual(server.seen, { full: 3, notModified: 9 });
  assert.equal(limit.state()[server.origin]?.tokens, 1);
});

Deno.test("RedisTrafficStore: refund gives a token back on the server, never past a full bucket", async () => {
  await using redis = await startRedis();
  const connection = await createClient({ url: redis.url }).connect();
  try {
    const store = new RedisTrafficStore(connection);
    await store.refund("absent", 1000); // a full bucket stays full: no key
    assert.equal(await connection.sendCommand(["EXISTS", "fetchline-rate:absent"]), 0);
    await store.take("k", 60_000, 2);
    await store.take("k", 60_000, 2);
    assert.ok((await store.take("k", 60_000, 2)).waitMs > 0, "empty");
    await connection.sendCommand(["SCRIPT", "FLUSH"]); // the refund loads its script with EVAL
    await store.refund("k", 60_000);
    const pttl = Number(await connection.sendCommand(["PTTL", "fetchline-rate:k"]));
    assert.ok(pttl > 50_000 && pttl <= 60_000, `PTTL ${pttl}`);
    assert.equal((await store.take("k", 60_000, 2)).waitMs, 0, "the token given back");
    await store.refund("k", 60_000);
    await store.refund("k", 60_000);
    await store.refund("k", 60_000); // past full: the key goes
    assert.equal(await connection.sendCommand(["EXISTS", "fetchline-rate:k"]), 0);

    await using server = etagServer();
    const limit = rateLimit({ requests: 1, perSeconds: 60, store, countNotModified: false });
    await using client = clientWith(limit, (builder) => builder.withTimeout(0.5));
    for (let i = 0; i < 3; i++) {
      const response = await client.get(server.origin, { headers: { "If-None-Match": '"v1"' } });
      assert.equal(response.statusCode, 304);
    }
    assert.equal(
      await connection.sendCommand(["EXISTS", `fetchline-rate:${server.origin}`]),
      0,
      "every token given back",
    );
  } finally {
    await connection.close();
  }
});

Deno.test("MemoryRateLimitStore: refund gives a token back, never past a full bucket", () => {
  const store = new MemoryRateLimitStore();
  store.refund("absent", 1000);
  assert.equal(store.size, 0);
  store.take("k", 60_000, 1);
  assert.ok(store.take("k", 60_000, 1).waitMs > 0);
  store.refund("k", 60_000);
  assert.equal(store.size, 0, "full again: the key goes");
  assert.equal(store.take("k", 60_000, 1).waitMs, 0);
});

Deno.test("rateLimit() and RedisTrafficStore refuse bad input, naming the field", () => {
  const valid: RateLimitOptions = { requests: 1, perSeconds: 1 };
  const bad: [Record<string, unknown>, RegExp][] = [
    [{ requests: 0 }, /Invalid requests: expected a positive integer, got 0/],
    [{ requests: 1.5 }, /Invalid requests/],
    [{ requests: "5" }, /Invalid requests: expected a positive integer, got string/],
    [{ perSeconds: 0 }, /Invalid perSeconds/],
    [{ perSeconds: Infinity }, /Invalid perSeconds/],
    [{ perSeconds: NaN }, /Invalid perSeconds/],
    [{ burst: 0 }, /Invalid burst/],
    [{ scope: "host" }, /Invalid scope: expected "origin" or "client", got "host"/],
    [
      { key: "k" },
      /Invalid key: expected a non-empty string with scope "client", got a string with scope "origin"/,
    ],
    [{ scope: "client", key: "" }, /Invalid key/],
    [{ store: {} }, /Invalid store: expected a RateLimitStore/],
    [{ storeTimeout: -1 }, /Invalid storeTimeout/],
    [{ perSecond: 1 }, /unknown key "perSecond"/],
    [{ countNotModified: "no" }, /Invalid countNotModified: expected a boolean, got string/],
    [
      { countNotModified: false, store: { take() {}, refund: 1 } },
      /Invalid store: expected refund to be a method, got number/,
    ],
  ];
  for (const [options, message] of bad) {
    assert.throws(() => rateLimit({ ...valid, ...options } as never), TypeError, String(message));
    assert.throws(() => rateLimit({ ...valid, ...options } as never), message);
  }
  assert.throws(() => rateLimit(undefined as never), /Invalid rateLimit options/);
  assert.throws(() => new RedisTrafficStore({} as never), /Invalid redis: expected a client/);
  assert.throws(
    () => new RedisTrafficStore({ sendCommand() {} } as never, { prefix: 5 } as never),
    /Invalid prefix/,
  );
});

Deno.test("RedisTrafficStore: GCRA on the server, one number a key that expires, no credential in it", async () => {
  await using redis = await startRedis();
  const connection = await createClient({ url: redis.url }).connect();
  try {
    const store = new RedisTrafficStore(connection);
    await connection.sendCommand(["SCRIPT", "FLUSH"]); // the first take loads the script with EVAL
    assert.deepEqual(await store.take("k", 1000, 2), { waitMs: 0, fullInMs: 1000 });
    const second = await store.take("k", 1000, 2);
    assert.equal(second.waitMs, 0);
    // Within a slow machine's time between the takes.
    assert.ok(second.fullInMs > 1800 && second.fullInMs <= 2000, String(second.fullInMs));
    const third = await store.take("k", 1000, 2);
    assert.ok(third.waitMs > 800 && third.waitMs <= 1000, String(third.waitMs));
    const pttl = Number(await connection.sendCommand(["PTTL", "fetchline-rate:k"]));
    assert.ok(pttl > 1700 && pttl <= 2000, `PTTL ${pttl}`);
    assert.deepEqual(await store.take("quick", 20, 1), { waitMs: 0, fullInMs: 20 });
    await sleep(60);
    assert.equal(await connection.sendCommand(["EXISTS", "fetchline-rate:quick"]), 0);

    await using server = recordingServer();
    const url = server.origin.replace("//", "//user:hunter2@");
    await using client = clientWith(rateLimit({ requests: 5, perSeconds: 1, store }));
    await client.get(url);
    const keys = (await connection.sendCommand(["KEYS", "*"])) as string[];
    assert.deepEqual(keys.sort(), [`fetchline-rate:${server.origin}`, "fetchline-rate:k"]);
  } finally {
    await connection.close();
  }
});

/**
 * 20 calls from this process and 20 from a child (`skew`: its Date an hour
 * behind) through one Redis bucket of 10 that refills every 20 ms: the
 * server gets no run faster than the bucket allows, from both together.
 */
async function twoProcesses(skew: boolean) {
  await using redis = await startRedis();
  await using server = recordingServer();
  const connection = await createClient({ url: redis.url }).connect();
  const key = `shared-${crypto.randomUUID()}`;
  const child = new Deno.Command("sh", {
    args: [
      "-c",
      'exec "$0" run --quiet --no-prompt "$@"',
      Deno.execPath(),
      "--allow-net=127.0.0.1",
      "--allow-read",
      "--allow-env",
      new URL("./traffic_rate_child.ts", import.meta.url).pathname,
      redis.url,
      server.origin,
      key,
      "20",
      ...(skew ? ["skew"] : []),
    ],
    stdin: "piped",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const lines = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  try {
    const ready = await lines.read();
    assert.equal(ready.value?.trim(), "ready", "the child is ready");
    await using client = clientWith(
      rateLimit({
        requests: 10,
        perSeconds: 0.2,
        scope: "client",
        key,
        store: new RedisTrafficStore(connection),
      }),
      (builder) => builder.withTimeout(5).withRetry({ maxRetries: 0 }),
    );
    const writer = child.stdin.getWriter();
    await writer.write(new TextEncoder().encode("go\n"));
    await writer.close();
    const started = performance.now();
    const ours = await Promise.all(Array.from({ length: 20 }, () => client.get(server.origin)));
    let out = "";
    for (let read = await lines.read(); !read.done; read = await lines.read()) out += read.value;
    const { code } = await child.status;
    const errors = await new Response(child.stderr).text();
    assert.equal(code, 0, errors);
    assert.equal(out.trim(), "20", "the child's 20 calls succeeded");
    assert.equal(ours.length, 20);
    const callers = server.arrivals.map((arrival) => arrival.caller);
    assert.equal(callers.filter((caller) => caller === "child").length, 20);
    assert.equal(callers.filter((caller) => caller === "parent").length, 20);
    // 50 ms of slack: the first calls of each process open their connections.
    assertWithinBucket(server.arrivals.map((arrival) => arrival.at), 10, 20, 50);
    const took = Math.max(...server.arrivals.map((arrival) => arrival.at)) - started;
    assert.ok(took >= 30 * 20 - 50 && took < 3000, `40 calls took ${took.toFixed(0)} ms`);
  } finally {
    await lines.cancel().catch(() => {});
    await connection.close();
  }
}

Deno.test("RedisTrafficStore: two processes sharing a bucket never pass it together", async () => {
  await twoProcesses(false);
});

Deno.test("RedisTrafficStore: a process whose clock is an hour behind shares the bucket rightly (the server's clock)", async () => {
  await twoProcesses(true);
});

Deno.test("rateLimit(): a token the store gave for a call that left the queue meanwhile goes back to the store", async () => {
  await using server = recordingServer();
  const memory = new MemoryRateLimitStore();
  const refunds: string[] = [];
  // A store that answers a take 200 ms late, as a remote one may.
  const store: RateLimitStore = {
    take: async (key, intervalMs, burst) => (await sleep(200), memory.take(key, intervalMs, burst)),
    refund: (key, intervalMs) => (refunds.push(key), memory.refund(key, intervalMs)),
  };
  const limit = rateLimit({ requests: 1, perSeconds: 60, store });
  await using client = clientWith(limit);
  const controller = new AbortController();
  const leaving = client.get(server.origin, { signal: controller.signal });
  await sleep(50);
  controller.abort();
  await assert.rejects(leaving);
  await until(() => refunds.length === 1, "the token given back");
  assert.deepEqual(refunds, [server.origin]);
  // The bucket holds its one token again: the next call goes at once, not in a minute.
  assert.equal((await client.get(server.origin, { totalTimeout: 2 })).statusCode, 200);
  assert.equal(server.arrivals.length, 1);
});
