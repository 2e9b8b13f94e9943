// MockTransport's routes and recorded calls, through a client: which route
// answers, what each reply gives the client, what a test can read of the
// requests, and the request no route matches, which fails at once, loudly,
// never retried, never sent to a network.

import assert from "node:assert/strict";
import { HttpClient, HttpClientConfigBuilder, HttpClientException, HttpRequest } from "../mod.ts";
import { MockCall, MockTransport, UnmatchedRequestException } from "../testing.ts";
import { startFixtureServer } from "./fixture_server.ts";
import { rejectsWith } from "./helpers.ts";

/** A client of `mock` at `baseUrl`, with the default retries made instant. */
function mockClient(mock: MockTransport, baseUrl = "https://api.test"): HttpClient {
  return new HttpClient(
    new HttpClientConfigBuilder().withBaseUrl(baseUrl).withFetch(mock.fetch)
      .withRetry({ backoff: 0.001 }).build(),
  );
}

Deno.test("MockTransport answers from the first route whose method and URL pattern match", async () => {
  const mock = new MockTransport()
    .route("GET", "/users/1", { json: { id: 1 } })
    .route("get", "https://api.test/users?page=2", { body: "page 2" })
    .route("GET", "https://other.test/users", { body: "other origin" })
    .route("GET", /\/users\/\d+$/g, { status: 404 })
    .route("GET", new URLPattern({ pathname: "/items/:id" }), { body: "item" })
    .route("*", "/users", { status: 201 });
  await using client = mockClient(mock);
  const answer = async (url: string, method = "GET") => {
    const response = await client.request(new HttpRequest(method, url));
    return `${response.statusCode} ${response.text}`;
  };
  assert.equal(await answer("/users/1"), `200 {"id":1}`);
  assert.equal(
    await answer("/users/1?fields=all"),
    `200 {"id":1}`,
    "a path without a query matches any",
  );
  assert.equal(await answer("/users?page=2"), "200 page 2");
  assert.equal(await answer("/users?page=3"), "201 ", "a query in the pattern must be the call's");
  assert.equal(await answer("https://other.test/users"), "200 other origin");
  // A RegExp's g flag is dropped: the second test starts again from the start.
  assert.equal(await answer("/users/7"), "404 ");
  assert.equal(await answer("/users/8"), "404 ");
  assert.equal(await answer("/items/3"), "200 item");
  assert.equal(await answer("/users", "DELETE"), "201 ");
  assert.equal(mock.calls.length, 9);
});

Deno.test("MockTransport gives the client each reply's status, headers and body", async () => {
  const shared = new Response("shared", { status: 202, headers: { "x-kind": "response" } });
  let count = 0;
  const mock = new MockTransport()
    .route("GET", "/json", { json: { a: [1, 2] }, headers: { "X-Trace": "t1" } })
    .route("GET", "/typed", { json: 1, headers: { "content-type": "application/problem+json" } })
    .route("GET", "/bytes", { status: 207, body: new Uint8Array([1, 2, 3]) })
    .route("GET", "/shared", shared)
    .route("GET", "/sync", () => ({ body: `sync ${++count}` }))
    .route("GET", "/async", async () => {
      await Promise.resolve();
      return Response.json({ async: true }, { status: 203 });
    })
    .route("GET", "/empty", { status: 204 });
  await using client = mockClient(mock);
  const json = await client.get("/json");
  assert.deepEqual([json.json(), json.header("content-type"), json.header("x-trace")], [
    { a: [1, 2] },
    "application/json",
    "t1",
  ]);
  assert.equal((await client.get("/typed")).header("content-type"), "application/problem+json");
  const bytes = await client.get("/bytes");
  assert.deepEqual([bytes.statusCode, [...bytes.content]], [207, [1, 2, 3]]);
  // A Response answers each call with a clone: the route's own is never read.
  for (let i = 0; i < 2; i++) {
    const response = await client.get("/shared");
    assert.deepEqual([response.statusCode, response.text, response.header("x-kind")], [
      202,
      "shared",
      "response",
    ]);
  }
  assert.equal(shared.bodyUsed, false);
  assert.equal((await client.get("/sync")).text, "sync 1");
  assert.equal((await client.get("/sync")).text, "sync 2");
  const async = await client.get("/async");
  assert.deepEqual([async.statusCode, async.json()], [203, { async: true }]);
  const empty = await client.get("/empty");
  assert.deepEqual([empty.statusCode, empty.content.byteLength], [204, 0]);
});

Deno.test("MockTransport records each request as sent, its body readable as often as asked", async () => {
  const mock = new MockTransport().route("*", /./, (call) => ({ body: call.text }));
  await using client = new HttpClient(
    new HttpClientConfigBuilder().withBaseUrl("https://api.test/v1/").withFetch(mock.fetch)
      .withHeaders({ "X-Tenant": "a" })
      .withRequestHook({ beforeRequest: (request) => request.withHeaders({ "X-Hooked": "1" }) })
      .build(),
  );
  await client.post("users", { jsonData: { name: "Ada" }, params: { dry: true } });
  await client.put("form", { data: { a: "1", b: "x y" } });
  const chunks = ["stre", "amed"].map((text) => new TextEncoder().encode(text));
  await client.post("upload", { body: ReadableStream.from(chunks) });
  await client.get("plain", { auth: ["ada", "s3cret"] });
  const [json, form, stream, plain] = mock.calls;
  assert.equal(json?.method, "POST");
  assert.equal(json?.url, "https://api.test/v1/users?dry=true");
  assert.equal(json?.headers.get("content-type"), "application/json");
  assert.deepEqual([json?.headers.get("x-tenant"), json?.headers.get("x-hooked")], ["a", "1"]);
  assert.deepEqual(json?.json(), { name: "Ada" });
  assert.deepEqual(json?.json(), { name: "Ada" }, "read twice");
  assert.equal(form?.text, "a=1&b=x+y");
  assert.equal(stream?.text, "streamed");
  assert.equal(plain?.content.byteLength, 0);
  assert.equal(plain?.headers.get("authorization"), `Basic ${btoa("ada:s3cret")}`);
  // The views of a call mask its credentials; the fields keep them for the test.
  const shown = JSON.stringify(plain) + Deno.inspect(plain);
  assert.ok(!shown.includes(btoa("ada:s3cret")), shown);
  assert.match(shown, /"authorization":"\*\*\*"/);
  assert.ok(plain instanceof MockCall);
});

Deno.test("MockTransport fails a request no route matches at once, naming it and the routes, not retried", async () => {
  const mock = new MockTransport()
    .route("GET", "/users", { json: [] })
    .route("POST", /\/orders$/, { status: 201 });
  const seen: unknown[] = [];
  await using client = new HttpClient(
    new HttpClientConfigBuilder().withBaseUrl("https://api.test").withFetch(mock.fetch)
      .withRetry({ maxRetries: 3, backoff: 0.001 })
      .withErrorHook({ onError: (error) => void seen.push(error) })
      .build(),
  );
  const error = await rejectsWith(
    client.get("/orders", { params: { token: "t0ken" } }),
    UnmatchedRequestException,
    /^No mock route matches GET https:\/\/api\.test\/orders\?token=\*\*\*: routes GET \/users; POST \/\\\/orders\$\/$/,
  );
  assert.ok(error instanceof HttpClientException);
  assert.equal((error as UnmatchedRequestException).call, mock.calls[0]);
  assert.equal(mock.calls.length, 1, "one attempt: the same request would miss again");
  assert.deepEqual(seen, [error], "the error hooks see it");
  assert.ok(!JSON.stringify(error).includes("t0ken"));
  await rejectsWith(
    new MockTransport().fetch("http://api.test/"),
    UnmatchedRequestException,
    /^No mock route matches GET http:\/\/api\.test\/: no routes$/,
  );
});

Deno.test("MockTransport sends nothing to a network, even to a listening server", async () => {
  await using server = startFixtureServer();
  const mock = new MockTransport().route("GET", "/known", { body: "mocked" });
  await using client = mockClient(mock, server.url);
  assert.equal((await client.get("/known")).text, "mocked");
  await rejectsWith(client.get("/unknown"), UnmatchedRequestException, /GET http:\/\/127\.0\.0\.1/);
  assert.equal(server.requests.length, 0);
});

Deno.test("MockTransport follows a redirect and a retry through its routes", async () => {
  let attempts = 0;
  const mock = new MockTransport()
    .route("GET", "/old", { status: 301, headers: { location: "/new" } })
    .route("GET", "/new", () => ({ status: ++attempts < 3 ? 503 : 200, body: "moved" }));
  await using client = mockClient(mock);
  const response = await client.get("/old");
  assert.deepEqual([response.statusCode, response.text, response.url], [
    200,
    "moved",
    "https://api.test/new",
  ]);
  assert.deepEqual(mock.calls.map((call) => new URL(call.url).pathname), [
    "/old",
    "/new",
    "/old",
    "/new",
    "/old",
    "/new",
  ]);
});
