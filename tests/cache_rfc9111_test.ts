// RFC 9111's rules where the cache used to differ from them (the public HTTP
// cache test suite's findings, tests/cache_conformance/): each through the
// cache on a real server, and the parsers on their own.

import assert from "node:assert/strict";
import { HttpClient, HttpClientConfigBuilder, type HttpResponse } from "../mod.ts";
import { HttpCache, MemoryCacheStore } from "../cache.ts";
import { parseAge, parseHttpDate } from "../src/cache/http_date.ts";
import { varyValue } from "../src/cache/vary.ts";

/** A server answering with `answer`; the headers of every request it received are in `seen`. */
function server(answer: (request: Request, count: number) => Response) {
  const seen: Headers[] = [];
  const served = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen() {} },
    (request) => (seen.push(new Headers(request.headers)), answer(request, seen.length)),
  );
  return {
    url: `http://127.0.0.1:${served.addr.port}`,
    seen,
    [Symbol.asyncDispose]: () => served.shutdown(),
  };
}

/** A client of `base` with a cache in memory, no retry. */
function cachedClient(base: string) {
  return new HttpClient(
    new HttpClientConfigBuilder().withBaseUrl(base).withRetry({ maxRetries: 0 })
      .withCache(new HttpCache({ store: new MemoryCacheStore() })).build(),
  );
}

const status = (response: HttpResponse) => response.header("cache-status");
const ago = (seconds: number) => new Date(Date.now() - seconds * 1000).toUTCString();

Deno.test("any final status with explicit freshness is stored (RFC 9111 3); must-understand stores only a known one", async () => {
  const answers: Record<string, [number, string]> = {
    "/500": [500, "max-age=60"],
    "/299": [299, "max-age=60"],
    "/599-understand": [599, "max-age=60, no-store, must-understand"],
    "/200-understand": [200, "max-age=60, no-store, must-understand"],
  };
  await using origin = server((request) => {
    const [code, cc] = answers[new URL(request.url).pathname]!;
    return new Response("x", { status: code, headers: { "Cache-Control": cc } });
  });
  await using client = cachedClient(origin.url);
  for (const path of Object.keys(answers)) await client.get(path);
  assert.equal(status(await client.get("/500")), "fetchline; hit");
  assert.equal(status(await client.get("/299")), "fetchline; hit");
  assert.equal(status(await client.get("/599-understand")), "fetchline; fwd=miss");
  // must-understand with a status the cache knows: no-store is ignored (RFC 9111 5.2.2.3).
  assert.equal(status(await client.get("/200-understand")), "fetchline; hit");
  assert.equal(origin.seen.length, 5);
});

Deno.test("directives in any case: No-CaChE is revalidated, MaX-AgE is fresh", async () => {
  await using origin = server((request) =>
    new Response("x", {
      headers: {
        "Cache-Control": request.url.endsWith("/no-cache")
          ? "max-age=10000, No-CaChE"
          : "MaX-AgE=3600",
      },
    })
  );
  await using client = cachedClient(origin.url);
  await client.get("/no-cache");
  await client.get("/max-age");
  // Not reused unvalidated (nor kept: it has no validator to revalidate with).
  assert.equal(status(await client.get("/no-cache")), "fetchline; fwd=miss");
  assert.equal(status(await client.get("/max-age")), "fetchline; hit");
});

Deno.test("an Expires that is not an HTTP-date is already expired (RFC 9111 5.3); the three forms are dates", async () => {
  const invalid = [
    "Thu, 18 Aug 2050 02:01:18 UTC",
    "Thu 18 Aug 2050 02:01:18 GMT",
    "Thu, 18  Aug  2050 02:01:18 GMT",
    "Thu, 18-Aug-2050 02:01:18 GMT",
    "Thu, 18 Aug 2050 2:01:18 GMT",
    "Thu, 18 Aug 50 02:01:18 GMT",
  ];
  for (const value of invalid) assert.ok(Number.isNaN(parseHttpDate(value)), value);
  const at = Date.UTC(2050, 7, 18, 2, 1, 18);
  assert.equal(parseHttpDate("Thu, 18 Aug 2050 02:01:18 GMT"), at);
  assert.equal(parseHttpDate("Thursday, 18-Aug-50 02:01:18 GMT"), at);
  assert.equal(parseHttpDate("Thu Aug 18 02:01:18 2050"), at);
  assert.equal(parseHttpDate("THU, 18 AUG 2050 02:01:18 gmt"), at);
  await using origin = server(() =>
    new Response("x", { headers: { Expires: invalid[0]!, Date: new Date().toUTCString() } })
  );
  await using client = cachedClient(origin.url);
  await client.get("/");
  assert.equal(status(await client.get("/")), "fetchline; fwd=miss");
});

Deno.test("Age: the first member of a list, only an integer; anything else is ignored (RFC 9111 5.1)", async () => {
  assert.equal(parseAge("7200.0"), 0);
  assert.equal(parseAge("-7200"), 0);
  assert.equal(parseAge("abc"), 0);
  assert.equal(parseAge("0, 7200"), 0);
  assert.equal(parseAge("7200, 0"), 7200);
  await using origin = server(() =>
    new Response("x", { headers: { "Cache-Control": "max-age=3600", Age: "7200.0" } })
  );
  await using client = cachedClient(origin.url);
  await client.get("/");
  assert.equal(status(await client.get("/")), "fetchline; hit");
});

Deno.test("a hit keeps the origin's Date; a 304 with no validator updates the one stored response, and its Date", async () => {
  const first = ago(3600);
  const renewed = ago(5);
  await using origin = server((_request, count) =>
    count === 1
      ? new Response("body", {
        headers: { "Cache-Control": "max-age=0", ETag: '"a"', Date: first },
      })
      : new Response(null, {
        status: 304,
        headers: { "Cache-Control": "max-age=600", Date: renewed },
      })
  );
  await using client = cachedClient(origin.url);
  await client.get("/");
  const revalidated = await client.get("/");
  assert.equal(status(revalidated), "fetchline; fwd=stale; fwd-status=304");
  assert.equal(revalidated.text, "body");
  assert.equal(origin.seen[1]!.get("if-none-match"), '"a"');
  // Not sent again unconditionally: the 304 answered the one stored response.
  assert.equal(origin.seen.length, 2);
  const hit = await client.get("/");
  assert.equal(status(hit), "fetchline; hit");
  assert.equal(hit.header("date"), renewed);
});

Deno.test("Vary compares normalised values: spaces, and the order and case of Accept-Language", async () => {
  assert.equal(varyValue("foo", " 1, 2 "), varyValue("foo", "1,2"));
  assert.equal(varyValue("accept-language", "eN, De"), varyValue("accept-language", "de, en"));
  assert.notEqual(varyValue("foo", "a"), varyValue("foo", "A"));
  await using origin = server(() =>
    new Response("x", { headers: { "Cache-Control": "max-age=600", Vary: "Accept-Language, Foo" } })
  );
  await using client = cachedClient(origin.url);
  await client.get("/", { headers: { "Accept-Language": "en, de", Foo: "1,2" } });
  const again = await client.get("/", {
    headers: { "Accept-Language": " De ,   en", Foo: " 1, 2 " },
  });
  assert.equal(status(again), "fetchline; hit");
  const other = await client.get("/", { headers: { "Accept-Language": "fr", Foo: "1,2" } });
  assert.equal(status(other), "fetchline; fwd=vary-miss; stored");
});

Deno.test("heuristic freshness only for a heuristically cacheable status or with public (RFC 9111 4.2.2)", async () => {
  await using origin = server((request) =>
    new Response("x", {
      status: 599,
      headers: {
        "Last-Modified": ago(86400),
        ...(request.url.endsWith("/public") ? { "Cache-Control": "public" } : {}),
      },
    })
  );
  await using client = cachedClient(origin.url);
  await client.get("/public");
  await client.get("/plain");
  assert.equal(status(await client.get("/public")), "fetchline; hit");
  assert.equal(status(await client.get("/plain")), "fetchline; fwd=miss");
});
