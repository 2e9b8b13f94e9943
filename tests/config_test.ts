import assert from "node:assert/strict";
import { HttpClientConfigBuilder } from "../config.ts";

Deno.test("HttpClientConfigBuilder.build() returns a frozen config with the defaults", () => {
  const config = new HttpClientConfigBuilder().build();
  assert.ok(Object.isFrozen(config));
  assert.ok(Object.isFrozen(config.headers));
  assert.equal(config.timeout, 30);
  assert.equal(config.maxRedirects, 20);
  assert.equal(config.baseUrl, undefined);
  assert.deepEqual(config.headers, {});
});

Deno.test("HttpClientConfigBuilder's calls are fluent and each sets its field", () => {
  const fetchLike = () => Promise.resolve(new Response());
  const builder = new HttpClientConfigBuilder();
  assert.equal(builder.withTimeout(2.5), builder);
  const config = builder
    .withBaseUrl(new URL("http://127.0.0.1:1/api"))
    .withHeaders({ "X-A": "1" })
    .withHeaders({ "x-a": "2", "X-B": "3" })
    .withMaxRedirects(0)
    .withPool({ poolMaxIdlePerHost: 4 })
    .withFetch(fetchLike)
    .build();
  assert.equal(config.baseUrl, "http://127.0.0.1:1/api");
  assert.equal(config.timeout, 2.5);
  assert.deepEqual(config.headers, { "x-a": "2", "X-B": "3" });
  assert.equal(config.maxRedirects, 0);
  assert.deepEqual(config.pool, { poolMaxIdlePerHost: 4 });
  assert.equal(config.fetch, fetchLike);
});

Deno.test("HttpClientConfigBuilder builds independent configs", () => {
  const builder = new HttpClientConfigBuilder().withTimeout(1);
  const first = builder.build();
  const second = builder.withTimeout(2).build();
  assert.equal(first.timeout, 1);
  assert.equal(second.timeout, 2);
});

Deno.test("HttpClientConfigBuilder refuses bad input naming the field", () => {
  const builder = new HttpClientConfigBuilder();
  const cases: [() => unknown, ErrorConstructor, RegExp][] = [
    [() => builder.withTimeout(-1), TypeError, /timeout/],
    [() => builder.withTimeout(Infinity), TypeError, /timeout/],
    [() => builder.withBaseUrl("not a url"), TypeError, /baseUrl/],
    [() => builder.withBaseUrl("ftp://127.0.0.1/"), TypeError, /baseUrl.*http/],
    [
      () => builder.withBaseUrl("http://u:hunter2@127.0.0.1:x"),
      TypeError,
      /^(?!.*hunter2).*baseUrl/,
    ],
    [() => builder.withHeaders({ "X-A": "a\nb" }), TypeError, /"X-A"/],
    [() => builder.withMaxRedirects(-1), RangeError, /maxRedirects/],
    [() => builder.withMaxRedirects(1.5), RangeError, /maxRedirects/],
    [() => builder.withPool(null as never), TypeError, /pool/],
    [() => builder.withFetch("fetch" as never), TypeError, /fetch/],
  ];
  for (const [call, type, message] of cases) {
    assert.throws(call, (error: unknown) => {
      assert.equal((error as Error).constructor, type);
      assert.match((error as Error).message, message);
      return true;
    });
  }
});
