import assert from "node:assert/strict";
import {
  ConnectionException,
  HttpClient,
  HttpClientConfigBuilder,
  HttpClientException,
  HttpRequest,
  type RetryOptions,
  TimeoutException,
} from "../mod.ts";
import { startFixtureServer } from "./fixture_server.ts";
import { recordedWaits, rejectsWith } from "./helpers.ts";

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

function retryingClient(baseUrl: string, options: RetryOptions = {}) {
  const { waits, sleep } = recordedWaits();
  const config = new HttpClientConfigBuilder()
    .withBaseUrl(baseUrl)
    .withRetry({ random: () => 0.5, sleep, ...options })
    .build();
  return { client: new HttpClient(config), waits };
}

Deno.test("HttpClient retries idempotent methods twice by default and returns the last response", async () => {
  await using server = startFixtureServer();
  const { client, waits } = retryingClient(server.url);
  await using _ = client;
  for (const method of ["GET", "HEAD", "OPTIONS", "QUERY", "PUT", "DELETE"] as const) {
    server.requests.length = 0;
    const response = await client.request(
      new HttpRequest(method, "/status/503"),
    );
    assert.equal(response.statusCode, 503);
    assert.equal(server.requests.length, 3, method);
  }
  assert.deepEqual(waits.slice(0, 2), [250, 500], "full jitter over 0.5 s · 2^attempt");
});

Deno.test("HttpClient retries a QUERY and its body like a GET, on a 503 and a dropped connection", async () => {
  await using server = startFixtureServer();
  const { client, waits } = retryingClient(server.url);
  await using _ = client;
  const response = await client.query("/status/503", { jsonData: { q: 1 } });
  assert.equal(response.statusCode, 503);
  assert.deepEqual(
    server.requests.map((r) => [r.method, new TextDecoder().decode(r.body)]),
    [["QUERY", '{"q": 1}'], ["QUERY", '{"q": 1}'], ["QUERY", '{"q": 1}']],
  );
  assert.deepEqual(waits, [250, 500]);
  assert.equal(server.requests[0]!.headers["idempotency-key"], undefined, "idempotent already");
  const drop = retryingClient(server.dropUrl);
  await using dropping = drop.client;
  await rejectsWith(dropping.query("/x", { jsonData: { q: 1 } }), ConnectionException, /QUERY/);
  assert.deepEqual(server.requests.slice(3).map((r) => r.method), ["QUERY", "QUERY", "QUERY"]);
});

Deno.test("HttpClient never retries POST or PATCH by default", async () => {
  await using server = startFixtureServer();
  const { client } = retryingClient(server.url);
  await using _ = client;
  assert.equal((await client.post("/status/503", { jsonData: {} })).statusCode, 503);
  assert.equal((await client.patch("/status/500", { jsonData: {} })).statusCode, 500);
  assert.equal(server.requests.length, 2);
  assert.equal(server.requests[0]!.headers["idempotency-key"], undefined);
  const drop = retryingClient(server.dropUrl);
  await using dropping = drop.client;
  await rejectsWith(dropping.post("/x", { data: { a: 1 } }), ConnectionException, /POST/);
  assert.equal(server.requests.length, 3);
});

Deno.test("HttpClient retries exactly the statuses 408, 429, 500, 502, 503 and 504", async () => {
  await using server = startFixtureServer();
  const { client } = retryingClient(server.url, { maxRetries: 1 });
  await using _ = client;
  for (const status of [400, 401, 403, 404, 408, 409, 429, 500, 501, 502, 503, 504, 505]) {
    server.requests.length = 0;
    await client.get(`/status/${status}`);
    const expected = [408, 429, 500, 502, 503, 504].includes(status) ? 2 : 1;
    assert.equal(server.requests.length, expected, `status ${status}`);
  }
});

Deno.test("HttpClient retries a flaky endpoint until it succeeds", async () => {
  await using server = startFixtureServer();
  let calls = 0;
  server.route(
    "/flaky",
    () => ++calls <= 2 ? new Response("busy", { status: 502 }) : Response.json({ ok: true }),
  );
  const { client } = retryingClient(server.url);
  await using _ = client;
  const response = await client.get("/flaky");
  assert.deepEqual(response.json(), { ok: true });
  assert.equal(calls, 3);
});

Deno.test("HttpClient retries connection failures and timeouts, then throws the last exception", async () => {
  await using server = startFixtureServer();
  const dropped = retryingClient(server.dropUrl);
  await using dropping = dropped.client;
  await rejectsWith(dropping.get("/x"), ConnectionException, /GET/);
  assert.equal(server.requests.length, 3);
  const slow = retryingClient(server.url);
  await using slowClient = slow.client;
  await rejectsWith(slowClient.get("/delay/2000", { timeout: 0.05 }), TimeoutException, /0\.05 s/);
  assert.equal(server.requests.filter((r) => r.path === "/delay/2000").length, 3);
});

Deno.test("HttpClient honours Retry-After in seconds and as an HTTP date", async () => {
  await using server = startFixtureServer();
  let calls = 0;
  server.route(
    "/limited",
    () =>
      ++calls === 1
        ? new Response(null, { status: 429, headers: { "retry-after": "3" } })
        : calls === 2
        ? new Response(null, {
          status: 503,
          headers: { "retry-after": new Date(Date.now() + 10_000).toUTCString() },
        })
        : new Response("ok"),
  );
  const { client, waits } = retryingClient(server.url);
  await using _ = client;
  assert.equal((await client.get("/limited")).statusCode, 200);
  assert.equal(waits[0], 3000);
  assert.ok(waits[1]! > 8000 && waits[1]! <= 10_000, `waited ${waits[1]} ms`);
});

Deno.test("HttpClient returns the response when Retry-After asks for more than 60 s", async () => {
  await using server = startFixtureServer();
  server.route(
    "/later",
    () => new Response(null, { status: 503, headers: { "retry-after": "120" } }),
  );
  const { client, waits } = retryingClient(server.url);
  await using _ = client;
  const response = await client.get("/later");
  assert.equal(response.statusCode, 503);
  assert.equal(server.requests.length, 1);
  assert.deepEqual(waits, []);
});

Deno.test("HttpClient caps one backoff wait at maxBackoff", async () => {
  await using server = startFixtureServer();
  const { client, waits } = retryingClient(server.url, {
    maxRetries: 3,
    backoff: 10,
    maxBackoff: 15,
    random: () => 1,
  });
  await using _ = client;
  await client.get("/status/500");
  assert.deepEqual(waits, [10_000, 15_000, 15_000]);
});

Deno.test("HttpClient retries an opted-in POST with one Idempotency-Key for every attempt", async () => {
  await using server = startFixtureServer();
  const { client } = retryingClient(server.url, { methods: ["GET", "POST"] });
  await using _ = client;
  await client.post("/status/503", { jsonData: { pay: 10 } });
  const keys = server.requests.map((r) => r.headers["idempotency-key"]);
  assert.equal(keys.length, 3);
  assert.match(keys[0]!, UUID);
  assert.equal(new Set(keys).size, 1);
  await client.post("/status/503", { jsonData: {} });
  assert.notEqual(server.last().headers["idempotency-key"], keys[0], "a new key per call");
  await client.post("/status/200", { jsonData: {}, headers: { "idempotency-key": "mine" } });
  assert.equal(server.last().headers["idempotency-key"], "mine");
  await client.get("/status/200");
  assert.equal(server.last().headers["idempotency-key"], undefined, "GET needs no key");
});

Deno.test("HttpClient waits for real with the default sleep, and close() ends a wait", async () => {
  await using server = startFixtureServer();
  const config = new HttpClientConfigBuilder().withBaseUrl(server.url).withRetry({ backoff: 0.001 })
    .build();
  await using client = new HttpClient(config);
  assert.equal((await client.get("/status/503")).statusCode, 503);
  assert.equal(server.requests.length, 3);
  const seen: unknown[] = [];
  const patient = new HttpClient(
    new HttpClientConfigBuilder()
      .withBaseUrl(server.url)
      .withRetry({ backoff: 60, random: () => 1 })
      .withErrorHook({ onError: (error) => void seen.push(error) })
      .build(),
  );
  const pending = patient.get("/status/503");
  while (server.requests.length < 4) await new Promise((resolve) => setTimeout(resolve, 5));
  patient.close();
  const error = await rejectsWith(
    pending,
    HttpClientException,
    /Client was closed during the request: GET/,
  );
  assert.deepEqual(seen, [error], "the error hooks saw the abort of the wait");
});

Deno.test("HttpClientConfigBuilder.withRetry() refuses bad settings at build time", () => {
  const builder = new HttpClientConfigBuilder();
  assert.throws(() => builder.withRetry({ maxRetries: -1 }), RangeError);
  assert.throws(() => builder.withRetry({ maxRetries: 1.5 }), RangeError);
  assert.throws(() => builder.withRetry({ backoff: -0.1 }), /Invalid backoff/);
  assert.throws(() => builder.withRetry({ backoff: NaN }), RangeError);
  assert.throws(() => builder.withRetry({ maxBackoff: -1 }), RangeError);
  assert.throws(() => builder.withRetry({ statusCodes: [700] }), RangeError);
  // @ts-expect-error: a method that is not an HttpMethod does not compile either
  assert.throws(() => builder.withRetry({ methods: ["FETCH"] }), TypeError);
  assert.equal(builder.withRetry({ maxRetries: 0 }).build().retry.maxRetries, 0);
});
