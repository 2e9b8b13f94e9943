// The HTTP cache (API.md "Caching", `@fetchline/fetchline/cache`) on each
// runtime's transport, with a MemoryCacheStore: a fresh hit that reaches no
// server, freshness from Age, Expires and Last-Modified, revalidation by
// If-None-Match and a 304 that updates the stored headers, the response's
// no-store and no-cache, Vary, the request's own Cache-Control, invalidation
// by a POST, identity (two credentials never share an entry, no secret
// reaches the store, Set-Cookie is never stored), stale-if-error after a
// 5xx and after a refused connection, a failing store that never fails a
// call, and streamed hits and misses. What each call did is read from its
// Cache-Status; what reached the server, from the fixture's record
// (routes/cache.mjs).
//
// Freshness needs no clock: the server's `Age` makes a response stale at
// once (max-age=60 with Age: 61). The rules that need a clock (expiry over
// time, stale-while-revalidate, close() ending it) are in the Deno suite
// (tests/cache_test.ts, with a fake Date); a 1 GiB streamed miss, neither
// stored nor buffered, there and in tests/node/cache.test.mjs.
//
// A browser's fetch has an HTTP cache of its own, below this one, which
// answers some of the calls this cache sends on: seen here, Chromium's and
// Firefox's gave Alice's private response to Bob's request (same URL, no
// Vary: Authorization) and answered a second miss of a failing store;
// Chromium's also a request with `Cache-Control: no-store` and a GET of the
// Location a POST had invalidated. A conditional request passes it (the
// Fetch standard turns its cache mode to no-store). So on the browsers the
// clients' fetch sets `cache: "no-store"`, and what is tested is this cache.

export default function ({ lib, fixture, runtime, assert }) {
  const run = () => crypto.randomUUID();

  /** The path of the fixture's resource for `id`, answering as `params` say. */
  function resource(id, params = {}) {
    return `/cache/resource?${new URLSearchParams({ run: id, ...params })}`;
  }

  /** What reached the server under `id`, asked with the platform's fetch (outside any cache). */
  async function calls(id) {
    const response = await fetch(`${fixture.url}/cache/calls?run=${id}`);
    return (await response.json()).calls;
  }

  /**
   * Runs `body` with a client of `baseUrl` (the fixture's) whose cache is
   * `cache` (a new one over a MemoryCacheStore unless given), with
   * `middleware` inside it, no retries; waits for the cache's background
   * writes before the client closes. In a browser its fetch bypasses the
   * browser's own HTTP cache (see above).
   */
  async function withCache(
    body,
    { cache = newCache(), timeout = 10, baseUrl = fixture.url, middleware = [] } = {},
  ) {
    const builder = new lib.HttpClientConfigBuilder().withBaseUrl(baseUrl)
      .withTimeout(timeout).withRetry({ maxRetries: 0 }).withCache(cache)
      .withMiddleware(...middleware);
    if (runtime === "chromium" || runtime === "firefox") {
      builder.withFetch((input, init) => fetch(input, { ...init, cache: "no-store" }));
    }
    const http = new lib.HttpClient(builder.build());
    try {
      return await body(http, cache);
    } finally {
      await cache.whenIdle();
      await http.close();
    }
  }

  function newCache(options = {}) {
    return new lib.HttpCache({ store: new lib.MemoryCacheStore(), ...options });
  }

  const status = (response) => response.header("cache-status");

  /** A request whose Cache-Control is `value`. */
  const asking = (value) => ({ headers: { "Cache-Control": value } });

  return {
    "a fresh response is served from the cache without reaching the server": () =>
      withCache(async (http) => {
        const id = run();
        const path = resource(id, { cc: "max-age=60" });
        const first = await http.get(path);
        assert.equal(status(first), "fetchline; fwd=miss; stored");
        const second = await http.get(path);
        assert.equal(status(second), "fetchline; hit");
        assert.equal(second.statusCode, 200);
        assert.equal(second.json().call, 1, "the stored body");
        assert.equal(second.header("x-version"), "1", "the stored headers");
        assert.ok(Number(second.header("age")) <= 1, `age ${second.header("age")}`);
        assert.equal((await calls(id)).length, 1, "server calls");
        // Another URL is another entry.
        assert.equal(status(await http.get(`${path}&other=1`)), "fetchline; fwd=miss; stored");
        assert.equal((await calls(id)).length, 2, "server calls");
      }),
    "freshness from Age, from Expires against Date and from Last-Modified": () =>
      withCache(async (http) => {
        const id = run();
        const fresh = [
          resource(id, { cc: "max-age=60", age: "50" }),
          resource(id, { "expires-in": "30" }),
          // Modified 10 days ago: fresh for a tenth of that (RFC 9111 4.2.2).
          resource(id, { "modified-ago": `${10 * 86_400}` }),
        ];
        const stale = [
          resource(id, { cc: "max-age=60", age: "61", etag: '"a"' }),
          resource(id, { "expires-in": "-5", etag: '"b"' }),
        ];
        for (const path of [...fresh, ...stale]) await http.get(path);
        for (const path of fresh) {
          assert.equal(status(await http.get(path)), "fetchline; hit", path);
        }
        for (const path of stale) {
          assert.equal(status(await http.get(path)), "fetchline; fwd=stale; fwd-status=304", path);
        }
        assert.equal((await calls(id)).length, 7, "server calls");
      }),
    "a response stale on arrival with no validator is not stored, and says so": () =>
      withCache(async (http) => {
        const id = run();
        const path = resource(id, { cc: "max-age=60", age: "61" });
        for (let i = 0; i < 2; i++) {
          const response = await http.get(path);
          assert.equal(status(response), "fetchline; fwd=miss");
          assert.equal(response.json().call, i + 1);
        }
      }),
    "a stale response is revalidated with If-None-Match, and a 304 updates its headers": () =>
      withCache(async (http) => {
        const id = run();
        // Stale at once; the 304's Age: 0 replaces the stored Age: fresh after it.
        const path = resource(id, { cc: "max-age=60", age: "61", etag: '"v1"' });
        assert.equal(status(await http.get(path)), "fetchline; fwd=miss; stored");
        const revalidated = await http.get(path);
        assert.equal(status(revalidated), "fetchline; fwd=stale; fwd-status=304");
        assert.equal(revalidated.statusCode, 200);
        assert.equal(revalidated.json().call, 1, "the stored body");
        assert.equal(revalidated.header("x-version"), "2", "the 304's header");
        const hit = await http.get(path);
        assert.equal(status(hit), "fetchline; hit");
        assert.equal(hit.header("x-version"), "2", "the 304's header, stored");
        assert.deepEqual(
          (await calls(id)).map((call) => call.ifNoneMatch),
          [null, '"v1"'],
          "the server's calls",
        );
      }),
    "no-store is never stored; no-cache is stored and revalidated each time": () =>
      withCache(async (http) => {
        const id = run();
        const noStore = resource(id, { cc: "no-store, max-age=60" });
        assert.equal(status(await http.get(noStore)), "fetchline; fwd=miss");
        assert.equal(status(await http.get(noStore)), "fetchline; fwd=miss");
        const noCache = resource(id, { cc: "no-cache", etag: '"n"' });
        assert.equal(status(await http.get(noCache)), "fetchline; fwd=miss; stored");
        for (let i = 0; i < 2; i++) {
          const again = await http.get(noCache);
          assert.equal(status(again), "fetchline; fwd=stale; fwd-status=304");
          assert.equal(again.json().call, 3, "the stored body");
        }
        assert.equal((await calls(id)).length, 5, "server calls");
      }),
    "Vary: another value of a varied header is a miss; Vary: * never matches": () =>
      withCache(async (http) => {
        const id = run();
        const path = resource(id, { cc: "max-age=60", vary: "Accept" });
        const accept = (value) => ({ headers: { Accept: value } });
        await http.get(path, accept("text/plain"));
        assert.equal(status(await http.get(path, accept("text/plain"))), "fetchline; hit");
        const other = await http.get(path, accept("application/json"));
        assert.equal(status(other), "fetchline; fwd=vary-miss; stored");
        assert.equal(other.json().accept, "application/json");
        // Vary: * is never stored: it could never be served (RFC 9111 4.1).
        const star = resource(id, { cc: "max-age=60", vary: "*" });
        assert.equal(status(await http.get(star)), "fetchline; fwd=miss");
        assert.equal(status(await http.get(star)), "fetchline; fwd=miss");
        assert.equal((await calls(id)).length, 4, "server calls");
      }),
    "the request's Cache-Control: only-if-cached, no-cache, no-store": () =>
      withCache(async (http) => {
        const id = run();
        const path = resource(id, { cc: "max-age=60", etag: '"e"' });
        const missing = await http.get(path, asking("only-if-cached"));
        assert.equal(missing.statusCode, 504);
        assert.equal(status(missing), "fetchline; detail=only-if-cached");
        assert.equal((await calls(id)).length, 0, "nothing reached the server");
        await http.get(path);
        assert.equal(status(await http.get(path, asking("only-if-cached"))), "fetchline; hit");
        assert.equal(
          status(await http.get(path, asking("no-cache"))),
          "fetchline; fwd=request; fwd-status=304",
        );
        assert.equal(status(await http.get(path, asking("no-store"))), "fetchline; fwd=bypass");
        assert.deepEqual(
          (await calls(id)).map((call) => call.ifNoneMatch),
          [null, '"e"', null],
          "the server's calls",
        );
      }),
    "the request's Cache-Control: max-age, min-fresh, max-stale": () =>
      withCache(async (http) => {
        const id = run();
        // 30 s old, fresh for 30 s more.
        const aged = resource(id, { cc: "max-age=60", age: "30", etag: '"m"' });
        await http.get(aged);
        assert.equal(status(await http.get(aged, asking("max-age=40"))), "fetchline; hit");
        assert.equal(
          status(await http.get(aged, asking("max-age=10"))),
          "fetchline; fwd=request; fwd-status=304",
        );
        const younger = resource(id, { cc: "max-age=60", age: "30", etag: '"f"' });
        await http.get(younger);
        assert.equal(status(await http.get(younger, asking("min-fresh=20"))), "fetchline; hit");
        assert.equal(
          status(await http.get(younger, asking("min-fresh=50"))),
          "fetchline; fwd=request; fwd-status=304",
        );
        // Stale by 10 s.
        const stale = resource(id, { cc: "max-age=60", age: "70", etag: '"s"' });
        await http.get(stale);
        assert.equal(status(await http.get(stale, asking("max-stale=30"))), "fetchline; hit");
        assert.equal((await http.get(stale, asking("only-if-cached"))).statusCode, 504);
        assert.equal(
          status(await http.get(stale, asking("max-stale=5"))),
          "fetchline; fwd=stale; fwd-status=304",
        );
        assert.equal((await calls(id)).length, 6, "server calls");
      }),
    "a successful POST invalidates its URL and a same-origin Location, not another origin's": () =>
      withCache(async (http, cache) => {
        const id = run();
        const cc = { cc: "max-age=60" };
        const created = resource(id, { ...cc, created: "1" });
        const elsewhere = `${fixture.otherUrl}${resource(id, cc)}`;
        const path = resource(id, { ...cc, location: created, "content-location": elsewhere });
        for (const url of [path, created, elsewhere]) await http.get(url);
        assert.equal(status(await http.get(path)), "fetchline; hit");
        const posted = await http.post(path, { jsonData: { name: "a" } });
        assert.equal(posted.statusCode, 201);
        assert.equal(status(posted), "fetchline; fwd=bypass");
        await cache.whenIdle();
        assert.equal(status(await http.get(path)), "fetchline; fwd=miss; stored");
        assert.equal(status(await http.get(created)), "fetchline; fwd=miss; stored");
        assert.equal(status(await http.get(elsewhere)), "fetchline; hit");
        assert.deepEqual(
          (await calls(id)).map((call) => call.method),
          ["GET", "GET", "GET", "POST", "GET", "GET"],
          "the server's calls",
        );
      }),
    "identity: two credentials never share an entry; no secret and no Set-Cookie is stored": () => {
      const written = [];
      const inner = new lib.MemoryCacheStore();
      const store = {
        get: (key) => inner.get(key),
        set: (key, entry, ttl) => {
          written.push([key, entry]);
          return inner.set(key, entry, ttl);
        },
        delete: (key) => inner.delete(key),
      };
      return withCache(async (http) => {
        const id = run();
        const path = resource(id, {
          cc: "private, max-age=60",
          cookie: "1",
          api_key: "k3y-s3cret",
        });
        const alice = { headers: { Authorization: "Bearer alice-t0ken" } };
        const bob = { headers: { Authorization: "Bearer bob-t0ken" } };
        assert.equal((await http.get(path, alice)).json().authorization, "Bearer alice-t0ken");
        const forBob = await http.get(path, bob);
        assert.equal(forBob.json().authorization, "Bearer bob-t0ken");
        assert.equal(status(forBob), "fetchline; fwd=miss; stored");
        assert.equal((await http.get(path)).json().authorization, null);
        const hit = await http.get(path, alice);
        assert.equal(status(hit), "fetchline; hit");
        assert.equal(hit.json().authorization, "Bearer alice-t0ken");
        assert.equal(hit.header("set-cookie"), undefined, "no Set-Cookie served from the store");
        assert.deepEqual(
          (await calls(id)).map((call) => call.authorization),
          ["Bearer alice-t0ken", "Bearer bob-t0ken", null],
          "the server's calls",
        );
        assert.equal(written.length, 3, "entries written");
        const text = JSON.stringify(written.map(([key, entry]) => [key, entry.meta]));
        for (const secret of ["alice-t0ken", "bob-t0ken", "k3y-s3cret", "s3cr3t-cookie"]) {
          assert.ok(!text.includes(secret), `${secret} reached the store`);
        }
      }, { cache: newCache({ store }) });
    },
    "stale-if-error: a 5xx within the window serves the stale response, past it the 5xx": () => {
      const errors = [];
      return withCache(async (http) => {
        const id = run();
        // Stale by 1 s, within its stale-if-error of 600; every call after the first fails.
        const within = resource(id, {
          cc: "max-age=60, stale-if-error=600",
          age: "61",
          "fail-after": "1",
          code: "502",
        });
        await http.get(within);
        const served = await http.get(within);
        assert.equal(served.statusCode, 200);
        assert.equal(served.json().call, 1, "the stored body");
        assert.equal(status(served), "fetchline; fwd=stale; fwd-status=502; detail=stale-if-error");
        // Stale by 140 s, past its window of 60: the 502 passes.
        const past = resource(id, {
          cc: "max-age=60, stale-if-error=60",
          age: "200",
          etag: '"p"',
          "fail-after": "1",
          code: "502",
        });
        await http.get(past);
        assert.equal((await http.get(past)).statusCode, 502);
        // The request's own stale-if-error opens a window the response did not give.
        const asked = resource(id, { cc: "max-age=60", age: "61", etag: '"q"', "fail-after": "1" });
        await http.get(asked);
        const kept = await http.get(asked, asking("stale-if-error=600"));
        assert.equal(kept.statusCode, 200);
        assert.match(status(kept), /detail=stale-if-error$/);
        // must-revalidate: never served stale.
        const strict = resource(id, {
          cc: "max-age=60, must-revalidate, stale-if-error=600",
          age: "61",
          "fail-after": "1",
          code: "503",
        });
        await http.get(strict);
        assert.equal((await http.get(strict)).statusCode, 503);
        assert.equal((await calls(id)).length, 8, "server calls");
        assert.deepEqual(errors, [], "a 5xx is no store error");
      }, { cache: newCache({ onError: (error) => errors.push(error) }) });
    },
    "a revalidation answered 304 with no-store removes the entry": () => {
      const inner = new lib.MemoryCacheStore();
      const written = [];
      const store = {
        get: (key) => inner.get(key),
        set: (key, entry, ttl) => (written.push([key, entry]), inner.set(key, entry, ttl)),
        delete: (key) => inner.delete(key),
      };
      return withCache(async (http, cache) => {
        const id = run();
        const path = resource(id, {
          cc: "max-age=60",
          age: "61",
          etag: '"v1"',
          cc304: "no-store",
        });
        assert.equal(status(await http.get(path)), "fetchline; fwd=miss; stored");
        const revalidated = await http.get(path);
        assert.equal(status(revalidated), "fetchline; fwd=stale; fwd-status=304");
        assert.equal(revalidated.json().call, 1, "the stored body, this once");
        await cache.whenIdle();
        assert.equal(written.length, 1, "entries written");
        assert.equal(await inner.get(written[0][0]), undefined, "the entry is removed");
        const again = await http.get(path);
        assert.equal(status(again), "fetchline; fwd=miss; stored");
        assert.equal((await calls(id)).length, 3, "server calls");
      }, { cache: newCache({ store }) });
    },
    "a revalidation answered 401 or 403 ends stale serving": () =>
      withCache(async (http, cache) => {
        const id = run();
        // Stale by 1 s, within its stale-while-revalidate; every call after the first is a 401.
        const later = resource(id, {
          cc: "max-age=60, stale-while-revalidate=600",
          age: "61",
          "fail-after": "1",
          code: "401",
        });
        assert.equal(status(await http.get(later)), "fetchline; fwd=miss; stored");
        const stale = await http.get(later);
        assert.equal(status(stale), "fetchline; hit; detail=stale-while-revalidate");
        await cache.whenIdle();
        const refused = await http.get(later);
        assert.equal(refused.statusCode, 401, "no stale answer once the credential is refused");
        // A 403 to a revalidation ends stale-if-error's window too.
        const now = resource(id, {
          cc: "max-age=60, stale-if-error=600",
          age: "61",
          "fail-after": "1",
          code: "403",
        });
        assert.equal(status(await http.get(now)), "fetchline; fwd=miss; stored");
        assert.equal((await http.get(now)).statusCode, 403);
        await cache.whenIdle();
        const kept = await http.get(now, asking("max-stale=6000, only-if-cached"));
        assert.equal(kept.statusCode, 504, "the refused entry is removed");
      }),
    "a query's bytes are its key: values that are not UTF-8 never share an entry": () =>
      withCache(async (http) => {
        const id = run();
        // Beside a credential-like parameter too (its value hidden in the key).
        const base = resource(id, { cc: "max-age=60" });
        for (const extra of ["", "&api_key=k3y-value"]) {
          const first = await http.get(`${base}${extra}&q=M%FCller`);
          assert.equal(status(first), "fetchline; fwd=miss; stored", extra);
          const other = await http.get(`${base}${extra}&q=M%E4ller`);
          assert.equal(status(other), "fetchline; fwd=miss; stored", extra);
          const hit = await http.get(`${base}${extra}&q=M%FCller`);
          assert.equal(status(hit), "fetchline; hit", extra);
          assert.equal(hit.json().call, first.json().call, extra);
        }
      }),
    "stale-if-error: a refused connection within the window serves the stale response": () => {
      const errors = [];
      let first = true;
      // Inside the cache, which keys the refused URL: the first exchange
      // reaches the fixture, every later one the port nothing listens on.
      const firstToFixture = (request, next) => {
        if (!first) return next(request);
        first = false;
        return next(request.with({ url: request.url.replace(fixture.refusedUrl, fixture.url) }));
      };
      return withCache(async (http) => {
        const id = run();
        const path = resource(id, { cc: "max-age=60, stale-if-error=600", age: "61" });
        assert.equal(status(await http.get(path)), "fetchline; fwd=miss; stored");
        const served = await http.get(path);
        assert.equal(served.statusCode, 200);
        assert.equal(served.json().call, 1, "the stored body");
        assert.equal(status(served), "fetchline; fwd=stale; detail=stale-if-error");
        assert.equal(errors.length, 1, "the connection's error told");
        assert.ok(errors[0] instanceof lib.ConnectionException, String(errors[0]));
        assert.equal((await calls(id)).length, 1, "server calls");
      }, {
        cache: newCache({ onError: (error) => errors.push(error) }),
        baseUrl: fixture.refusedUrl,
        middleware: [firstToFixture],
      });
    },
    "a store that throws, hangs or answers garbage never fails a call; onError is told":
      async () => {
        const answer = {
          throw: () => {
            throw new Error("store down");
          },
          hang: () => new Promise(() => {}),
          garbage: () => Promise.resolve({ meta: { v: 1, policy: "nonsense" }, body: "not bytes" }),
        };
        for (const [behave, method] of Object.entries(answer)) {
          const errors = [];
          const store = { get: method, set: method, delete: method };
          const cache = newCache({ store, storeTimeout: 0.1, onError: (e) => errors.push(e) });
          await withCache(async (http) => {
            const id = run();
            const path = resource(id, { cc: "max-age=60" });
            const started = Date.now();
            for (let i = 0; i < 2; i++) {
              const response = await http.get(path);
              assert.equal(response.statusCode, 200, behave);
              assert.equal(status(response), "fetchline; fwd=miss; stored", behave);
            }
            await cache.whenIdle();
            assert.ok(Date.now() - started < 5_000, `${behave}: ${Date.now() - started} ms`);
            assert.equal((await calls(id)).length, 2, `${behave}: server calls`);
            assert.ok(errors.length >= 2, `${behave}: ${errors.length} errors told`);
          }, { cache });
        }
      },
    "a hanging store is bounded by the call's timeout too": async () => {
      const hang = () => new Promise(() => {});
      const store = { get: hang, set: hang, delete: hang };
      const cache = newCache({ store, storeTimeout: 30, onError() {} });
      await withCache(
        async (http) => {
          const response = await http.get(resource(run(), { cc: "max-age=60" }));
          assert.equal(response.statusCode, 200);
        },
        { cache, timeout: 0.4 },
      );
    },
    "streamed: a miss is stored once read to its end, a hit is served as a stream": () =>
      withCache(async (http, cache) => {
        const id = run();
        const size = 100_000;
        const path = resource(id, { cc: "max-age=60", size: `${size}` });
        const expected = Uint8Array.from({ length: size }, (_, i) => i % 251);
        const miss = await http.stream("GET", path);
        assert.equal(miss.isStreamed, true);
        assert.equal(status(miss), "fetchline; fwd=miss; stored");
        assert.deepEqual(new Uint8Array(await new Response(miss.body).arrayBuffer()), expected);
        await cache.whenIdle();
        const hit = await http.stream("GET", path);
        assert.equal(hit.isStreamed, true);
        assert.equal(status(hit), "fetchline; hit");
        assert.deepEqual(new Uint8Array(await new Response(hit.body).arrayBuffer()), expected);
        const read = await http.stream("GET", path);
        assert.deepEqual((await read.read()).content, expected, "read() of a streamed hit");
        assert.equal((await calls(id)).length, 1, "server calls");
        // A streamed miss cancelled before its end is not stored.
        const cancelledPath = resource(id, { cc: "max-age=60", size: `${size}`, cancelled: "1" });
        await (await http.stream("GET", cancelledPath)).cancel();
        await cache.whenIdle();
        assert.equal(status(await http.get(cancelledPath)), "fetchline; fwd=miss; stored");
      }),
    "streamed: a miss larger than maxEntryBytes passes whole and unstored": () => {
      const store = new lib.MemoryCacheStore();
      return withCache(async (http, cache) => {
        const id = run();
        const path = resource(id, { cc: "max-age=60", size: "200000" });
        const response = await http.stream("GET", path);
        assert.equal((await new Response(response.body).arrayBuffer()).byteLength, 200_000);
        await cache.whenIdle();
        assert.equal(store.size, 0, "entries stored");
        assert.equal(status(await http.get(path)), "fetchline; fwd=miss");
        assert.equal(store.size, 0, "entries stored by a buffered call");
      }, { cache: newCache({ store, maxEntryBytes: 65_536 }) });
    },
  };
}
