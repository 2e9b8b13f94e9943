import assert from "node:assert/strict";
import {
  createClient,
  HttpClient,
  HttpClientConfigBuilder,
  HttpClientException,
  HttpMethod,
  HttpRequest,
} from "../mod.ts";
import { startFixtureServer } from "./fixture_server.ts";
import { rejectsWith, singleAttemptClient } from "./helpers.ts";

const decode = (bytes: Uint8Array) => new TextDecoder().decode(bytes);

Deno.test("HttpClient joins relative URLs to the base URL with one slash between them", async () => {
  await using server = startFixtureServer();
  for (const base of [`${server.url}/api`, `${server.url}/api/`]) {
    await using client = singleAttemptClient(base);
    for (const path of ["/users", "users", "/users/", "users/"]) {
      const response = await client.get(path);
      assert.equal(server.last().path, "/api/users", `${base} + ${path}`);
      assert.equal(response.url, `${server.url}/api/users`);
      assert.equal(response.request.url, `${server.url}/api/users`);
    }
    await client.get("/users/?a=1");
    assert.deepEqual([server.last().path, server.last().query], ["/api/users", "a=1"]);
  }
});

Deno.test("HttpClient sends an absolute URL as it is, ignoring the base URL", async () => {
  await using server = startFixtureServer();
  await using client = singleAttemptClient("http://127.0.0.1:9/ignored");
  const response = await client.get(`${server.url}/elsewhere/`);
  assert.equal(server.last().path, "/elsewhere/");
  assert.equal(response.url, `${server.url}/elsewhere/`);
});

Deno.test("HttpClient.get() encodes params in insertion order, repeating array keys", async () => {
  await using server = startFixtureServer();
  await using client = singleAttemptClient(server.url);
  await client.get("/search", {
    params: {
      q: "a b&c",
      page: 2,
      tag: ["x", "y"],
      on: true,
      skipped: null,
      gone: undefined,
      z: "é",
    },
  });
  assert.equal(server.last().query, "q=a+b%26c&page=2&tag=x&tag=y&on=true&z=%C3%A9");
  await client.get("/search?fixed=1", { params: { more: 2 } });
  assert.equal(server.last().query, "fixed=1&more=2");
});

Deno.test("HttpClient sends per-call headers merged over the client's default headers", async () => {
  await using server = startFixtureServer();
  const config = new HttpClientConfigBuilder()
    .withBaseUrl(server.url)
    .withHeaders({ "X-Default": "d", Accept: "text/plain" })
    .build();
  await using client = new HttpClient(config);
  await client.get("/h", { headers: { accept: "application/json", "X-Call": "c" } });
  const { headers } = server.last();
  assert.equal(headers["x-default"], "d");
  assert.equal(headers["accept"], "application/json");
  assert.equal(headers["x-call"], "c");
});

Deno.test("HttpClient returns an HttpResponse for every received status", async () => {
  await using server = startFixtureServer();
  await using client = singleAttemptClient(server.url);
  for (const status of [200, 201, 204, 299, 400, 401, 404, 418, 499, 500, 502, 503, 599]) {
    const response = await client.get(`/status/${status}`);
    assert.equal(response.statusCode, status);
    assert.equal(response.isSuccess, status < 300);
    assert.equal(response.isClientError, status >= 400 && status < 500);
    assert.equal(response.isServerError, status >= 500);
  }
});

Deno.test("HttpClient's responses read headers without regard to case, and keep them frozen", async () => {
  await using server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, () => {
    const headers = new Headers({ "Content-Type": "text/plain; charset=utf-8", "X-Custom": "a" });
    headers.append("Set-Cookie", "one=1");
    headers.append("Set-Cookie", "two=2");
    return new Response("héllo", { headers });
  });
  const url = `http://127.0.0.1:${server.addr.port}/`;
  await using pooled = singleAttemptClient();
  await using custom = new HttpClient(
    new HttpClientConfigBuilder().withFetch((input, init) => fetch(input, init)).build(),
  );
  for (const client of [pooled, custom]) {
    const response = await client.get(url);
    // header() and text before the record is built, then the record itself.
    assert.equal(response.header("x-CUSTOM"), "a");
    assert.equal(response.header("set-cookie"), "one=1, two=2");
    assert.equal(response.header("absent"), undefined);
    assert.equal(response.text, "héllo");
    const headers = response.headers;
    assert.equal(headers["x-custom"], "a");
    assert.equal(headers["set-cookie"], "one=1, two=2");
    assert.equal(headers["content-type"], "text/plain; charset=utf-8");
    assert.equal(Object.keys(headers).some((name) => name !== name.toLowerCase()), false);
    assert.ok(Object.isFrozen(headers));
    assert.equal(response.headers, headers, "one record, built once");
    assert.equal(response.header("X-Custom"), "a");
    assert.ok(Object.isFrozen(response));
    assert.throws(() => {
      (response as { headers: unknown }).headers = {};
    }, TypeError);
    assert.throws(() => {
      (headers as Record<string, string>)["x-custom"] = "b";
    }, TypeError);
  }
});

Deno.test("HttpClient has put, patch, delete, head and options methods", async () => {
  await using server = startFixtureServer();
  await using client = singleAttemptClient(server.url);
  await client.put("/r", { jsonData: { a: 1 } });
  await client.patch("/r", { jsonData: { b: 2 } });
  await client.delete("/r", { params: { soft: true } });
  const head = await client.head("/r");
  await client.options("/r");
  assert.deepEqual(server.requests.map((r) => r.method), [
    "PUT",
    "PATCH",
    "DELETE",
    "HEAD",
    "OPTIONS",
  ]);
  assert.equal(decode(server.requests[1]!.body), '{"b": 2}');
  assert.equal(server.requests[2]!.query, "soft=true");
  assert.equal(head.content.length, 0);
});

Deno.test("HttpClient.query() sends QUERY with a body, as post() sends its own", async () => {
  await using server = startFixtureServer();
  await using client = singleAttemptClient(server.url);
  const response = await client.query("/search", {
    params: { page: 2 },
    jsonData: { q: "Ada", tags: ["x"] },
  });
  const sent = server.last();
  assert.deepEqual([sent.method, sent.path, sent.query, decode(sent.body)], [
    "QUERY",
    "/search",
    "page=2",
    '{"q": "Ada", "tags": ["x"]}',
  ]);
  assert.equal(sent.headers["content-type"], "application/json");
  assert.equal((response.json() as { method: string }).method, "QUERY", "the fixture's echo");
  assert.equal(response.request.method, HttpMethod.QUERY);
  await client.query("/search", { data: { q: "a b" } });
  assert.deepEqual([server.last().method, decode(server.last().body)], ["QUERY", "q=a+b"]);
  await client.request(new HttpRequest("query", "/search", { body: "raw" }));
  assert.deepEqual([server.last().method, decode(server.last().body)], ["QUERY", "raw"]);
});

Deno.test("HttpClient.request() sends an explicitly built HttpRequest", async () => {
  await using server = startFixtureServer();
  await using client = singleAttemptClient(server.url);
  const request = new HttpRequest("POST", "/explicit", {
    jsonData: { x: 1 },
    params: { v: 2 },
    headers: { "X-Explicit": "yes" },
  });
  const response = await client.request(request);
  const recorded = server.last();
  assert.deepEqual([recorded.method, recorded.path, recorded.query], ["POST", "/explicit", "v=2"]);
  assert.equal(recorded.headers["x-explicit"], "yes");
  assert.equal(response.request.url, `${server.url}/explicit`);
  assert.equal(response.url, `${server.url}/explicit?v=2`);
  assert.ok(response.elapsedMs > 0);
});

Deno.test("HttpClient sends auth as HTTP Basic and takes credentials from the URL", async () => {
  await using server = startFixtureServer();
  await using client = singleAttemptClient(server.url);
  await client.get("/basic", { auth: ["Zoë", "pä:ss"] });
  const expected = `Basic ${btoa(String.fromCharCode(...new TextEncoder().encode("Zoë:pä:ss")))}`;
  assert.equal(server.last().headers["authorization"], expected);
  const withUser = server.url.replace("http://", "http://user:pw@");
  const response = await client.get(`${withUser}/in-url`);
  assert.equal(server.last().headers["authorization"], `Basic ${btoa("user:pw")}`);
  assert.ok(!response.url.includes("pw"));
});

Deno.test("HttpClient refuses unresolvable and unsupported URLs with HttpClientException", async () => {
  await using client = singleAttemptClient();
  await rejectsWith(
    client.get("/relative"),
    HttpClientException,
    /^Cannot resolve a relative URL without a base URL: GET \/relative$/,
  );
  await rejectsWith(
    client.post("http://[bad", { data: { a: 1 } }),
    HttpClientException,
    /^Invalid URL: POST http:\/\/\[bad$/,
  );
  await rejectsWith(
    client.get("ftp://127.0.0.1/f"),
    HttpClientException,
    /Unsupported URL scheme "ftp:"/,
  );
  await rejectsWith(
    client.get("file:///etc/passwd"),
    HttpClientException,
    /Unsupported URL scheme "file:"/,
  );
});

Deno.test("HttpClient refuses bad request input with TypeError before sending", async () => {
  await using server = startFixtureServer();
  await using client = singleAttemptClient(server.url);
  await assert.rejects(client.get("/x", { timeout: -1 }), TypeError);
  await assert.rejects(client.post("/x", { jsonData: { n: NaN } }), /jsonData\.n/);
  await assert.rejects(client.request({} as HttpRequest), TypeError);
  assert.equal(server.requests.length, 0);
});

Deno.test("HttpClient uses a custom transport given with withFetch", async () => {
  const seen: Request[] = [];
  const config = new HttpClientConfigBuilder()
    .withBaseUrl("http://in-memory.test")
    .withFetch((input, init) => {
      seen.push(new Request(input, init));
      return Promise.resolve(Response.json({ fake: true }));
    })
    .build();
  await using client = new HttpClient(config);
  const response = await client.get("/x");
  assert.deepEqual(response.json(), { fake: true });
  assert.equal(seen[0]?.url, "http://in-memory.test/x");
});

Deno.test("createClient() builds a client with the defaults and the base URL", async () => {
  await using server = startFixtureServer();
  await using client = createClient(server.url);
  assert.equal(client.config.baseUrl, server.url);
  assert.equal(client.config.timeout, 30);
  assert.equal(client.config.maxRedirects, 20);
  assert.equal(client.config.retry.maxRetries, 2);
  assert.equal((await client.get("/plain")).statusCode, 200);
});

Deno.test("HttpClient refuses a URL whose user-info is badly escaped with HttpClientException", async () => {
  await using client = singleAttemptClient();
  await rejectsWith(
    client.get("http://user:%E0%A4%A@127.0.0.1:9/x"),
    HttpClientException,
    /^Invalid URL: GET/,
  );
});
