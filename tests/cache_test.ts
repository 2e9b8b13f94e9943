// The HTTP cache (API.md "Caching") against a real server whose answers each
// test writes: what reached the server is counted, freshness is tested with
// a fake Date (the policy and the memory store read Date.now()).

import assert from "node:assert/strict";
import FakeTimers from "@sinonjs/fake-timers";
import {
  BlockedDestinationException,
  HttpClient,
  HttpClientConfigBuilder,
  type HttpResponse,
} from "../mod.ts";
import {
  type CacheEntry,
  type CacheStore,
  HttpCache,
  type HttpCacheOptions,
  MemoryCacheStore,
} from "../cache.ts";
import { recordingLogger } from "./helpers.ts";
import { makeTlsMaterial } from "./tls_material.ts";

/** A server answering with `answer`; every request it received is in `seen`. */
function server(answer: (request: Request, count: number) => Response | Promise<Response>) {
  const seen: { method: string; headers: Headers }[] = [];
  let down = false;
  const served = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen() {} },
    (request) => {
      seen.push({ method: request.method, headers: new Headers(request.headers) });
      return answer(request, seen.length);
    },
  );
  return {
    url: `http://127.0.0.1:${served.addr.port}`,
    seen,
    async [Symbol.asyncDispose]() {
      if (!down) await served.shutdown();
    },
    shutdown: () => (down = true, served.shutdown()),
  };
}

/** A client of `base` with `cache` (a new memory cache when none is given). */
function cachedClient(base: string, cache = new HttpCache({ store: new MemoryCacheStore() })) {
  const client = new HttpClient(
    new HttpClientConfigBuilder().withBaseUrl(base).withCache(cache).withRetry({ maxRetries: 0 })
      .build(),
  );
  return Object.assign(client, { cache });
}

function status(response: Pick<HttpResponse, "header">): string | undefined {
  return response.header("cache-status");
}

/** Installs a fake Date at a fixed time; the rest of the clocks stay real. */
function fakeDate() {
  return FakeTimers.install({ toFake: ["Date"], now: Date.UTC(2026, 0, 1) });
}

Deno.test("a fresh response (max-age) is served from the cache without reaching the server", async () => {
  await using origin = server(() =>
    new Response("fresh", { headers: { "Cache-Control": "max-age=60" } })
  );
  await using client = cachedClient(origin.url);
  const first = await client.get("/a");
  assert.equal(status(first), "fetchline; fwd=miss; stored");
  const second = await client.get("/a");
  assert.equal(second.text, "fresh");
  assert.equal(status(second), "fetchline; hit");
  assert.equal(second.header("age"), "0");
  // The Date of a hit is now's (to the second), as RFC 9110 6.6.1 says an origin's is.
  assert.ok(Math.abs(Date.parse(second.header("date")!) - Date.now()) < 2_000);
  assert.equal(origin.seen.length, 1);
  // Another URL is another entry.
  await client.get("/b");
  assert.equal(origin.seen.length, 2);
});

Deno.test("freshness: max-age and Age, Expires against Date, the Last-Modified heuristic", async () => {
  const clock = fakeDate();
  try {
    const now = Date.now();
    await using origin = server((request) => {
      const path = new URL(request.url).pathname;
      const headers: Record<string, string> = { Date: new Date(now).toUTCString() };
      if (path === "/age") Object.assign(headers, { "Cache-Control": "max-age=60", Age: "50" });
      if (path === "/expires") headers.Expires = new Date(now + 30_000).toUTCString();
      // Modified 10 days before: fresh for a tenth of that, one day.
      if (path === "/modified") {
        headers["Last-Modified"] = new Date(now - 10 * 86_400_000).toUTCString();
      }
      return new Response(path, { headers });
    });
    await using client = cachedClient(origin.url);
    for (const path of ["/age", "/expires", "/modified"]) await client.get(path);
    clock.tick(9_000);
    for (const path of ["/age", "/expires", "/modified"]) {
      assert.equal(status(await client.get(path)), "fetchline; hit", path);
    }
    assert.equal(origin.seen.length, 3);
    clock.tick(2_000); // 11 s: /age is 61 s old
    assert.equal(status(await client.get("/age")), "fetchline; fwd=miss; stored");
    assert.equal(status(await client.get("/expires")), "fetchline; hit");
    clock.tick(20_000); // 31 s: past Expires
    assert.equal(status(await client.get("/expires")), "fetchline; fwd=miss; stored");
    assert.equal(status(await client.get("/modified")), "fetchline; hit");
    clock.tick(86_400_000); // a day later
    const modified = await client.get("/modified");
    assert.equal(status(modified), "fetchline; fwd=stale; fwd-status=200; stored");
    assert.ok(origin.seen.at(-1)!.headers.has("if-modified-since"));
  } finally {
    clock.uninstall();
  }
});

Deno.test("a stale response is revalidated with If-None-Match, and a 304 updates its headers", async () => {
  const clock = fakeDate();
  try {
    await using origin = server((request, count) => {
      if (request.headers.get("if-none-match") === '"v1"') {
        return new Response(null, {
          status: 304,
          headers: { ETag: '"v1"', "Cache-Control": "max-age=10", "X-Version": `${count}` },
        });
      }
      return new Response("body one", {
        headers: { ETag: '"v1"', "Cache-Control": "max-age=10", "X-Version": "1" },
      });
    });
    await using client = cachedClient(origin.url);
    await client.get("/r");
    clock.tick(11_000);
    const revalidated = await client.get("/r");
    assert.equal(status(revalidated), "fetchline; fwd=stale; fwd-status=304");
    assert.equal(revalidated.statusCode, 200);
    assert.equal(revalidated.text, "body one");
    assert.equal(revalidated.header("x-version"), "2");
    assert.equal(origin.seen[1]!.headers.get("if-none-match"), '"v1"');
    // The 304's headers were stored: fresh again, with them.
    const hit = await client.get("/r");
    assert.equal(status(hit), "fetchline; hit");
    assert.equal(hit.header("x-version"), "2");
    assert.equal(origin.seen.length, 2);
  } finally {
    clock.uninstall();
  }
});

Deno.test("no-store is never stored; no-cache is stored and revalidated each time", async () => {
  await using origin = server((request) => {
    const path = new URL(request.url).pathname;
    if (request.headers.get("if-none-match") === '"n"') {
      return new Response(null, { status: 304, headers: { ETag: '"n"' } });
    }
    const directive = path === "/store" ? "no-store, max-age=60" : "no-cache";
    return new Response(path, { headers: { "Cache-Control": directive, ETag: '"n"' } });
  });
  await using client = cachedClient(origin.url);
  await client.get("/store");
  assert.equal(status(await client.get("/store")), "fetchline; fwd=miss");
  await client.get("/nocache");
  const again = await client.get("/nocache");
  assert.equal(status(again), "fetchline; fwd=stale; fwd-status=304");
  assert.equal(again.text, "/nocache");
  assert.equal(origin.seen.length, 4);
});

Deno.test("must-revalidate: served while fresh, revalidated once stale, never served stale on error", async () => {
  const clock = fakeDate();
  try {
    let fail = false;
    await using origin = server(() =>
      fail ? new Response("down", { status: 503 }) : new Response("mr", {
        headers: { "Cache-Control": "max-age=5, must-revalidate, stale-if-error=600" },
      })
    );
    await using client = cachedClient(origin.url);
    await client.get("/");
    assert.equal(status(await client.get("/")), "fetchline; hit");
    clock.tick(6_000);
    fail = true;
    const stale = await client.get("/");
    assert.equal(stale.statusCode, 503);
    assert.equal(origin.seen.length, 2);
  } finally {
    clock.uninstall();
  }
});

Deno.test("Vary: another value of a varied header is a miss; Vary: * never matches", async () => {
  await using origin = server((request) => {
    const star = new URL(request.url).pathname === "/star";
    return new Response(request.headers.get("accept") ?? "", {
      headers: { "Cache-Control": "max-age=60", Vary: star ? "*" : "Accept" },
    });
  });
  await using client = cachedClient(origin.url);
  await client.get("/v", { headers: { Accept: "text/plain" } });
  assert.equal(
    status(await client.get("/v", { headers: { Accept: "text/plain" } })),
    "fetchline; hit",
  );
  const other = await client.get("/v", { headers: { Accept: "application/json" } });
  assert.equal(other.text, "application/json");
  assert.equal(status(other), "fetchline; fwd=vary-miss; stored");
  await client.get("/star");
  await client.get("/star");
  assert.equal(origin.seen.length, 4);
});

Deno.test("the request's Cache-Control: no-cache, no-store, max-age, max-stale, min-fresh, only-if-cached", async () => {
  const clock = fakeDate();
  try {
    await using origin = server((request) =>
      request.headers.has("if-none-match")
        ? new Response(null, { status: 304, headers: { ETag: '"e"' } })
        : new Response("x", { headers: { "Cache-Control": "max-age=60", ETag: '"e"' } })
    );
    await using client = cachedClient(origin.url);
    const cc = (value: string) => ({ headers: { "Cache-Control": value } });
    const missing = await client.get("/", cc("only-if-cached"));
    assert.equal(missing.statusCode, 504);
    assert.equal(origin.seen.length, 0);
    await client.get("/");
    assert.equal(status(await client.get("/", cc("only-if-cached"))), "fetchline; hit");
    assert.equal(
      status(await client.get("/", cc("no-cache"))),
      "fetchline; fwd=request; fwd-status=304",
    );
    assert.equal(status(await client.get("/", cc("no-store"))), "fetchline; fwd=bypass");
    clock.tick(30_000);
    assert.equal(
      status(await client.get("/", cc("max-age=10"))),
      "fetchline; fwd=request; fwd-status=304",
    );
    clock.tick(20_000); // 20 s old, fresh for 40 s more
    assert.equal(
      status(await client.get("/", cc("min-fresh=50"))),
      "fetchline; fwd=request; fwd-status=304",
    );
    clock.tick(70_000); // stale by 10 s
    assert.equal(status(await client.get("/", cc("max-stale=30"))), "fetchline; hit");
    assert.equal((await client.get("/", cc("only-if-cached"))).statusCode, 504);
    assert.equal(origin.seen.length, 5);
  } finally {
    clock.uninstall();
  }
});

Deno.test("a successful unsafe method invalidates its URL and a same-origin Location, not another origin's", async () => {
  await using other = server(() =>
    new Response("o", { headers: { "Cache-Control": "max-age=60" } })
  );
  await using origin = server((request) => {
    if (request.method === "GET") {
      return new Response("g", { headers: { "Cache-Control": "max-age=60" } });
    }
    return new Response("done", {
      status: 201,
      headers: { Location: "/created", "Content-Location": `${other.url}/elsewhere` },
    });
  });
  const cache = new HttpCache({ store: new MemoryCacheStore() });
  await using client = cachedClient(origin.url, cache);
  for (const url of ["/items", "/created", `${other.url}/elsewhere`]) await client.get(url);
  const posted = await client.post("/items", { jsonData: { name: "a" } });
  assert.equal(status(posted), "fetchline; fwd=bypass");
  await cache.whenIdle();
  assert.equal(status(await client.get("/items")), "fetchline; fwd=miss; stored");
  assert.equal(status(await client.get("/created")), "fetchline; fwd=miss; stored");
  assert.equal(status(await client.get(`${other.url}/elsewhere`)), "fetchline; hit");
});

Deno.test("stale-while-revalidate: the stale response at once, one revalidation in the background", async () => {
  const clock = fakeDate();
  try {
    await using origin = server((_, count) =>
      new Response(`v${count}`, {
        headers: { "Cache-Control": "max-age=1, stale-while-revalidate=60" },
      })
    );
    await using client = cachedClient(origin.url);
    await client.get("/");
    clock.tick(2_000);
    const [one, two] = await Promise.all([client.get("/"), client.get("/")]);
    assert.equal(one.text, "v1");
    assert.equal(two.text, "v1");
    assert.equal(status(one), "fetchline; hit; detail=stale-while-revalidate");
    await client.cache.whenIdle();
    assert.equal(origin.seen.length, 2);
    const updated = await client.get("/");
    assert.equal(updated.text, "v2");
    assert.equal(status(updated), "fetchline; hit");
  } finally {
    clock.uninstall();
  }
});

Deno.test("stale-while-revalidate: close() ends a background revalidation", async () => {
  const clock = fakeDate();
  try {
    let release: (() => void) | undefined;
    await using origin = server(async (_, count) => {
      if (count > 1) await new Promise<void>((resolve) => release = resolve);
      return new Response(`v${count}`, {
        headers: { "Cache-Control": "max-age=1, stale-while-revalidate=60" },
      });
    });
    const errors: unknown[] = [];
    const cache = new HttpCache({ store: new MemoryCacheStore(), onError: (e) => errors.push(e) });
    const client = cachedClient(origin.url, cache);
    await client.get("/");
    clock.tick(2_000);
    assert.equal((await client.get("/")).text, "v1");
    for (let i = 0; i < 200 && release === undefined; i++) {
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    client.close();
    await cache.whenIdle();
    assert.equal(errors.length, 1);
    assert.match(String(errors[0]), /closed/i);
    release?.();
  } finally {
    clock.uninstall();
  }
});

Deno.test("stale-if-error: a 5xx or a failed exchange within the window serves the stale response", async () => {
  const clock = fakeDate();
  try {
    let mode = "ok";
    await using origin = server(() => {
      if (mode === "5xx") return new Response("down", { status: 502 });
      return new Response("kept", {
        headers: { "Cache-Control": "max-age=1, stale-if-error=60" },
      });
    });
    const errors: unknown[] = [];
    const cache = new HttpCache({ store: new MemoryCacheStore(), onError: (e) => errors.push(e) });
    await using client = cachedClient(origin.url, cache);
    await client.get("/");
    clock.tick(2_000);
    mode = "5xx";
    const served = await client.get("/");
    assert.equal(served.text, "kept");
    assert.equal(status(served), "fetchline; fwd=stale; fwd-status=502; detail=stale-if-error");
    clock.tick(120_000); // past the window: the 502 passes
    assert.equal((await client.get("/")).statusCode, 502);
    assert.equal(errors.length, 0);
  } finally {
    clock.uninstall();
  }
});

Deno.test("stale-if-error after a connection failure", async () => {
  const clock = fakeDate();
  try {
    const origin = server(() =>
      new Response("kept", { headers: { "Cache-Control": "max-age=1, stale-if-error=60" } })
    );
    const errors: unknown[] = [];
    const cache = new HttpCache({ store: new MemoryCacheStore(), onError: (e) => errors.push(e) });
    await using client = cachedClient(origin.url, cache);
    await client.get("/x");
    await origin.shutdown(); // nothing listens there now: the connection is refused
    clock.tick(2_000);
    const served = await client.get("/x");
    assert.equal(served.text, "kept");
    assert.equal(status(served), "fetchline; fwd=stale; detail=stale-if-error");
    assert.equal(errors.length, 1);
  } finally {
    clock.uninstall();
  }
});

Deno.test("identity: two credentials never share an entry, and no credential reaches the store", async () => {
  await using origin = server((request) =>
    new Response(`for ${request.headers.get("authorization")}`, {
      headers: { "Cache-Control": "private, max-age=60", "Set-Cookie": "session=s3cr3t-cookie" },
    })
  );
  const written: [string, CacheEntry][] = [];
  const inner = new MemoryCacheStore();
  const store: CacheStore = {
    get: (key) => inner.get(key),
    set: (key, entry, ttl) => (written.push([key, entry]), inner.set(key, entry, ttl)),
    delete: (key) => inner.delete(key),
  };
  await using client = cachedClient(origin.url, new HttpCache({ store }));
  const alice = { headers: { Authorization: "Bearer alice-t0ken" } };
  const bob = { headers: { Authorization: "Bearer bob-t0ken" } };
  assert.equal((await client.get("/me?api_key=k3y-secret", alice)).text, "for Bearer alice-t0ken");
  assert.equal((await client.get("/me?api_key=k3y-secret", bob)).text, "for Bearer bob-t0ken");
  assert.equal((await client.get("/me?api_key=k3y-secret")).text, "for null");
  const hit = await client.get("/me?api_key=k3y-secret", alice);
  assert.equal(hit.text, "for Bearer alice-t0ken");
  assert.equal(status(hit), "fetchline; hit");
  assert.equal(hit.header("set-cookie"), undefined);
  assert.equal(origin.seen.length, 3);
  assert.equal(written.length, 3);
  const text = JSON.stringify(written.map(([key, entry]) => [key, entry.meta]));
  for (const secret of ["alice-t0ken", "bob-t0ken", "k3y-secret", "s3cr3t-cookie"]) {
    assert.ok(!text.includes(secret), secret);
  }
});

Deno.test("streamed calls: a hit is served as a stream; a miss is stored once read to its end", async () => {
  await using origin = server(() =>
    new Response("streamed body", { headers: { "Cache-Control": "max-age=60" } })
  );
  await using client = cachedClient(origin.url);
  const miss = await client.stream("GET", "/s");
  assert.equal(miss.isStreamed, true);
  assert.equal(status(miss), "fetchline; fwd=miss; stored");
  assert.equal(await new Response(miss.body).text(), "streamed body");
  await client.cache.whenIdle();
  const hit = await client.stream("GET", "/s");
  assert.equal(hit.isStreamed, true);
  assert.equal(status(hit), "fetchline; hit");
  assert.equal((await hit.read()).text, "streamed body");
  assert.equal(origin.seen.length, 1);
  // A streamed miss cancelled before its end is not stored.
  const cancelled = await client.stream("GET", "/t");
  await cancelled.cancel();
  assert.equal(status(await client.get("/t")), "fetchline; fwd=miss; stored");
});

Deno.test("a streamed miss larger than maxEntryBytes passes unstored and unbuffered (1 GiB)", async () => {
  const chunk = new Uint8Array(1 << 20);
  await using origin = server(() => {
    let sent = 0;
    const body = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (sent++ === 1024) controller.close();
        else controller.enqueue(chunk);
      },
    });
    return new Response(body, { headers: { "Cache-Control": "max-age=60" } });
  });
  const store = new MemoryCacheStore({ maxBytes: 2 ** 31 });
  await using client = cachedClient(
    origin.url,
    new HttpCache({ store, maxEntryBytes: 4 * 2 ** 20 }),
  );
  const response = await client.stream("GET", "/big");
  let read = 0;
  const before = Deno.memoryUsage().rss;
  for await (const part of response.body) read += part.byteLength;
  const growth = Deno.memoryUsage().rss - before;
  assert.equal(read, 2 ** 30);
  await client.cache.whenIdle();
  assert.equal(store.size, 0);
  assert.ok(growth < 256 * 2 ** 20, `rss grew by ${growth} bytes`);
});

/** A store whose every method does what `behave` says. */
function brokenStore(behave: "throw" | "hang" | "garbage"): CacheStore {
  const answer = () => {
    if (behave === "throw") throw new Error("store down");
    if (behave === "hang") return new Promise<never>(() => {});
    return Promise.resolve({ meta: { v: 1, policy: "nonsense" }, body: "not bytes" } as never);
  };
  return { get: answer, set: answer as never, delete: answer as never };
}

for (const behave of ["throw", "hang", "garbage"] as const) {
  Deno.test(`a store that ${behave}s never fails or hangs a call; onError is told`, async () => {
    await using origin = server(() =>
      new Response("ok", { headers: { "Cache-Control": "max-age=60" } })
    );
    const errors: unknown[] = [];
    const options: HttpCacheOptions = {
      store: brokenStore(behave),
      storeTimeout: 0.1,
      onError: (error) => errors.push(error),
    };
    await using client = cachedClient(origin.url, new HttpCache(options));
    const started = performance.now();
    for (let i = 0; i < 2; i++) assert.equal((await client.get("/")).text, "ok");
    await client.cache.whenIdle();
    assert.ok(performance.now() - started < 2_000);
    assert.equal(origin.seen.length, 2);
    assert.ok(errors.length >= 2, `${errors.length} errors told`);
  });
}

Deno.test("a hanging store is bounded by the call's timeout too", async () => {
  await using origin = server(() =>
    new Response("ok", { headers: { "Cache-Control": "max-age=60" } })
  );
  const cache = new HttpCache({ store: brokenStore("hang"), storeTimeout: 30, onError() {} });
  await using client = new HttpClient(
    new HttpClientConfigBuilder().withBaseUrl(origin.url).withTimeout(0.4).withCache(cache).build(),
  );
  assert.equal((await client.get("/")).text, "ok");
  await cache.whenIdle();
});

Deno.test("bad input: a TypeError naming the field", () => {
  assert.throws(
    () => new HttpCache({ store: {} as never }),
    /Invalid store: expected a CacheStore/,
  );
  assert.throws(
    () => new HttpCache({ store: new MemoryCacheStore(), maxEntryBytes: 0 }),
    /Invalid maxEntryBytes: expected a positive number, got 0/,
  );
  assert.throws(
    () => new HttpCache({ store: new MemoryCacheStore(), storeTimeout: -1 }),
    /Invalid storeTimeout/,
  );
  assert.throws(() => new MemoryCacheStore({ maxBytes: -5 }), /Invalid maxBytes/);
  assert.throws(() => new MemoryCacheStore({ maxEntries: 1.5 }), /Invalid maxEntries/);
  assert.throws(() => new MemoryCacheStore({ maxByte: 1 } as never), /maxByte/);
  assert.throws(() => new HttpClientConfigBuilder().withCache({} as never), /Invalid cache/);
});

Deno.test("MemoryCacheStore: least recently used out first, within bytes and entries", () => {
  const store = new MemoryCacheStore({ maxEntries: 2, maxBytes: 10_000 });
  const entry = (size: number) => ({ meta: {}, body: new Uint8Array(size) });
  store.set("a", entry(1), 60_000);
  store.set("b", entry(1), 60_000);
  store.get("a");
  store.set("c", entry(1), 60_000);
  assert.equal(store.get("b"), undefined);
  assert.ok(store.get("a") && store.get("c"));
  store.set("d", entry(9_995), 60_000); // 9,998 bytes counted: a and c go
  assert.equal(store.size, 1);
  assert.ok(store.bytes <= 10_000);
  store.set("e", entry(20_000), 60_000);
  assert.equal(store.get("e"), undefined);
});

Deno.test("by default a store's failure is a warning to the client's logger, masked", async () => {
  await using origin = server(() => new Response("ok"));
  const store: CacheStore = {
    get() {
      throw new Error("store down at redis://cache-user:hunter2-pass@127.0.0.1:6379/0");
    },
    set() {},
    delete() {},
  };
  const { logger, lines } = recordingLogger();
  await using client = new HttpClient(
    new HttpClientConfigBuilder().withBaseUrl(origin.url).withLogging({ logger })
      .withCache(new HttpCache({ store })).build(),
  );
  assert.equal((await client.get("/")).text, "ok");
  const warnings = lines.filter(([level]) => level === "warn").map(([, line]) => line);
  assert.equal(warnings.length, 1);
  assert.match(warnings[0]!, /^fetchline cache: Error: store down at redis:/);
  assert.ok(!warnings[0]!.includes("hunter2-pass"), warnings[0]);
});

Deno.test("MemoryCacheStore gives back every byte and the metadata, packed or not", () => {
  const store = new MemoryCacheStore();
  const small = Uint8Array.from({ length: 256 }, (_, i) => i);
  const large = Uint8Array.from({ length: 5000 }, (_, i) => (i * 7) & 255);
  const meta = { v: 2, text: "naïve — ünïcode ✓ \u{1F600}", n: 12, list: [1, "|", null] };
  store.set("small", { meta, body: small }, 60_000);
  store.set("large", { meta, body: large }, 60_000);
  store.set("empty", { meta, body: new Uint8Array(0) }, 60_000);
  const text = new TextEncoder().encode('{"name":"Zoë ✓ \u{1F600}","n":1}');
  store.set("text", { meta, body: text }, 60_000);
  assert.deepEqual(store.get("text"), { meta, body: text });
  assert.deepEqual(store.get("small"), { meta, body: small });
  assert.deepEqual(store.get("large"), { meta, body: large });
  assert.deepEqual(store.get("empty"), { meta, body: new Uint8Array(0) });
  // Read twice, then replaced: the second read and the one after the change are right too.
  assert.deepEqual(store.get("small"), { meta, body: small });
  store.set("small", { meta: { v: 3 }, body: small.subarray(1) }, 60_000);
  assert.deepEqual(store.get("small"), { meta: { v: 3 }, body: small.subarray(1) });
  store.delete("small");
  assert.equal(store.get("small"), undefined);
  assert.equal(store.size, 3);
});

Deno.test("QUERY is stored keyed on its body: the same body is a hit, another a miss", async () => {
  await using origin = server(async (request) =>
    new Response(`${request.method} ${await request.text()}`, {
      headers: { "Cache-Control": "max-age=60" },
    })
  );
  await using client = cachedClient(origin.url);
  const first = await client.query("/search", { jsonData: { q: "a" } });
  assert.equal(first.text, 'QUERY {"q": "a"}');
  assert.equal(status(first), "fetchline; fwd=miss; stored");
  const again = await client.query("/search", { jsonData: { q: "a" } });
  assert.equal(again.text, 'QUERY {"q": "a"}');
  assert.equal(status(again), "fetchline; hit");
  assert.equal((await client.query("/search", { jsonData: { q: "b" } })).text, 'QUERY {"q": "b"}');
  // A GET of the URL is not the QUERY's answer.
  assert.equal((await client.get("/search")).text, "GET ");
  assert.equal(origin.seen.length, 3);
});

Deno.test("a 304 whose validator matches nothing stored is not taken for the stored response", async () => {
  const clock = fakeDate();
  try {
    await using origin = server((request, count) => {
      if (request.headers.has("if-none-match")) {
        return new Response(null, { status: 304, headers: { ETag: '"other"' } });
      }
      return new Response(`body ${count}`, {
        headers: { ETag: '"v1"', "Cache-Control": "max-age=1" },
      });
    });
    await using client = cachedClient(origin.url);
    await client.get("/");
    clock.tick(2_000);
    const response = await client.get("/");
    assert.equal(response.statusCode, 200);
    assert.equal(response.text, "body 3");
    assert.equal(origin.seen.length, 3);
    assert.equal(origin.seen[2]!.headers.has("if-none-match"), false);
  } finally {
    clock.uninstall();
  }
});

Deno.test("a response stale on arrival by its Age is fresh again after a 304 without Age", async () => {
  await using origin = server((request) =>
    request.headers.has("if-none-match")
      ? new Response(null, { status: 304, headers: { ETag: '"a"', "Cache-Control": "max-age=60" } })
      : new Response("aged", {
        headers: { ETag: '"a"', "Cache-Control": "max-age=60", Age: "61" },
      })
  );
  await using client = cachedClient(origin.url);
  await client.get("/");
  assert.equal(status(await client.get("/")), "fetchline; fwd=stale; fwd-status=304");
  const hit = await client.get("/");
  assert.equal(status(hit), "fetchline; hit");
  assert.equal(hit.text, "aged");
  assert.equal(origin.seen.length, 2);
});

Deno.test("a streamed miss whose Content-Length passes maxEntryBytes does not say stored", async () => {
  await using origin = server(() =>
    new Response("x".repeat(2_000), { headers: { "Cache-Control": "max-age=60" } })
  );
  const cache = new HttpCache({ store: new MemoryCacheStore(), maxEntryBytes: 1_000 });
  await using client = cachedClient(origin.url, cache);
  const response = await client.stream("GET", "/");
  assert.equal(status(response), "fetchline; fwd=miss");
  assert.equal((await response.read()).text.length, 2_000);
  assert.equal(status(await client.get("/")), "fetchline; fwd=miss");
});

Deno.test("a successful unsafe method has invalidated before its call returns, with a store that takes its time", async () => {
  let version = 0;
  await using origin = server((request) => {
    if (request.method === "POST") return (version++, new Response("done"));
    return new Response(`v${version}`, { headers: { "Cache-Control": "max-age=60" } });
  });
  const memory = new MemoryCacheStore();
  const store: CacheStore = {
    get: (key) => Promise.resolve(memory.get(key)),
    set: (key, entry, ttl) => Promise.resolve(memory.set(key, entry, ttl)),
    delete: (key) => new Promise((resolve) => setTimeout(() => resolve(memory.delete(key)), 20)),
  };
  await using client = cachedClient(origin.url, new HttpCache({ store }));
  await client.get("/r");
  await client.cache.whenIdle();
  await client.post("/r", { body: "x" });
  const after = await client.get("/r");
  assert.equal(after.text, "v1");
  assert.equal(status(after), "fetchline; fwd=miss; stored");
  await client.cache.whenIdle();
});

Deno.test("a caller writing into its body's bytes changes no other caller's", async () => {
  for (const text of ["hello", "x".repeat(4096)]) {
    await using origin = server(() =>
      new Response(text, { headers: { "Cache-Control": "max-age=60" } })
    );
    await using client = cachedClient(origin.url);
    (await client.get("/")).content[0] = 0x4a;
    (await client.get("/")).content[0] = 0x4a;
    const streamed = await client.get("/", { stream: true });
    (await streamed.read()).content[0] = 0x4a;
    const hit = await client.get("/");
    assert.equal(hit.text, text);
    assert.equal(status(hit), "fetchline; hit");
    assert.equal(origin.seen.length, 1);
  }
});

Deno.test("a store answering metadata of the wrong types is a miss, told, never a failed call", async () => {
  await using origin = server(() =>
    new Response("ok", { headers: { "Cache-Control": "max-age=60" } })
  );
  const metas = [
    { resh: { vary: 1 }, rescc: {} },
    { resh: { "x-a": { o: 1 } }, rescc: {} },
    { resh: {}, rescc: { "max-age": 60 } },
    { resh: { vary: "accept" }, rescc: {}, reqh: { accept: [] } },
    { resh: {}, rescc: {}, st: 0 },
  ];
  for (const meta of metas) {
    const entry = { meta: { v: 2, t: Date.now(), st: 200, ...meta }, body: new Uint8Array(1) };
    const errors: unknown[] = [];
    const store: CacheStore = { get: () => entry as never, set() {}, delete() {} };
    await using client = cachedClient(
      origin.url,
      new HttpCache({ store, onError: (error) => errors.push(error) }),
    );
    const response = await client.get("/");
    assert.equal(response.text, "ok", JSON.stringify(meta));
    assert.equal(status(response), "fetchline; fwd=miss; stored");
    assert.equal(errors.length, 1);
  }
});

Deno.test("an onError that throws leaves no unhandled rejection: the default warning tells the failure", async () => {
  await using origin = server(() =>
    new Response("ok", { headers: { "Cache-Control": "max-age=60" } })
  );
  const store: CacheStore = {
    get: () => undefined,
    set: () => Promise.reject(new Error("store down")),
    delete() {},
  };
  const { logger, lines } = recordingLogger();
  const cache = new HttpCache({
    store,
    onError() {
      throw new Error("onError failed");
    },
  });
  await using client = new HttpClient(
    new HttpClientConfigBuilder().withBaseUrl(origin.url).withLogging({ logger }).withCache(cache)
      .build(),
  );
  assert.equal((await client.get("/")).text, "ok");
  await cache.whenIdle();
  const warnings = lines.filter(([level]) => level === "warn").map(([, line]) => line);
  assert.deepEqual(warnings, ["fetchline cache: Error: store down"]);
});

Deno.test("Vary: of the request's headers, only those the Vary names reach the store", async () => {
  await using origin = server(() =>
    new Response("ok", { headers: { "Cache-Control": "max-age=60", Vary: "Accept" } })
  );
  const written: CacheEntry[] = [];
  const memory = new MemoryCacheStore();
  const store: CacheStore = {
    get: (key) => memory.get(key),
    set: (key, entry, ttl) => (written.push(entry), memory.set(key, entry, ttl)),
    delete: (key) => memory.delete(key),
  };
  await using client = cachedClient(origin.url, new HttpCache({ store }));
  const headers = { Accept: "text/plain", Signature: "sig1=:c2VjcmV0LXNpZ25hdHVyZQ==:" };
  await client.get("/", { headers });
  assert.equal(status(await client.get("/", { headers })), "fetchline; hit");
  assert.equal(written.length, 1);
  assert.deepEqual(written[0]!.meta.reqh, { accept: "text/plain" });
});

Deno.test("QUERY: the same body of another Content-Type is another entry", async () => {
  await using origin = server((request) =>
    new Response(request.headers.get("content-type"), {
      headers: { "Cache-Control": "max-age=60" },
    })
  );
  await using client = cachedClient(origin.url);
  const sql = await client.query("/s", {
    body: "select 1",
    headers: { "Content-Type": "application/sql" },
  });
  const text = await client.query("/s", {
    body: "select 1",
    headers: { "Content-Type": "text/plain" },
  });
  assert.equal(sql.text, "application/sql");
  assert.equal(text.text, "text/plain");
  assert.equal(origin.seen.length, 2);
});

Deno.test("stale-if-error: past its window, a response kept for its validator lets the 5xx pass", async () => {
  const clock = fakeDate();
  try {
    let mode = "ok";
    await using origin = server(() => {
      if (mode === "5xx") return new Response("down", { status: 502 });
      return new Response("kept", {
        headers: { "Cache-Control": "max-age=1, stale-if-error=60", ETag: '"v1"' },
      });
    });
    await using client = cachedClient(origin.url);
    await client.get("/");
    mode = "5xx";
    clock.tick(30_000); // within the window
    assert.equal((await client.get("/")).text, "kept");
    clock.tick(120_000); // past it, the entry still kept (its ETag): the 502 passes
    const passed = await client.get("/");
    assert.equal(passed.statusCode, 502);
    assert.equal(status(passed), "fetchline; fwd=stale; fwd-status=502");
  } finally {
    clock.uninstall();
  }
});

Deno.test("identity: a client certificate is a credential: a client without it is not served what one with it fetched", async () => {
  const tls = await makeTlsMaterial();
  let count = 0;
  await using origin = Deno.serve(
    {
      hostname: "127.0.0.1",
      port: 0,
      cert: tls.serverCert,
      key: tls.serverKey,
      onListen() {},
    },
    () =>
      new Response(`answer ${++count}`, { headers: { "Cache-Control": "private, max-age=60" } }),
  );
  const url = `https://127.0.0.1:${origin.addr.port}/me`;
  const cache = new HttpCache({ store: new MemoryCacheStore() });
  const client = (tlsOptions: Parameters<HttpClientConfigBuilder["withTls"]>[0]) =>
    new HttpClient(new HttpClientConfigBuilder().withTls(tlsOptions).withCache(cache).build());
  await using withCertificate = client({
    caCerts: [tls.caCert],
    cert: tls.clientCert,
    key: tls.clientKey,
  });
  await using without = client({ caCerts: [tls.caCert] });
  assert.equal((await withCertificate.get(url)).text, "answer 1");
  assert.equal((await withCertificate.get(url)).header("cache-status"), "fetchline; hit");
  assert.equal((await without.get(url)).text, "answer 2");
});

Deno.test("a stored body past the caller's maxResponseBytes is not served: the exchange refuses it", async () => {
  await using origin = server(() =>
    new Response("x".repeat(5_000), { headers: { "Cache-Control": "max-age=60" } })
  );
  const cache = new HttpCache({ store: new MemoryCacheStore() });
  await using large = cachedClient(origin.url, cache);
  await large.get("/");
  await using small = new HttpClient(
    new HttpClientConfigBuilder().withBaseUrl(origin.url).withMaxResponseBytes(1_000)
      .withRetry({ maxRetries: 0 }).withCache(cache).build(),
  );
  await assert.rejects(small.get("/"), /exceeds maxResponseBytes/);
  assert.equal(origin.seen.length, 2);
});

Deno.test("without stale-if-error, a failed revalidation of a fresh response (request no-cache) is not answered from the cache", async () => {
  let fail = false;
  await using origin = server(() =>
    fail
      ? new Response("down", { status: 503 })
      : new Response("fresh", { headers: { "Cache-Control": "max-age=60", ETag: '"f"' } })
  );
  await using client = cachedClient(origin.url);
  await client.get("/");
  fail = true;
  const response = await client.get("/", { headers: { "Cache-Control": "no-cache" } });
  assert.equal(response.statusCode, 503);
});

Deno.test("await using waits for a streamed body the cache wrapped, as for any streamed call", async () => {
  await using origin = server(() =>
    new Response("streamed", { headers: { "Cache-Control": "max-age=60" } })
  );
  const client = cachedClient(origin.url);
  const response = await client.stream("GET", "/");
  let disposed = false;
  const disposing = client[Symbol.asyncDispose]().then(() => disposed = true);
  await new Promise((resolve) => setTimeout(resolve, 50));
  assert.equal(disposed, false);
  assert.equal((await response.read()).text, "streamed");
  await disposing;
  assert.equal(disposed, true);
});

Deno.test("a shared cache never serves a client what its network policy refuses, whoever stored it", async () => {
  await using origin = server(() =>
    new Response("the users", { headers: { "Cache-Control": "max-age=600" } })
  );
  const port = new URL(origin.url).port;
  const cache = new HttpCache({ store: new MemoryCacheStore() });
  const guarded = (
    base: string,
    policy: Parameters<HttpClientConfigBuilder["withNetworkPolicy"]>[0],
  ) =>
    new HttpClient(
      new HttpClientConfigBuilder().withBaseUrl(base).withCache(cache).withNetworkPolicy(policy)
        .withRetry({ maxRetries: 0 }).build(),
    );
  await using open = cachedClient(origin.url, cache);
  assert.equal((await open.get("/admin/users")).text, "the users");
  await cache.whenIdle();
  // The default policy refuses a loopback address: no hit, no server call.
  await using refused = guarded(origin.url, {});
  await assert.rejects(refused.get("/admin/users"), BlockedDestinationException);
  await using allowed = guarded(origin.url, { allow: ["127.0.0.1"] });
  assert.equal((await allowed.get("/admin/users")).header("cache-status"), "fetchline; hit");
  // A host name: stored by a client whose policy resolves it to the loopback and allows it...
  const named = `http://fetchline-test.invalid:${port}`;
  const lookups: string[] = [];
  const resolve = (host: string) => (lookups.push(host), Promise.resolve(["127.0.0.1"]));
  await using storing = guarded(named, { allow: ["127.0.0.0/8"], resolve });
  assert.equal((await storing.get("/admin/users")).text, "the users");
  await cache.whenIdle();
  // ...is looked up by another client's policy, which refuses its answer.
  lookups.length = 0;
  await using resolving = guarded(named, { resolve });
  await assert.rejects(resolving.get("/admin/users"), BlockedDestinationException);
  assert.deepEqual(lookups, ["fetchline-test.invalid"]);
  // A name the allow list names passes without a lookup, as on the network.
  lookups.length = 0;
  await using trusted = guarded(named, { allow: ["fetchline-test.invalid"], resolve });
  assert.equal((await trusted.get("/admin/users")).header("cache-status"), "fetchline; hit");
  assert.deepEqual(lookups, []);
  // A lookup that hangs is bounded by the call's timeout.
  await using stuck = new HttpClient(
    new HttpClientConfigBuilder().withBaseUrl(named).withCache(cache).withTimeout(0.3)
      .withNetworkPolicy({ resolve: () => new Promise(() => {}) }).withRetry({ maxRetries: 0 })
      .build(),
  );
  const started = performance.now();
  await assert.rejects(stuck.get("/admin/users"), /timed out/i);
  assert.ok(performance.now() - started < 3_000);
  assert.equal(origin.seen.length, 2, "server calls");
});

Deno.test("close() waits for the cache's pending writes, bounded by storeTimeout", async () => {
  await using origin = server(() =>
    new Response("x", { headers: { "Cache-Control": "max-age=60" } })
  );
  let written = 0;
  let release: (() => void) | undefined;
  const slow: CacheStore = {
    get: () => undefined,
    set: () => new Promise<void>((resolve) => setTimeout(() => (written++, resolve()), 100)),
    delete: () => undefined,
  };
  const client = cachedClient(origin.url, new HttpCache({ store: slow }));
  await client.get("/");
  await client.close();
  assert.equal(written, 1, "the write settled before close() resolved");
  // A store that never answers holds close() no longer than storeTimeout.
  const stuck: CacheStore = {
    get: () => undefined,
    set: () => new Promise<void>((resolve) => release = resolve),
    delete: () => undefined,
  };
  const errors: unknown[] = [];
  const cache = new HttpCache({ store: stuck, storeTimeout: 0.2, onError: (e) => errors.push(e) });
  const other = cachedClient(origin.url, cache);
  await other.get("/");
  const started = performance.now();
  await other.close();
  const waited = performance.now() - started;
  assert.ok(waited >= 150 && waited < 1_500, `waited ${waited} ms`);
  await cache.whenIdle();
  assert.match(String(errors[0]), /cache store/i);
  release?.();
});
