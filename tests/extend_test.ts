import assert from "node:assert/strict";
import { CookieJar } from "tough-cookie";
import {
  HttpClient,
  HttpClientConfigBuilder,
  HttpClientException,
  TimeoutException,
  TokenData,
  TokenManager,
} from "../mod.ts";
import type { RequestHookInterface } from "../mod.ts";
import { startFixtureServer } from "./fixture_server.ts";
import { rejectsWith, settles, throwsAtOnce } from "./helpers.ts";

/** Counts the pools Deno makes, and the closes of each, while it is in use. */
function poolSpy(): { made: number; closes: number[] } & Disposable {
  const original = Deno.createHttpClient;
  const spy = {
    made: 0,
    closes: [] as number[],
    [Symbol.dispose]: () => void (Deno.createHttpClient = original),
  };
  Deno.createHttpClient = (options) => {
    const index = spy.made++;
    spy.closes.push(0);
    const pool = original(options);
    const close = pool.close.bind(pool);
    pool.close = () => (spy.closes[index]!++, close());
    return pool;
  };
  return spy;
}

function parentClient(baseUrl: string): HttpClient {
  return new HttpClient(
    new HttpClientConfigBuilder().withBaseUrl(baseUrl).withRetry({ maxRetries: 0 }).build(),
  );
}

Deno.test("HttpClient.extend() applies the derived base URL, headers and timeouts; the parent is unchanged", async () => {
  await using server = startFixtureServer();
  await using parent = new HttpClient(
    new HttpClientConfigBuilder()
      .withBaseUrl(`${server.url}/v1/`)
      .withHeaders({ Accept: "application/json", "X-Tenant": "root" })
      .withTimeout(5)
      .withRetry({ maxRetries: 0 })
      .build(),
  );
  const parentConfig = { ...parent.config };
  const derived = parent.extend((builder) =>
    builder
      .withBaseUrl(`${server.url}/v2/`)
      .withHeaders({ "x-tenant": "a", "X-Extra": "1" })
      .withTimeout(0.2)
      .withReadTimeout(3)
      .withTotalTimeout(10)
  );
  await derived.get("items");
  assert.equal(server.last().path, "/v2/items");
  assert.equal(server.last().headers["x-tenant"], "a");
  assert.equal(server.last().headers["x-extra"], "1");
  assert.equal(server.last().headers["accept"], "application/json");
  await parent.get("items");
  assert.equal(server.last().path, "/v1/items");
  assert.equal(server.last().headers["x-tenant"], "root");
  assert.equal(server.last().headers["x-extra"], undefined);
  // The derived timeout applies to its calls, the parent's to the parent's.
  await rejectsWith(
    derived.get(`${server.url}/delay/2000`),
    TimeoutException,
    /timed out after 0\.2 s/,
  );
  assert.equal((await parent.get(`${server.url}/delay/300`)).statusCode, 200);
  assert.ok(Object.isFrozen(derived.config));
  assert.deepEqual(
    [derived.config.timeout, derived.config.readTimeout, derived.config.totalTimeout],
    [0.2, 3, 10],
  );
  assert.deepEqual({ ...parent.config }, parentConfig);
  assert.deepEqual(parent.config.headers, { Accept: "application/json", "X-Tenant": "root" });
});

Deno.test("HttpClient.extend() appends the derived hooks after the parent's, the same instances", async () => {
  await using server = startFixtureServer();
  const ran: string[] = [];
  const hook = (name: string): RequestHookInterface => ({
    beforeRequest: (request) => (ran.push(name), request),
  });
  const first = hook("parent");
  await using parent = new HttpClient(
    new HttpClientConfigBuilder().withBaseUrl(server.url).withRequestHook(first)
      .withResponseHook({ afterResponse: (response) => (ran.push("parent response"), response) })
      .build(),
  );
  const derived = parent.extend((builder) =>
    builder.withRequestHook(hook("derived"))
      .withResponseHook({ afterResponse: (response) => (ran.push("derived response"), response) })
  );
  await derived.get("/one");
  assert.deepEqual(ran, ["parent", "derived", "parent response", "derived response"]);
  ran.length = 0;
  await parent.get("/two");
  assert.deepEqual(ran, ["parent", "parent response"]);
  assert.equal(derived.config.requestHooks[0], first);
  assert.equal(parent.config.requestHooks.length, 1);
});

Deno.test("HttpClient.extend() shares the parent's pool unless the derived client changes its pool settings", async () => {
  await using server = startFixtureServer();
  using pools = poolSpy();
  await using parent = parentClient(server.url);
  const same = parent.extend((builder) => builder.withHeaders({ "X-Tenant": "a" }));
  await same.get("/derived-first");
  await parent.get("/parent");
  await same.get("/derived-again");
  assert.equal(pools.made, 1);
  assert.equal(new Set(server.requests.map((r) => r.remotePort)).size, 1, "one connection");
  const own = parent.extend((builder) => builder.withPool({ poolMaxIdlePerHost: 2 }));
  await own.get("/own");
  assert.equal(pools.made, 2);
  assert.notEqual(server.last().remotePort, server.requests[0]!.remotePort);
});

Deno.test("closing a derived client that shares the pool leaves the parent's pool open", async () => {
  await using server = startFixtureServer();
  using pools = poolSpy();
  await using parent = parentClient(server.url);
  const derived = parent.extend((builder) => builder.withHeaders({ "X-Tenant": "a" }));
  await derived.get("/derived");
  derived.close();
  assert.ok(derived.closed);
  assert.ok(!parent.closed);
  await rejectsWith(derived.get("/after"), HttpClientException, /^Client is closed: GET \/after$/);
  await parent.get("/parent");
  assert.deepEqual(pools.closes, [0]);
  assert.equal(server.requests.length, 2);
  assert.equal(server.last().remotePort, server.requests[0]!.remotePort, "the same connection");
  parent.close();
  assert.deepEqual(pools.closes, [1]);
});

Deno.test("closing the parent closes its derived clients: calls in flight fail, later ones too, own pools released", async () => {
  await using server = startFixtureServer();
  using pools = poolSpy();
  const parent = parentClient(server.url);
  const shared = parent.extend((builder) => builder.withHeaders({ "X-Tenant": "a" }));
  const own = parent.extend((builder) => builder.withPool({ poolMaxIdlePerHost: 2 }));
  const grandchild = shared.extend((builder) => builder.withPool({ poolMaxIdlePerHost: 3 }));
  const pending = [shared, own, grandchild].map((client) => client.get("/delay/3000"));
  for (let i = 0; i < 1000 && server.requests.length < 3; i++) {
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  assert.equal(server.requests.length, 3, "the three calls reached the server");
  assert.equal(pools.made, 3);
  parent.close();
  for (const call of pending) {
    await rejectsWith(settles(call), HttpClientException, /Client was closed during the request/);
  }
  for (const client of [shared, own, grandchild]) {
    assert.ok(client.closed);
    await rejectsWith(client.get("/later"), HttpClientException, /^Client is closed: GET \/later$/);
  }
  assert.deepEqual(pools.closes, [1, 1, 1]);
  throwsAtOnce(
    () => parent.extend((b) => b),
    HttpClientException,
    "Client is closed: cannot extend it",
  );
  throwsAtOnce(
    () => own.extend((b) => b),
    HttpClientException,
    "Client is closed: cannot extend it",
  );
  assert.equal(server.requests.length, 3);
});

Deno.test("closing a derived client closes the clients derived from it, not its parent; close in any order", async () => {
  await using server = startFixtureServer();
  using pools = poolSpy();
  const parent = parentClient(server.url);
  const middle = parent.extend((builder) => builder.withPool({ poolMaxIdlePerHost: 2 }));
  const leaf = middle.extend((builder) => builder.withHeaders({ "X-Leaf": "1" }));
  await leaf.get("/leaf");
  await parent.get("/parent");
  middle.close();
  assert.ok(leaf.closed);
  assert.ok(!parent.closed);
  assert.deepEqual(pools.closes, [1, 0], "the middle's pool, which the leaf shared");
  await parent.get("/parent-again");
  leaf.close();
  parent.close();
  parent.close();
  middle.close();
  assert.deepEqual(pools.closes, [1, 1]);
});

Deno.test("await using a parent lets its derived clients' calls finish, then closes them", async () => {
  await using server = startFixtureServer();
  let derived: HttpClient;
  let pending: Promise<{ statusCode: number }>;
  {
    await using parent = parentClient(server.url);
    derived = parent.extend((builder) => builder.withHeaders({ "X-Tenant": "a" }));
    pending = derived.get("/delay/100");
  }
  assert.ok(derived.closed);
  assert.equal((await pending).statusCode, 200);
});

Deno.test("a derived client starts with an empty jar of its own; a jar object given to withCookies is shared", async () => {
  await using server = startFixtureServer();
  server.route("/login", () => new Response("ok", { headers: { "set-cookie": "session=s1" } }));
  await using parent = new HttpClient(
    new HttpClientConfigBuilder().withBaseUrl(server.url).withCookies().build(),
  );
  await parent.post("/login");
  const tenant = parent.extend((builder) => builder.withHeaders({ "X-Tenant": "b" }));
  await tenant.get("/me");
  assert.equal(server.last().headers["cookie"], undefined);
  await parent.get("/me");
  assert.equal(server.last().headers["cookie"], "session=s1");

  const jar = new CookieJar();
  await using withJar = new HttpClient(
    new HttpClientConfigBuilder().withBaseUrl(server.url).withCookies(jar).build(),
  );
  await withJar.post("/login");
  await withJar.extend((builder) => builder).get("/me");
  assert.equal(server.last().headers["cookie"], "session=s1");
});

Deno.test("a derived client shares the parent's auth hook and token manager: one token serves both", async () => {
  await using server = startFixtureServer();
  let fetched = 0;
  const tokenManager = new TokenManager([{
    name: "static",
    fetch: () => Promise.resolve(new TokenData({ accessToken: `token-${++fetched}` })),
  }]);
  await using parent = new HttpClient(
    new HttpClientConfigBuilder().withBaseUrl(server.url).withTokenAuth({ tokenManager }).build(),
  );
  const derived = parent.extend((builder) => builder.withHeaders({ "X-Tenant": "a" }));
  await parent.get("/one");
  await derived.get("/two");
  assert.equal(fetched, 1);
  assert.deepEqual(server.requests.map((r) => r.headers["authorization"]), [
    "Bearer token-1",
    "Bearer token-1",
  ]);
  assert.equal(derived.config.authHook, parent.config.authHook);
});

Deno.test("a derived client's views mask the secrets of its own and its parent's settings", () => {
  using parent = new HttpClient(
    new HttpClientConfigBuilder()
      .withBaseUrl("http://ada:b4se-s3cret@127.0.0.1:1/")
      .withHeaders({ Authorization: "Bearer h3ader-s3cret" })
      .build(),
  );
  const derived = parent.extend((builder) =>
    builder.withHeaders({ "X-API-Key": "k3y-s3cret" })
      .withProxy("http://ada:pr0xy-s3cret@127.0.0.1:3128")
  );
  const views = [
    JSON.stringify(derived),
    JSON.stringify(derived.config),
    Deno.inspect(derived, { depth: 10 }),
    Deno.inspect(derived.config, { depth: 10 }),
  ];
  for (const view of views) {
    for (const secret of ["b4se-s3cret", "h3ader-s3cret", "k3y-s3cret", "pr0xy-s3cret"]) {
      assert.ok(!view.includes(secret), `${secret} in ${view}`);
    }
  }
  assert.match(views[0]!, /"baseUrl":"http:\/\/ada:\*\*\*@127\.0\.0\.1:1\/"/);
  assert.match(views[0]!, /"url":"http:\/\/ada:\*\*\*@127\.0\.0\.1:3128"/);
});

Deno.test("HttpClient.extend() and HttpClientConfigBuilder.from() refuse bad input clearly", () => {
  using parent = new HttpClient();
  const extend = parent.extend.bind(parent) as (configure: unknown) => HttpClient;
  throwsAtOnce(
    () => extend(42),
    TypeError,
    "Invalid extend: expected a function of the config builder",
  );
  throwsAtOnce(
    () => extend(() => 42),
    TypeError,
    "Invalid extend: expected the function to return the config builder",
  );
  const from = HttpClientConfigBuilder.from as (config: unknown) => unknown;
  throwsAtOnce(() => from(null), TypeError, "Invalid config: expected an HttpClientConfig");
  // A function that changes the builder and returns nothing is fine.
  const derived = parent.extend((builder) => void builder.withTimeout(7));
  assert.equal(derived.config.timeout, 7);
  assert.equal(parent.config.timeout, 30);
});
